#pragma once

#include <string>

namespace blasscope::core {

// A short label for a GPU kernel name, from prefix rules: cuBLAS names its kernels after
// the architecture and library they come from (sm90_xmma_gemm_..., nvjet_..., cutlass_...).
std::string kernel_family(const std::string& kernel_name);

// A kernel name as people read it: CUPTI reports C++ kernels mangled ("_Z22blasscope_...").
std::string readable_kernel_name(const std::string& name);

}  // namespace blasscope::core
