#pragma once

#include <memory>
#include <vector>

#include "io/mapped_file.h"
#include "io/tensor_file.h"
#include "io/zip_directory.h"

namespace blasscope::core {

// A torch.save zip archive: one top folder holding data.pkl (and no constants.pkl, which
// would make it a TorchScript module).
bool is_pytorch_archive(const std::vector<ZipMember>& members);

// Reads a torch.save checkpoint (zip format, PyTorch 1.6 and later) without unpickling it:
// data.pkl is read as data by read_pickle (only what torch.load(weights_only=True) allows),
// tensors are named by their dict keys joined with dots ("model.fc.weight"), other scalars
// become metadata. Storages (ARCHIVE/data/KEY) are read in place from the mapping; each
// view is checked to lie inside its storage. A view neither C- nor Fortran-contiguous is
// listed but not read (TensorInfo::unread, category "strided").
TensorFile read_pytorch(std::shared_ptr<const MappedFile> mapping, const std::vector<ZipMember>& members);
TensorFile read_pytorch(std::shared_ptr<const MappedFile> mapping);

}  // namespace blasscope::core
