#pragma once

// Memory on transparent huge pages: one page fault per 2 MiB where 4 KiB pages take 512. The
// recorder copies every call it drains; on a virtual machine that shadows page tables each
// fault costs microseconds, which made faults the recorder's largest cost.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace blasscope::record {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// `bytes` (rounded up to huge pages) on a huge-page boundary, asked for as huge pages (where
// the kernel refuses, ordinary ones). Throws std::bad_alloc.
inline void* map_huge(std::size_t bytes) {
  const std::size_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* map = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) throw std::bad_alloc();
  auto* const start = static_cast<std::byte*>(map);
  const std::size_t lead = (kHugePage - reinterpret_cast<std::uintptr_t>(start) % kHugePage) % kHugePage;
  if (lead) ::munmap(start, lead);
  ::munmap(start + lead + size, kHugePage - lead);
  ::madvise(start + lead, size, MADV_HUGEPAGE);
  return start + lead;
}

inline void unmap_huge(void* memory, std::size_t bytes) {
  if (memory) ::munmap(memory, (bytes + kHugePage - 1) / kHugePage * kHugePage);
}

// For std::vector: large arrays on huge pages, small ones from the heap. (A vector growing past
// 512 KiB takes a whole huge page at each step: a few, and short-lived.)
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  static constexpr std::size_t kSmall = kHugePage / 4;
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "small arrays come from operator new");
  T* allocate(std::size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    if (n * sizeof(T) < kSmall) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(map_huge(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kSmall) {
      ::operator delete(p);
    } else {
      unmap_huge(p, n * sizeof(T));
    }
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace blasscope::record
