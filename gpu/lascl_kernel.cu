// BLAScope's DLASCL on the GPU. Each block scales a tile of kTile elements made of whole
// column segments (contiguous in column-major), so loads and stores coalesce; every thread
// issues all of its loads before its first store, which keeps enough bytes in flight to run
// at memory speed. Every element goes through the same multipliers, in the same order, as
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

constexpr int kThreads = 256;
constexpr int kPerThread = 16;
constexpr int kTile = kThreads * kPerThread;

struct Tiling {
  int rows, cols;  // rows x cols elements per block; rows * cols <= kTile
  float inverse_rows;
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
    blasscope_lascl_kernel(char type, std::int64_t m, std::int64_t n, T* a, std::int64_t lda, Tiling tiling,
                           Multipliers<T> muls) {
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * tiling.rows;
  for (std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * tiling.cols; col0 < n;
       col0 += static_cast<std::int64_t>(gridDim.y) * tiling.cols) {
    T values[kPerThread];
    T* where[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      int li = 0, lj = 0;
      core::lascl_tile_position(static_cast<int>(threadIdx.x) + k * kThreads, tiling.rows, tiling.inverse_rows, li,
                                lj);
      const std::int64_t i = row0 + li, j = col0 + lj;
      where[k] = nullptr;
      if (lj < tiling.cols && i < m && j < n) {
        std::int64_t first = 0, last = 0;
        core::lascl_row_range(type, m, j, first, last);
        if (i >= first && i < last) where[k] = a + j * lda + i;
      }
      if (where[k]) values[k] = *where[k];
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      if (where[k]) *where[k] = core::lascl_scale_element(values[k], muls.values, muls.count);
    }
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
  Tiling tiling{};
  tiling.rows = static_cast<int>(std::min<std::int64_t>(m, kTile));
  tiling.cols = kTile / tiling.rows;
  tiling.inverse_rows = 1.0f / static_cast<float>(tiling.rows);
  const std::int64_t row_blocks = (m + tiling.rows - 1) / tiling.rows;
  const std::int64_t col_blocks = (n + tiling.cols - 1) / tiling.cols;
  if (row_blocks > 0x7fffffff) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(row_blocks), static_cast<unsigned>(std::min<std::int64_t>(col_blocks, 65535)));
  blasscope_lascl_kernel<T><<<grid, kThreads, 0, stream>>>(type, m, n, a, lda, tiling, muls);
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
