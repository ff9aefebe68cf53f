#pragma once

#include <cstdint>
#include <optional>

#include "kernels/host_memory.h"

namespace blasscope::core {

// Host memory a run may use for tensors and workspaces. Every allocation is checked here
// before it is made, so a request that does not fit becomes an out-of-memory event with
// the numbers, not a kill by the operating system.
class MemoryBudget {
 public:
  // No limit given: the host's available memory at start is the budget.
  explicit MemoryBudget(std::optional<std::uint64_t> limit);

  bool try_reserve(std::uint64_t bytes);
  void release(std::uint64_t bytes);
  std::uint64_t limit() const { return m_limit; }
  std::uint64_t used() const { return m_used; }
  std::uint64_t peak() const { return m_peak; }
  std::uint64_t available() const { return m_limit - m_used; }

 private:
  std::uint64_t m_limit;
  std::uint64_t m_used = 0;
  std::uint64_t m_peak = 0;
};

}  // namespace blasscope::core
