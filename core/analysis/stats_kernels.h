#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/tensor_stats.h"
#include "tensor/dtype.h"

namespace blasscope::core {

// Scans `count` elements of `dtype` stored little-endian at `data` (any alignment) in one
// pass. `first_index` is the flat index of the first element, for first_nonfinite.
// The dtype must be scannable (is_scannable).
TensorStats scan_values(DType dtype, const std::byte* data, std::uint64_t count, std::uint64_t first_index);

// Adds the counts of `part` to `into` and widens its min/max.
void merge_stats(TensorStats& into, const TensorStats& part);

// The plain loop every optimized path is tested against: classifies one value at a time.
TensorStats scan_values_reference(DType dtype, const std::byte* data, std::uint64_t count, std::uint64_t first_index);

}  // namespace blasscope::core
