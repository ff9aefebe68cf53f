#include "gpu_model/device_memory.h"

#include <algorithm>

#include "text/format.h"

namespace blasscope::core {

std::uint64_t DeviceMemoryNeed::total() const {
  std::uint64_t sum = 0;
  for (const auto& [name, bytes] : items) sum += bytes;
  return sum;
}

bool DeviceMemoryNeed::fits(std::uint64_t free, double headroom) const {
  return static_cast<double>(total()) <= static_cast<double>(free) * (1.0 - headroom);
}

std::string DeviceMemoryNeed::describe() const {
  std::string text;
  for (const auto& [name, bytes] : items) text += (text.empty() ? "" : " + ") + name + " " + format_bytes(bytes);
  return text + " = " + format_bytes(total());
}

std::uint64_t cublas_workspace_bytes(int compute_major) {
  return compute_major >= 9 ? 32ull << 20 : 4ull << 20;
}

std::uint64_t device_allocation_bytes(std::uint64_t bytes) {
  constexpr std::uint64_t kPage = 2ull << 20;
  return (std::max<std::uint64_t>(bytes, 1) + kPage - 1) / kPage * kPage;
}

DeviceMemoryNeed lascl_device_memory(std::uint64_t matrix_bytes) {
  return {{{"A", device_allocation_bytes(matrix_bytes)}}};
}

DeviceMemoryNeed gemm_device_memory(std::uint64_t a_bytes, std::uint64_t b_bytes, std::uint64_t c_bytes,
                                    std::uint64_t workspace_bytes) {
  DeviceMemoryNeed need{{{"A", device_allocation_bytes(a_bytes)},
                         {"B", device_allocation_bytes(b_bytes)},
                         {"C", device_allocation_bytes(c_bytes)}}};
  if (workspace_bytes > 0) need.items.emplace_back("cuBLAS workspace", workspace_bytes);
  return need;
}

}  // namespace blasscope::core
