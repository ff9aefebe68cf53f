#include "record/shared_buffer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <stdexcept>

namespace blasscope::record {

SharedBuffer::SharedBuffer(bool check_values) {
  struct stat st;
  const std::string dir = ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  std::string pattern = dir + "/blasscope-record-XXXXXX";
  const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot create the recording buffer in " + dir + ": " + std::strerror(errno));
  m_path = pattern;
  // Allocated now: a full /dev/shm fails here, not as SIGBUS inside the program.
  if (const int error = ::posix_fallocate(fd, 0, static_cast<off_t>(kSharedBytes)); error != 0) {
    ::close(fd);
    ::unlink(m_path.c_str());
    throw std::runtime_error("cannot size the recording buffer " + m_path + ": " + std::strerror(error));
  }
  void* map = ::mmap(nullptr, kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    ::unlink(m_path.c_str());
    throw std::runtime_error(std::string("cannot map the recording buffer: ") + std::strerror(errno));
  }
  // The file is zero-filled, which is every atomic's initial value; the header goes last.
  m_header = static_cast<SharedHeader*>(map);
  m_header->ring_capacity = kRingCapacity;
  m_header->active_slots = kActiveSlots;
  m_header->check_values.store(check_values ? 1 : 0);
  m_header->version = kLayoutVersion;
  std::atomic_thread_fence(std::memory_order_release);
  m_header->magic = kMagic;
}

SharedBuffer::~SharedBuffer() {
  if (m_header) ::munmap(m_header, kSharedBytes);
  if (!m_path.empty()) ::unlink(m_path.c_str());
}

void SharedBuffer::drain(std::vector<CallRecord>& out, bool final) {
  SharedHeader& s = *m_header;
  std::uint64_t r = s.read_index.load(std::memory_order_relaxed);
  const std::uint64_t w = s.write_index.load(std::memory_order_acquire);
  while (r < w) {
    RingEntry& entry = s.ring[r % s.ring_capacity];
    if (entry.ready.load(std::memory_order_acquire) != r + 1) {
      // Still being written: next time. An entry unfinished for a second had a writer that
      // died between reserving and publishing it; it must not stall the ring.
      const auto now = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
              .count());
      if (!final) {
        if (m_stuck_since_ns == 0) m_stuck_since_ns = now;
        if (now - m_stuck_since_ns < 1000000000ull) break;
      }
      m_stuck_since_ns = 0;
      ++m_lost;
    } else {
      m_stuck_since_ns = 0;
      out.push_back(entry.call);
    }
    ++r;
    s.read_index.store(r, std::memory_order_release);
  }
}

void SharedBuffer::reclaim_slots_of_dead_processes() {
  for (std::uint32_t i = 0; i < kActiveSlots; ++i) {
    ActiveSlot& slot = m_header->active[i];
    const std::uint32_t pid = slot.owner_pid.load();
    if (slot.owner_tid.load() == 0 || pid == 0 || slot.call.id != 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      slot.owner_pid.store(0);
      slot.owner_tid.store(0, std::memory_order_release);
    }
  }
}

std::vector<CallRecord> SharedBuffer::running() const {
  std::vector<CallRecord> out;
  for (std::uint32_t i = 0; i < kActiveSlots; ++i) {
    const ActiveSlot& slot = m_header->active[i];
    if (slot.owner_tid.load() == 0) continue;
    // A consistent copy: the version is even and unchanged around it.
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::uint64_t before = slot.version.load(std::memory_order_acquire);
      if (before & 1) continue;
      CallRecord call = slot.call;
      std::atomic_thread_fence(std::memory_order_acquire);
      if (slot.version.load(std::memory_order_relaxed) != before) continue;
      if (call.id != 0) out.push_back(call);
      break;
    }
  }
  return out;
}

}  // namespace blasscope::record
