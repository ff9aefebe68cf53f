#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace blasscope::core {

// One operand as the kernel saw it.
struct OperandRecord {
  std::string role;    // "a", "b", "c", "out"
  std::string tensor;  // workload tensor name
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::string order;               // "C" or "F"
  std::int64_t ld = 0;             // leading dimension passed to the kernel (0: not a matrix argument)
  std::uint64_t alignment = 0;     // largest power of two dividing the pointer (capped at 4096)
  std::uint64_t nan = 0, inf = 0;  // NaN and +/-Inf among its values when the kernel ran
};

struct XerblaRecord {
  std::string routine;
  int parameter = 0;
  std::string meaning;  // what that parameter is in the user's call
};

// Everything recorded about one op on one device.
struct KernelRecord {
  std::size_t op = 0;
  std::string op_kind;  // gemm, dlascl, svd, lstsq, cast
  std::string device = "cpu";
  std::string kernel;  // cblas_dgemm, blasscope_dlascl, dgesdd, ...
  std::string dtype;   // the dtype the kernel computed in
  std::optional<std::int64_t> m, n, k;
  std::vector<OperandRecord> operands;
  std::vector<std::string> casts;  // promotions made before the call ("a: float16 -> float32")
  std::uint64_t bytes_touched = 0;
  std::vector<double> seconds_each;  // one per repeat
  std::optional<double> seconds;     // median of seconds_each
  std::optional<double> gflops;
  std::optional<double> gbytes_per_second;
  std::string status = "ok";  // ok, failed, crashed, skipped
  std::optional<int> info;    // LAPACK INFO
  std::vector<XerblaRecord> xerbla;
  std::string error_kind;  // shape-mismatch, dtype-mismatch, unsupported-dtype, out-of-memory, no-gpu, ...
  std::optional<std::string> error;
  std::uint64_t output_nan = 0, output_inf = 0;
  std::uint64_t cast_overflow = 0;  // cast: finite values that became infinite

  std::uint64_t input_nonfinite() const;
};

nlohmann::json to_json(const KernelRecord& record);
KernelRecord kernel_record_from_json(const nlohmann::json& j);

}  // namespace blasscope::core
