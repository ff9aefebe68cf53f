#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/dtype.h"

namespace blasscope::core {

// The distribution of a tensor's finite values, and where its NaN/Inf values are.
struct ValueHistogram {
  double low = 0, high = 0;                                     // range of the finite values
  std::vector<std::uint64_t> counts;                            // equal-width bins over [low, high]
  std::uint64_t sampled = 0;                                    // values looked at (large tensors are sampled evenly)
  std::uint64_t nonfinite = 0;                                  // among the sampled
  std::vector<std::vector<std::uint64_t>> nonfinite_positions;  // NumPy indices, the first few
};

// `data` holds `count` values of `dtype` in storage order (`order`, `shape`), little-endian.
// At most `max_samples` values are read; complex values count by magnitude.
ValueHistogram value_histogram(DType dtype, const std::byte* data, std::uint64_t count,
                               const std::vector<std::uint64_t>& shape, MemoryOrder order, std::size_t bins = 40,
                               std::uint64_t max_samples = 1 << 22, std::size_t max_positions = 20);

}  // namespace blasscope::core
