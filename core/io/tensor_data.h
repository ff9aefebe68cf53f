#pragma once

#include <cstddef>

#include "io/tensor_file.h"

namespace blasscope::core {

// Copies a tensor's bytes, as stored in the file (no byte swapping), into `dst`, which
// holds tensor.nbytes. Deflated members are inflated straight into `dst`.
void read_tensor_bytes(const TensorFile& file, const TensorInfo& tensor, std::byte* dst);

}  // namespace blasscope::core
