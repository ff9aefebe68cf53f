#include "analysis/tensor_layout.h"

#include <algorithm>

namespace blasscope::core {

std::uint64_t alignment_of(std::uint64_t address) {
  if (address == 0) return kMaxReportedAlignment;
  return std::min(address & (~address + 1), kMaxReportedAlignment);
}

std::vector<std::uint64_t> unravel_storage_index(std::uint64_t flat, const std::vector<std::uint64_t>& shape,
                                                 MemoryOrder order) {
  std::vector<std::uint64_t> index(shape.size());
  const bool fortran = order == MemoryOrder::Fortran;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::size_t axis = fortran ? d : shape.size() - 1 - d;
    const std::uint64_t dim = shape[axis] == 0 ? 1 : shape[axis];
    index[axis] = flat % dim;
    flat /= dim;
  }
  return index;
}

TensorLayout describe_layout(const TensorFile& file, const TensorInfo& tensor) {
  TensorLayout layout;
  layout.order = tensor.order;
  layout.file_alignment = alignment_of(tensor.data_offset);
  const MappedFile* mapping = tensor.storage.mapping ? tensor.storage.mapping.get() : file.mapping.get();
  if (tensor.storage.kind == TensorStorage::Kind::Mapped && mapping && mapping->size() > 0) {
    const auto base = reinterpret_cast<std::uintptr_t>(mapping->bytes().data());
    layout.memory_alignment = alignment_of(base + tensor.data_offset);
  }
  return layout;
}

}  // namespace blasscope::core
