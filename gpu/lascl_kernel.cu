// BLAScope's DLASCL on the GPU. Each block scales a tile (core::lascl_launch_plan: 256 threads
// times 16 or 8 elements) made of whole column segments (contiguous in column-major), so loads
// and stores coalesce; every thread
// issues all of its loads before its first store, which keeps enough bytes in flight to run
// at memory speed. Positions come from additions, not divisions: the first version spent
// more instructions per element than the memory needed time (40-68 % of copy bandwidth on
// an H100). Every element goes through the same multipliers, in the same order, as
// LAPACK and the CPU kernel (kernels/lascl_element.h is shared with them).
#include <algorithm>

#include "kernels/lascl_element.h"
#include "lascl_kernel.h"

namespace blasscope::gpu {
namespace {

template <typename T>
struct Multipliers {
  T values[kMaxLasclMultipliers];
  int count;
};

constexpr int kThreads = core::kLasclThreads;
// Blocks an SM at least, which caps registers a thread: a tile of one column segment needs few
// (4 blocks: 256 threads x 16 elements in flight), the general tile walk 80 (3 blocks).
constexpr int min_blocks_per_sm(bool segment) {
  return segment ? 4 : 3;
}
constexpr std::int64_t kMaxGridY = 65535;  // more column tiles than this loop in the kernel

// The matrix type is a template argument: for G the row range drops out entirely. Whether
// tiles are single column segments holds for the whole launch (core::lascl_launch_plan), and
// sets the elements a thread scales: template arguments too.
template <typename T, char kType, bool kSegment, int kPerThread>
__global__ void __launch_bounds__(kThreads, min_blocks_per_sm(kSegment))
    blasscope_lascl_kernel(std::int64_t m, std::int64_t n, T* a, std::int64_t lda, core::LasclTiling tiling,
                           Multipliers<T> muls) {
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * tiling.rows;
  const core::LasclTileCursor start = core::lascl_tile_cursor(tiling, static_cast<int>(threadIdx.x), kThreads);
  for (std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * tiling.cols; col0 < n;
       col0 += static_cast<std::int64_t>(gridDim.y) * tiling.cols) {
    // All loads first, then all stores; the second pass finds the positions again rather
    // than keeping them, which saves the registers that let more blocks share an SM.
    T values[kPerThread];
    if constexpr (kSegment) {  // one column segment: a row range, the same for the whole block
      std::int64_t first = 0, last = 0;
      core::lascl_row_range(kType, m, col0, first, last);  // i stays in the segment
      T* column = a + col0 * lda;
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const std::int64_t i = row0 + threadIdx.x + k * kThreads;
        if (i >= first && i < last) values[k] = column[i];
      }
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const std::int64_t i = row0 + threadIdx.x + k * kThreads;
        if (i >= first && i < last) column[i] = core::lascl_scale_element_bounded(values[k], muls.values, muls.count);
      }
    } else {
      unsigned scaled = 0;
      core::LasclTileCursor c = start;
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        std::int64_t offset = 0;
        if (core::lascl_cursor_element(kType, m, n, lda, tiling, row0, col0, c, offset)) {
          values[k] = a[offset];
          scaled |= 1u << k;
        }
        core::lascl_tile_advance(c, tiling.rows);
      }
      c = start;
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        std::int64_t offset = 0;
        if ((scaled & (1u << k)) && core::lascl_cursor_element(kType, m, n, lda, tiling, row0, col0, c, offset)) {
          a[offset] = core::lascl_scale_element_bounded(values[k], muls.values, muls.count);
        }
        core::lascl_tile_advance(c, tiling.rows);
      }
    }
  }
}

template <typename T, char kType>
void launch_typed(const dim3& grid, cudaStream_t stream, T* a, const core::LasclLaunchPlan& p,
                  const Multipliers<T>& muls) {
  if (p.per_thread == core::kLasclSegmentPerThread) {
    blasscope_lascl_kernel<T, kType, true, core::kLasclSegmentPerThread>
        <<<grid, kThreads, 0, stream>>>(p.m, p.n, a, p.lda, p.tiling, muls);
  } else if (p.segment) {
    blasscope_lascl_kernel<T, kType, true, core::kLasclPerThread>
        <<<grid, kThreads, 0, stream>>>(p.m, p.n, a, p.lda, p.tiling, muls);
  } else {
    blasscope_lascl_kernel<T, kType, false, core::kLasclPerThread>
        <<<grid, kThreads, 0, stream>>>(p.m, p.n, a, p.lda, p.tiling, muls);
  }
}

template <typename T>
cudaError_t launch(char type, std::int64_t m, std::int64_t n, T* a, std::int64_t lda, const std::vector<double>& values,
                   cudaStream_t stream) {
  if (values.size() > kMaxLasclMultipliers) return cudaErrorInvalidValue;
  if (m <= 0 || n <= 0) return cudaSuccess;
  Multipliers<T> muls{};
  muls.count = static_cast<int>(values.size());
  for (int i = 0; i < muls.count; ++i) muls.values[i] = static_cast<T>(values[i]);
  const core::LasclLaunchPlan plan = core::lascl_launch_plan(type, m, n, lda);
  if (plan.tiling.row_blocks > 0x7fffffff) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(plan.tiling.row_blocks),
                  static_cast<unsigned>(std::min<std::int64_t>(plan.tiling.col_blocks, kMaxGridY)));
  switch (type) {
    case 'L': launch_typed<T, 'L'>(grid, stream, a, plan, muls); break;
    case 'U': launch_typed<T, 'U'>(grid, stream, a, plan, muls); break;
    case 'H': launch_typed<T, 'H'>(grid, stream, a, plan, muls); break;
    default: launch_typed<T, 'G'>(grid, stream, a, plan, muls); break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_lascl(char type, std::int64_t m, std::int64_t n, double* a, std::int64_t lda,
                         const std::vector<double>& multipliers, cudaStream_t stream) {
  return launch(type, m, n, a, lda, multipliers, stream);
}

cudaError_t launch_lascl(char type, std::int64_t m, std::int64_t n, float* a, std::int64_t lda,
                         const std::vector<double>& multipliers, cudaStream_t stream) {
  return launch(type, m, n, a, lda, multipliers, stream);
}

}  // namespace blasscope::gpu
