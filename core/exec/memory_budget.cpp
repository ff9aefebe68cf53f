#include "exec/memory_budget.h"

#include <fstream>
#include <string>

namespace blasscope::core {
MemoryBudget::MemoryBudget(std::optional<std::uint64_t> limit) : m_limit(limit ? *limit : host_memory_available()) {}

bool MemoryBudget::try_reserve(std::uint64_t bytes) {
  if (bytes > available()) return false;
  m_used += bytes;
  if (m_used > m_peak) m_peak = m_used;
  return true;
}

void MemoryBudget::release(std::uint64_t bytes) {
  m_used = bytes > m_used ? 0 : m_used - bytes;
}

}  // namespace blasscope::core
