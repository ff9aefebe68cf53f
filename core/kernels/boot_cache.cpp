#include "kernels/boot_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace blasscope::core {

std::string boot_id() {
  std::string id;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> id;
  return id;
}

std::string boot_cache_path(const std::string& name) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string dir = xdg && *xdg == '/' ? xdg : home && *home == '/' ? std::string(home) + "/.cache" : "";
  return dir.empty() ? "" : dir + "/blasscope/" + name;
}

std::optional<std::string> read_boot_fact(const std::string& path, const std::string& boot) {
  if (boot.empty() || path.empty()) return std::nullopt;
  std::ifstream in(path);
  std::string written_for, value;
  if (in >> written_for >> value && written_for == boot) return value;
  return std::nullopt;
}

bool write_boot_fact(const std::string& path, const std::string& boot, const std::string& value) {
  if (boot.empty() || path.empty()) return false;
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return false;
  const std::string line = boot + ' ' + value + '\n';
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  bool renamed = false;
  if (::close(fd) == 0 && written) {
    std::filesystem::rename(temporary, path, ignored);
    renamed = !ignored;
  }
  std::filesystem::remove(temporary, ignored);
  return renamed;
}

}  // namespace blasscope::core
