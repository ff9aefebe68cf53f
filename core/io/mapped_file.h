#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace blasscope::core {

// A read-only memory mapping of a whole file: large tensors are read in place, never copied.
class MappedFile {
 public:
  // Throws InputError(Unreadable) naming the path and the system error.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {m_data, m_size}; }
  std::uint64_t size() const { return m_size; }
  const std::string& path() const { return m_path; }
  // Hints the kernel that [offset, offset+length) will be read front to back.
  void advise_sequential(std::uint64_t offset, std::uint64_t length) const;

 private:
  std::string m_path;
  const std::byte* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace blasscope::core
