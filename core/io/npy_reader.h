#pragma once

#include <memory>
#include <string>

#include "io/tensor_file.h"

namespace blasscope::core {

// Reads a .npy file's header; the data stays in the mapping.
TensorFile read_npy(std::shared_ptr<const MappedFile> mapping, const std::string& tensor_name);

}  // namespace blasscope::core
