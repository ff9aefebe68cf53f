#pragma once

#include <string>

#include "tensor/host_tensor.h"

namespace blasscope::core {

// Writes a tensor as a .npy file (format 1.0, little endian, its own memory order) that
// np.load reads; padding is dropped. bfloat16, which NumPy lacks, is written as float32
// (exactly). Throws InputError(Unreadable) when the file cannot be written.
void write_npy(const std::string& path, const HostTensor& tensor);

// The NumPy descriptor of a dtype: '<f4', '|b1', '<c16', ...
std::string npy_descr(DType dtype);

}  // namespace blasscope::core
