#pragma once

#include <cstdint>
#include <memory>

#include "io/tensor_file.h"

namespace blasscope::core {

// The reference implementation's limit on the JSON header.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// Reads a safetensors file with the reference implementation's validation rules: header
// size limit, UTF-8 JSON object, no duplicate keys, offsets contiguous from 0 without gaps
// or overlaps covering the whole buffer, and size = product(shape) x dtype size.
TensorFile read_safetensors(std::shared_ptr<const MappedFile> mapping);

}  // namespace blasscope::core
