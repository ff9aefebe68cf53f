#include "analysis/value_histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/tensor_layout.h"
#include "tensor/element_codec.h"

namespace blasscope::core {

ValueHistogram value_histogram(DType dtype, const std::byte* data, std::uint64_t count,
                               const std::vector<std::uint64_t>& shape, MemoryOrder order, std::size_t bins,
                               std::uint64_t max_samples, std::size_t max_positions) {
  ValueHistogram h;
  h.counts.assign(bins, 0);
  if (count == 0 || !is_scannable(dtype)) return h;
  const std::uint64_t step = std::max<std::uint64_t>(1, count / max_samples);
  const bool complex = kind(dtype) == DTypeKind::Complex;
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(std::min(count, max_samples) + 1));
  for (std::uint64_t i = 0; i < count; i += step) {
    const auto v = load_element(dtype, data + i * item_size(dtype));
    const double x = complex ? std::abs(v) : v.real();
    ++h.sampled;
    if (!std::isfinite(x)) {
      ++h.nonfinite;
      if (h.nonfinite_positions.size() < max_positions)
        h.nonfinite_positions.push_back(unravel_storage_index(i, shape, order));
      continue;
    }
    values.push_back(x);
  }
  if (values.empty()) return h;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  h.low = *lo;
  h.high = *hi;
  const double width = (h.high - h.low) / static_cast<double>(bins);
  for (double x : values) {
    const auto bin = width > 0 ? static_cast<std::size_t>((x - h.low) / width) : 0;
    ++h.counts[std::min(bin, bins - 1)];
  }
  return h;
}

}  // namespace blasscope::core
