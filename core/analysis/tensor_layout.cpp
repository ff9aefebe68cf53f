#include "analysis/tensor_layout.h"

#include <algorithm>

namespace blasscope::core {

std::uint64_t alignment_of(std::uint64_t address) {
  if (address == 0) return kMaxReportedAlignment;
  return std::min(address & (~address + 1), kMaxReportedAlignment);
}

TensorLayout describe_layout(const TensorFile& file, const TensorInfo& tensor) {
  TensorLayout layout;
  layout.order = tensor.order;
  layout.file_alignment = alignment_of(tensor.data_offset);
  if (tensor.storage.kind == TensorStorage::Kind::Mapped && file.mapping && file.mapping->size() > 0) {
    const auto base = reinterpret_cast<std::uintptr_t>(file.mapping->bytes().data());
    layout.memory_alignment = alignment_of(base + tensor.data_offset);
  }
  return layout;
}

}  // namespace blasscope::core
