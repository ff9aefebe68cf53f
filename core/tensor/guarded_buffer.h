#pragma once

#include <cstddef>
#include <cstdint>

namespace blasscope::core {

// Memory for one tensor, placed so that its last byte sits just before an inaccessible
// guard page: a kernel that reads past the end (a leading dimension that is too large)
// faults at once instead of silently reading a neighbour's data.
class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  // `misalign` is the data's byte offset from a 64-byte boundary. Throws std::bad_alloc.
  GuardedBuffer(std::size_t bytes, std::size_t misalign);
  ~GuardedBuffer();
  GuardedBuffer(GuardedBuffer&& other) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  std::byte* data() const { return m_data; }
  std::size_t size() const { return m_size; }
  // Bytes mapped for it, guard page included: what it costs the address space.
  std::size_t mapped_size() const { return m_mapped_size; }

 private:
  void release();

  void* m_mapping = nullptr;
  std::size_t m_mapped_size = 0;
  std::byte* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace blasscope::core
