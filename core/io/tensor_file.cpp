#include "io/tensor_file.h"

namespace blasscope::core {

std::uint64_t TensorInfo::element_count() const {
  std::uint64_t count = 1;
  for (auto dim : shape) count *= dim;  // readers have checked this product for overflow
  return count;
}

std::string_view name(FileFormat format) {
  switch (format) {
    case FileFormat::Npy: return "npy";
    case FileFormat::Npz: return "npz";
    case FileFormat::Safetensors: break;
  }
  return "safetensors";
}

}  // namespace blasscope::core
