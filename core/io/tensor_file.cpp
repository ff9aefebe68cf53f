#include "io/tensor_file.h"

namespace blasscope::core {

std::uint64_t TensorInfo::element_count() const {
  std::uint64_t count = 1;
  for (auto dim : shape) count *= dim;  // readers have checked this product for overflow
  return count;
}

bool TensorInfo::values_readable() const {
  return !unread && is_scannable(dtype);
}

std::string TensorInfo::dtype_name() const {
  return unread ? unread->name : std::string(core::name(dtype));
}

std::string_view name(FileFormat format) {
  switch (format) {
    case FileFormat::Npy: return "npy";
    case FileFormat::Npz: return "npz";
    case FileFormat::Safetensors: return "safetensors";
    case FileFormat::PyTorch: return "pytorch";
    case FileFormat::Hdf5: return "hdf5";
    case FileFormat::Keras: return "keras";
    case FileFormat::Sharded: break;
  }
  return "sharded";
}

const MappedFile& mapping_of(const TensorFile& file, const TensorInfo& tensor) {
  return tensor.storage.mapping ? *tensor.storage.mapping : *file.mapping;
}

}  // namespace blasscope::core
