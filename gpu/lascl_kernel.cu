// BLAScope's DLASCL on the GPU. Threads walk down columns (contiguous in column-major), so
// loads and stores coalesce; every element goes through the same multipliers, in the same
// order, as LAPACK and the CPU kernel (kernels/lascl_element.h is shared with them).
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

template <typename T>
__global__ void blasscope_lascl_kernel(char type, std::int64_t m, std::int64_t n, T* a, std::int64_t lda,
                                       Multipliers<T> muls) {
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    std::int64_t first = 0, last = 0;
    core::lascl_row_range(type, m, j, first, last);
    T* column = a + j * lda;
    for (std::int64_t i = first + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < last;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      column[i] = core::lascl_scale_element(column[i], muls.values, muls.count);
    }
  }
}

template <typename T>
cudaError_t launch(char type, std::int64_t m, std::int64_t n, T* a, std::int64_t lda, const std::vector<double>& values,
                   cudaStream_t stream) {
  if (values.size() > kMaxLasclMultipliers) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  Multipliers<T> muls{};
  muls.count = static_cast<int>(values.size());
  for (int i = 0; i < muls.count; ++i) muls.values[i] = static_cast<T>(values[i]);
  const unsigned blocks_down = static_cast<unsigned>(std::min<std::int64_t>((m + kThreads - 1) / kThreads, 1024));
  const unsigned columns = static_cast<unsigned>(std::min<std::int64_t>(n, 65535));
  blasscope_lascl_kernel<T><<<dim3(blocks_down, columns), kThreads, 0, stream>>>(type, m, n, a, lda, muls);
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
