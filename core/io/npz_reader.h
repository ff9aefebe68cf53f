#pragma once

#include <memory>

#include "io/tensor_file.h"

namespace blasscope::core {

// Reads the members of an .npz archive (np.savez stored or np.savez_compressed deflated).
// Stored members are read in place from the mapping; deflated ones are streamed later.
TensorFile read_npz(std::shared_ptr<const MappedFile> mapping);

}  // namespace blasscope::core
