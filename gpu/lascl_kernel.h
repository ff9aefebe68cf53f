#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace blasscope::gpu {

// The largest number of ?LASCL multipliers (LAPACK needs at most 3 for any finite ratio).
inline constexpr int kMaxLasclMultipliers = 8;

// Scales the column-major m x n matrix at `a` (device memory, leading dimension lda) as
// LAPACK's ?LASCL of `type` does, applying `multipliers` to each element in order.
cudaError_t launch_lascl(char type, std::int64_t m, std::int64_t n, double* a, std::int64_t lda,
                         const std::vector<double>& multipliers, cudaStream_t stream);
cudaError_t launch_lascl(char type, std::int64_t m, std::int64_t n, float* a, std::int64_t lda,
                         const std::vector<double>& multipliers, cudaStream_t stream);

}  // namespace blasscope::gpu
