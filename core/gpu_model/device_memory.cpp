#include "gpu_model/device_memory.h"

#include "report/inspect_text.h"

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

DeviceMemoryNeed gemm_device_memory(std::uint64_t a_bytes, std::uint64_t b_bytes, std::uint64_t c_bytes,
                                    int compute_major) {
  return {
      {{"A", a_bytes}, {"B", b_bytes}, {"C", c_bytes}, {"cuBLAS workspace", cublas_workspace_bytes(compute_major)}}};
}

}  // namespace blasscope::core
