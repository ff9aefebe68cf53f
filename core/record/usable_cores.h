#pragma once

#include <sched.h>

#include <algorithm>
#include <thread>

namespace blasscope::record {

// The cores this process may run on (fewer than the machine's under taskset or a cpuset).
inline unsigned usable_cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(CPU_COUNT(&set), 1));
  return std::max(std::thread::hardware_concurrency(), 1u);
}

}  // namespace blasscope::record
