#pragma once

#include <string>
#include <string_view>

namespace blasscope::core {

// Whether a CUDA runtime error (by its name, "cudaErrorIllegalAddress") leaves the context
// unusable: after a kernel fault every later CUDA call in the process fails the same way, so
// the GPU backend refuses further ops instead of reporting a cascade of innocent failures.
bool is_sticky_cuda_error(std::string_view error_name);

// The sentence added to a sticky error's message.
std::string sticky_error_advice();

}  // namespace blasscope::core
