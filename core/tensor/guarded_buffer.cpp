#include "tensor/guarded_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>
#include <utility>

namespace blasscope::core {
namespace {

constexpr std::size_t kAlignment = 64;

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes, std::size_t misalign) : m_size(bytes) {
  const std::size_t page = page_size();
  // Leave room for the alignment slack before the data, then one guard page.
  const std::size_t data_pages = (bytes + kAlignment + misalign + page - 1) / page;
  if (data_pages > (SIZE_MAX / page) - 1) throw std::bad_alloc();
  m_mapped_size = (data_pages + 1) * page;
  void* mapping = ::mmap(nullptr, m_mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  m_mapping = mapping;
  auto* base = static_cast<std::byte*>(mapping);
  std::byte* guard = base + data_pages * page;
  ::mprotect(guard, page, PROT_NONE);
  // Start as late as alignment allows, so the data ends within 64 bytes of the guard.
  const auto end = reinterpret_cast<std::uintptr_t>(guard);
  std::uintptr_t start = (end - bytes) / kAlignment * kAlignment + misalign % kAlignment;
  if (start + bytes > end) start -= kAlignment;
  m_data = reinterpret_cast<std::byte*>(start);
}

GuardedBuffer::~GuardedBuffer() {
  release();
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& other) noexcept
    : m_mapping(std::exchange(other.m_mapping, nullptr)),
      m_mapped_size(std::exchange(other.m_mapped_size, 0)),
      m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    m_mapping = std::exchange(other.m_mapping, nullptr);
    m_mapped_size = std::exchange(other.m_mapped_size, 0);
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

void GuardedBuffer::release() {
  if (m_mapping != nullptr) ::munmap(m_mapping, m_mapped_size);
  m_mapping = nullptr;
}

}  // namespace blasscope::core
