#pragma once

#include <string>

namespace blasscope::core {

// A short label for a GPU kernel name, from prefix rules: cuBLAS names its kernels after
// the architecture and library they come from (sm90_xmma_gemm_..., nvjet_..., cutlass_...).
std::string kernel_family(const std::string& kernel_name);

}  // namespace blasscope::core
