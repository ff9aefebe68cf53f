#include "gpu_model/cuda_errors.h"

#include <array>

namespace blasscope::core {

bool is_sticky_cuda_error(std::string_view error_name) {
  // The CUDA runtime API reference lists these as leaving the process in an inconsistent
  // state: the context must be destroyed (in practice, the process restarted).
  static constexpr std::array<std::string_view, 9> kSticky = {
      "cudaErrorIllegalAddress",      "cudaErrorLaunchFailure",
      "cudaErrorInvalidAddressSpace", "cudaErrorMisalignedAddress",
      "cudaErrorHardwareStackError",  "cudaErrorIllegalInstruction",
      "cudaErrorInvalidPc",           "cudaErrorAssert",
      "cudaErrorLaunchTimeout"};
  for (const auto name : kSticky) {
    if (name == error_name) return true;
  }
  return false;
}

std::string sticky_error_advice() {
  return "a sticky error: a kernel faulted (typically it read or wrote outside its buffers, as a too large leading "
         "dimension makes it do), and every later CUDA call in this process fails too";
}

}  // namespace blasscope::core
