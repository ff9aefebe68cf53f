#pragma once

#include <functional>
#include <string>

#include "exec/op_support.h"
#include "kernels/gemm.h"

namespace blasscope::core {

// What a device can multiply: its GEMM dtypes, and what "promote" turns others into.
struct GemmDeviceTraits {
  std::string device;  // "CPU", "GPU"
  std::function<bool(DType, std::string&)> supported;
  std::function<DType(DType)> promoted_to;
  std::function<DType(DType)> output_dtype;  // C's dtype for inputs of a dtype
};

// A gemm op checked, promoted and planned, its output allocated: the same for every device.
struct PreparedGemm {
  DType dtype = DType::Float64;
  DType out_dtype = DType::Float64;
  HostTensor* a = nullptr;
  HostTensor* b = nullptr;
  HostTensor* out = nullptr;
  GemmCall call;
  std::uint64_t m = 0, n = 0, k = 0;
  double flops = 0;
};

// Shape checks, dtype choice (NumPy promotion when allowed), promoted copies (freed with
// `temporaries`), the output `out_name` (C copied in when given), the CBLAS-style plan, and
// the record's shape, operand and byte fields. Throws OpRejected.
PreparedGemm prepare_gemm(const OpSpec& op, RunState& state, ScopedTemporaries& temporaries, KernelRecord& record,
                          const GemmDeviceTraits& traits, const std::string& out_name);

// Fills GFLOP/s and the output's NaN/Inf summary once the kernel ran.
void finish_gemm_record(KernelRecord& record, const PreparedGemm& gemm);

GemmDeviceTraits cpu_gemm_traits();

}  // namespace blasscope::core
