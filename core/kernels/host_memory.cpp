#include "kernels/host_memory.h"

#include <fstream>
#include <string>

namespace blasscope::core {
namespace {

std::uint64_t meminfo_field(const std::string& field) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == field + ":") return kib * 1024;
  }
  return 0;
}

}  // namespace

std::uint64_t host_memory_available() {
  return meminfo_field("MemAvailable");
}
std::uint64_t host_memory_total() {
  return meminfo_field("MemTotal");
}

}  // namespace blasscope::core
