#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace blasscope::core {

// Device memory an op needs, item by item, predicted before anything is allocated.
struct DeviceMemoryNeed {
  std::vector<std::pair<std::string, std::uint64_t>> items;
  std::uint64_t total() const;
  // Whether it fits in `free` bytes, keeping `headroom` of them for the CUDA context and
  // the allocator's rounding.
  bool fits(std::uint64_t free, double headroom = 0.05) const;
  std::string describe() const;  // "A 64.0 MiB + B 64.0 MiB + ... = 224.0 MiB"
};

// cuBLAS's default workspace: 32 MiB on Hopper and later, 4 MiB before.
std::uint64_t cublas_workspace_bytes(int compute_major);

// What cudaMalloc takes for a buffer of `bytes`: whole 2 MiB pages (its granularity on
// Ampere and Hopper, as cudaMemGetInfo shows).
std::uint64_t device_allocation_bytes(std::uint64_t bytes);

DeviceMemoryNeed lascl_device_memory(std::uint64_t matrix_bytes);

// A GEMM's buffers, and cuBLAS's workspace when the handle is still to be made (0 once the
// backend has set cuBLAS up: then the op takes its buffers alone).
DeviceMemoryNeed gemm_device_memory(std::uint64_t a_bytes, std::uint64_t b_bytes, std::uint64_t c_bytes,
                                    std::uint64_t workspace_bytes = 0);

}  // namespace blasscope::core
