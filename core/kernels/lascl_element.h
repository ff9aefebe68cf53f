#pragma once

#include <cstdint>

// The per-element logic of ?LASCL, shared by the CPU kernel and the CUDA kernel (compiled
// by nvcc as host and device code; no CUDA header is needed here).
#if defined(__CUDACC__)
#define BLASSCOPE_HOST_DEVICE __host__ __device__
#else
#define BLASSCOPE_HOST_DEVICE
#endif

namespace blasscope::core {

// Rows [first, last) of column j (0-based) that matrix type G, L, U or H scales.
BLASSCOPE_HOST_DEVICE inline void lascl_row_range(char type, std::int64_t m, std::int64_t j, std::int64_t& first,
                                                  std::int64_t& last) {
  first = 0;
  last = m;
  if (type == 'L') first = j < m ? j : m;
  if (type == 'U') last = j + 1 < m ? j + 1 : m;
  if (type == 'H') last = j + 2 < m ? j + 2 : m;
}

// The CUDA kernel gives each block a tile of whole column segments: `tile_rows` rows (at most
// the tile's size) of `tile size / tile_rows` columns. Element e of the tile is at row li and
// column lj of it; the quotient comes from a float reciprocal, corrected by one either way,
// so no integer division is needed on the GPU.
BLASSCOPE_HOST_DEVICE inline void lascl_tile_position(int e, int tile_rows, float inverse_rows, int& li, int& lj) {
  lj = static_cast<int>((static_cast<float>(e) + 0.5f) * inverse_rows);
  li = e - lj * tile_rows;
  if (li < 0) {
    --lj;
    li += tile_rows;
  } else if (li >= tile_rows) {
    ++lj;
    li -= tile_rows;
  }
}

// One element through every multiplier, in LAPACK's order.
template <typename T>
BLASSCOPE_HOST_DEVICE inline T lascl_scale_element(T value, const T* multipliers, int count) {
  for (int i = 0; i < count; ++i) value *= multipliers[i];
  return value;
}

}  // namespace blasscope::core
