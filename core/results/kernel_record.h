#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/json_optional.h"
#include "results/record_enums.h"
#include "text/json.h"

namespace blasscope::core {

// One operand as the kernel saw it.
struct OperandRecord {
  std::string role;    // "a", "b", "c"; results: "out", and "u", "vt" for svd
  std::string tensor;  // workload tensor name
  DType dtype = DType::Float64;
  std::vector<std::uint64_t> shape;
  MemoryOrder order = MemoryOrder::C;
  std::int64_t ld = 0;          // leading dimension passed to the kernel (0: not a matrix argument)
  bool padded = false;          // rows (C) or columns (F) are further apart than their length
  std::uint64_t alignment = 0;  // largest power of two dividing the pointer (capped at 4096)
  // Its values when the kernel ran (inputs before, outputs after):
  std::uint64_t nan = 0, inf = 0, subnormal = 0;
  std::optional<double> max_abs{};                              // largest finite magnitude
  std::optional<std::vector<std::uint64_t>> first_nonfinite{};  // NumPy index of the first NaN/Inf

  // A result ("out"; svd's "u" and "vt", eigh's "v"), not an input.
  bool is_output() const { return role == "out" || role == "u" || role == "vt" || role == "v"; }
};

struct XerblaRecord {
  std::string routine;
  int parameter = 0;
  std::string meaning;  // what that parameter is in the user's call
};

// The arguments as passed to a BLAS call (GEMM): what explains an argument error.
struct BlasCallRecord {
  bool row_major = true;
  bool trans_a = false, trans_b = false;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
};

// One thing the GPU did for an op, from CUPTI: a kernel, a copy, a memset, an allocation.
struct DeviceEventRecord {
  std::string kind;    // kernel, memcpy, memset, memory, overhead
  std::string name;    // the kernel name as cuBLAS/CUDA gives it
  std::string family;  // a short label from prefix rules
  std::uint64_t start_ns = 0, end_ns = 0;
  std::vector<std::int32_t> grid, block;
  std::uint64_t bytes = 0;
};

// CPU and GPU results of the same op compared element by element (--device both).
struct DeviceComparison {
  std::size_t op = 0;
  double max_abs_diff = 0;
  double max_rel_diff = 0;  // max |cpu - gpu| over max |cpu|: a normwise relative error
  double tolerance = 0;
  bool agree = true;
  std::optional<double> cpu_seconds, gpu_seconds, speedup;
};

// Everything recorded about one op on one device.
struct KernelRecord {
  std::size_t op = 0;
  OpKind op_kind = OpKind::Gemm;
  Device device = Device::Cpu;
  std::string kernel;          // cblas_dgemm, blasscope_dlascl, dgesdd, ...
  std::optional<DType> dtype;  // the dtype the kernel computed in (none when it never ran)
  std::optional<std::int64_t> m, n, k;
  std::vector<OperandRecord> operands;
  std::optional<BlasCallRecord> call;
  std::vector<std::string> casts;  // promotions made before the call ("a: float16 -> float32")
  std::uint64_t bytes_touched = 0;
  std::vector<double> seconds_each;  // one per repeat
  std::optional<double> seconds;     // median of seconds_each
  std::optional<double> gflops;
  std::optional<double> gbytes_per_second;
  OpStatus status = OpStatus::Ok;
  std::optional<int> info;  // LAPACK INFO
  std::vector<XerblaRecord> xerbla;
  ErrorKind error_kind = ErrorKind::None;
  std::optional<std::string> error;
  std::uint64_t output_nan = 0, output_inf = 0;
  std::uint64_t cast_overflow = 0;          // cast: finite values that became infinite
  std::optional<double> cast_overflow_max;  // cast: the largest such value
  std::uint64_t cast_inexact = 0;           // cast: values changed by more than the target's rounding
  std::optional<double> cast_max_relative_error;
  // GPU only:
  std::vector<DeviceEventRecord> device_events;  // from CUPTI
  std::uint64_t cupti_dropped = 0;               // activity records CUPTI could not keep
  std::optional<double> device_seconds;          // CUDA-event time of one repetition (median)
  // Device memory the op was predicted to need, and what cudaMemGetInfo saw it take.
  std::optional<std::uint64_t> device_memory_predicted, device_memory_measured;
  // lu_solve whose result is not finite: the first exact zero on its factors' diagonal (U's),
  // 1-based as GETRF's INFO gives it. GETRS divides by it and reports nothing.
  std::optional<std::int64_t> zero_pivot;

  std::uint64_t input_nonfinite() const;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OperandRecord, role, tensor, dtype, shape, order, ld, padded, alignment,
                                                nan, inf, subnormal, max_abs, first_nonfinite)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(XerblaRecord, routine, parameter, meaning)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceEventRecord, kind, name, family, start_ns, end_ns, grid, block,
                                                bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceComparison, op, max_abs_diff, max_rel_diff, tolerance, agree,
                                                cpu_seconds, gpu_seconds, speedup)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlasCallRecord, row_major, trans_a, trans_b, m, n, k, lda, ldb, ldc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelRecord, op, op_kind, device, kernel, dtype, m, n, k, operands,
                                                call, casts, bytes_touched, seconds_each, seconds, gflops,
                                                gbytes_per_second, status, info, xerbla, error_kind, error, output_nan,
                                                output_inf, cast_overflow, cast_overflow_max, cast_inexact,
                                                cast_max_relative_error, device_events, cupti_dropped, device_seconds,
                                                device_memory_predicted, device_memory_measured, zero_pivot)

}  // namespace blasscope::core
