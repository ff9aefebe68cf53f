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
constexpr std::int64_t kMaxGridY = 65535;  // more column tiles than this loop in the kernel

template <typename T>
__global__ void __launch_bounds__(kThreads)
    blasscope_lascl_kernel(char type, std::int64_t m, std::int64_t n, T* a, std::int64_t lda, core::LasclTiling tiling,
                           Multipliers<T> muls) {
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * tiling.rows;
  for (std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * tiling.cols; col0 < n;
       col0 += static_cast<std::int64_t>(gridDim.y) * tiling.cols) {
    // All loads first, then all stores; positions are recomputed rather than kept, which
    // saves the registers that let more blocks share an SM.
    T values[kPerThread];
    unsigned scaled = 0;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      std::int64_t offset = 0;
      if (core::lascl_tile_element(type, m, n, lda, tiling, row0, col0, static_cast<int>(threadIdx.x) + k * kThreads,
                                   offset)) {
        values[k] = a[offset];
        scaled |= 1u << k;
      }
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      std::int64_t offset = 0;
      if ((scaled & (1u << k)) && core::lascl_tile_element(type, m, n, lda, tiling, row0, col0,
                                                           static_cast<int>(threadIdx.x) + k * kThreads, offset)) {
        a[offset] = core::lascl_scale_element_bounded(values[k], muls.values, muls.count);
      }
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
  const core::LasclTiling tiling = core::lascl_tiling(m, n, kTile);
  if (tiling.row_blocks > 0x7fffffff) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(tiling.row_blocks),
                  static_cast<unsigned>(std::min<std::int64_t>(tiling.col_blocks, kMaxGridY)));
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
