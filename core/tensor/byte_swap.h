#pragma once

#include <algorithm>
#include <cstddef>

namespace blasscope::core {

// Copies `bytes` from src to dst reversing the byte order of every `width`-byte word
// (big-endian file data to the host's little-endian order). src and dst may be equal.
inline void copy_swapped(const std::byte* src, std::byte* dst, std::size_t bytes, std::size_t width) {
  for (std::size_t i = 0; i + width <= bytes; i += width) {
    if (src == dst) {
      std::reverse(dst + i, dst + i + width);
    } else {
      std::reverse_copy(src + i, src + i + width, dst + i);
    }
  }
}

}  // namespace blasscope::core
