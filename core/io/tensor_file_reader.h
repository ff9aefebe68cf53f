#pragma once

#include <string>

#include "io/tensor_file.h"

namespace blasscope::core {

// Opens a tensor file, choosing the reader by magic bytes (never by extension).
// Throws InputError naming what was wrong; the message does not repeat the path.
TensorFile open_tensor_file(const std::string& path);

}  // namespace blasscope::core
