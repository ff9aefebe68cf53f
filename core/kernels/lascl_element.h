#pragma once

#include <cstdint>

// The per-element logic of ?LASCL, shared by the CPU kernel and the CUDA kernel (compiled
// by nvcc as host and device code; no CUDA header is needed here).
#if defined(__CUDACC__)
#define BLASSCOPE_HOST_DEVICE __host__ __device__
#define BLASSCOPE_UNROLL _Pragma("unroll")
#else
#define BLASSCOPE_HOST_DEVICE
#define BLASSCOPE_UNROLL
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

// The CUDA kernel's block: threads, and elements each thread scales (so a tile holds their
// product). Here so that the host tests simulate the kernel as it is built. A thread takes 16
// elements where a tile of that many is one column segment (few registers: more bytes in flight,
// which float32 and an H200 need), else 8 (one segment still, or the general tile walk).
inline constexpr int kLasclThreads = 256;
inline constexpr int kLasclSegmentPerThread = 16;
inline constexpr int kLasclPerThread = 8;

// How the CUDA kernel splits an m x n matrix into tiles of `tile` elements: whole column
// segments of `rows` rows (all of a column when m <= tile), `cols` columns per tile.
struct LasclTiling {
  int rows = 1, cols = 1;
  float inverse_rows = 1;
  std::int64_t row_blocks = 0, col_blocks = 0;
};

BLASSCOPE_HOST_DEVICE inline LasclTiling lascl_tiling(std::int64_t m, std::int64_t n, int tile) {
  LasclTiling t;
  t.rows = static_cast<int>(m < tile ? m : tile);
  if (t.rows < 1) t.rows = 1;
  t.cols = tile / t.rows;
  t.inverse_rows = 1.0f / static_cast<float>(t.rows);
  t.row_blocks = (m + t.rows - 1) / t.rows;
  t.col_blocks = (n + t.cols - 1) / t.cols;
  return t;
}

// One thread's walk through its elements of a tile, e = first, first + step, ...: the row
// and column lascl_tile_position gives each, kept up to date by additions. The CUDA kernel
// would otherwise spend more instructions per element on indexing than memory allows.
struct LasclTileCursor {
  int li = 0, lj = 0;            // the current element's row and column in the tile
  int step_li = 0, step_lj = 0;  // one step, as rows and columns
};

BLASSCOPE_HOST_DEVICE inline LasclTileCursor lascl_tile_cursor(const LasclTiling& t, int first, int step) {
  LasclTileCursor c;
  lascl_tile_position(first, t.rows, t.inverse_rows, c.li, c.lj);
  lascl_tile_position(step, t.rows, t.inverse_rows, c.step_li, c.step_lj);
  return c;
}

BLASSCOPE_HOST_DEVICE inline void lascl_tile_advance(LasclTileCursor& c, int tile_rows) {
  c.li += c.step_li;
  c.lj += c.step_lj;
  if (c.li >= tile_rows) {  // both parts were below tile_rows: one carry at most
    c.li -= tile_rows;
    ++c.lj;
  }
}

// How the CUDA kernel runs on an m x n matrix: the matrix as the kernel sees it (a whole G
// matrix without padding between its columns is one long column, so short columns still make
// tiles of one segment), its tiling, the elements a thread scales, and whether tiles are single
// column segments (the kernel's simple path).
struct LasclLaunchPlan {
  std::int64_t m = 0, n = 0, lda = 0;
  LasclTiling tiling;
  int per_thread = kLasclPerThread;
  bool segment = false;
};

inline LasclLaunchPlan lascl_launch_plan(char type, std::int64_t m, std::int64_t n, std::int64_t lda,
                                         int threads = kLasclThreads) {
  LasclLaunchPlan p{m, n, lda, {}, kLasclSegmentPerThread, true};
  if (type == 'G' && (lda == m || n == 1)) p = {m * n, 1, m * n, {}, kLasclSegmentPerThread, true};
  p.tiling = lascl_tiling(p.m, p.n, threads * kLasclSegmentPerThread);
  if (p.tiling.cols == 1) return p;
  p.per_thread = kLasclPerThread;
  p.tiling = lascl_tiling(p.m, p.n, threads * kLasclPerThread);
  p.segment = p.tiling.cols == 1;
  return p;
}

// The cursor's element of the tile that starts at (row0, col0): its offset in the
// column-major matrix, and whether ?LASCL of this type scales it.
BLASSCOPE_HOST_DEVICE inline bool lascl_cursor_element(char type, std::int64_t m, std::int64_t n, std::int64_t lda,
                                                       const LasclTiling& t, std::int64_t row0, std::int64_t col0,
                                                       const LasclTileCursor& c, std::int64_t& offset) {
  const std::int64_t i = row0 + c.li, j = col0 + c.lj;
  if (c.lj >= t.cols || i >= m || j >= n) return false;
  std::int64_t first = 0, last = 0;
  lascl_row_range(type, m, j, first, last);
  offset = j * lda + i;
  return i >= first && i < last;
}

// One element through every multiplier, in LAPACK's order.
template <typename T>
BLASSCOPE_HOST_DEVICE inline T lascl_scale_element(T value, const T* multipliers, int count) {
  for (int i = 0; i < count; ++i) value *= multipliers[i];
  return value;
}

// The same steps, for multipliers in an array of compile-time bound (count of them used): the
// loop unrolls, so the GPU keeps them in registers instead of re-reading local memory for
// every element.
template <typename T, int kMax>
BLASSCOPE_HOST_DEVICE inline T lascl_scale_element_bounded(T value, const T (&multipliers)[kMax], int count) {
  BLASSCOPE_UNROLL
  for (int i = 0; i < kMax; ++i) {
    if (i < count) value *= multipliers[i];
  }
  return value;
}

}  // namespace blasscope::core
