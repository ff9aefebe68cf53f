#pragma once

#include <cstdint>

namespace blasscope::core {

// MemAvailable and MemTotal from /proc/meminfo, in bytes (0 when unknown).
std::uint64_t host_memory_available();
std::uint64_t host_memory_total();

}  // namespace blasscope::core
