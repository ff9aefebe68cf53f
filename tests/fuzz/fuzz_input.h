#pragma once

// Shared by the fuzz harnesses: the bytes libFuzzer made, as a file the readers can map, and
// the rule every harness checks: a reader either reads the input or refuses it with an
// InputError. Any other exception escapes to libFuzzer (or the replay driver) as a finding.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace blasscope::fuzz {

// An anonymous in-memory file holding the input, named by its /proc path.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : m_fd(::memfd_create("blasscope-fuzz", 0)) {
    if (m_fd < 0) throw std::runtime_error("memfd_create failed");
    for (std::size_t written = 0; written < size;) {
      const ssize_t n = ::write(m_fd, data + written, size - written);
      if (n <= 0) throw std::runtime_error("writing the fuzz input failed");
      written += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { ::close(m_fd); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(m_fd); }

 private:
  int m_fd;
};

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace blasscope::fuzz
