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

DeviceMemoryNeed gemm_device_memory(std::uint64_t a_bytes, std::uint64_t b_bytes, std::uint64_t c_bytes,
                                    int compute_major);

}  // namespace blasscope::core
