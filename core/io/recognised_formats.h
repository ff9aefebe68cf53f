#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/zip_directory.h"

namespace blasscope::core {

// Formats BLAScope recognises but does not read (yet). Each returns the message to refuse
// the file with, naming the format and how to turn it into one BLAScope reads, or nullopt.

// A zip that is not an .npz: a TorchScript archive (torch.jit.save), or a torch.save zip the
// PyTorch reader did not take (open_tensor_file sends ARCHIVE/data.pkl archives there first).
std::optional<std::string> recognise_zip_format(const std::vector<ZipMember>& members);

// A pickle stream (protocol 2 or later starts with 0x80 and its version), including
// torch.save's legacy format (before PyTorch 1.6), which opens with a pickled magic number:
// refused with how to re-save it in the zip format the PyTorch reader reads.
std::optional<std::string> recognise_pickle(std::span<const std::byte> bytes);

}  // namespace blasscope::core
