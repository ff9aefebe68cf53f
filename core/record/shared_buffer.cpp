#include "record/shared_buffer.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "record/tsc_check.h"

namespace blasscope::record {
namespace {

// The TSC where the kernel keeps time with it, or where it is invariant and reads the same on
// every CPU (tsc_check.h), unless BLASSCOPE_RECORD_CLOCK says monotonic (or tsc).
CallClock choose_clock() {
#if defined(__x86_64__)
  const char* wanted = std::getenv("BLASSCOPE_RECORD_CLOCK");
  if (wanted && std::string_view(wanted) == "monotonic") return CallClock::MonotonicNs;
  if (wanted && std::string_view(wanted) == "tsc") return CallClock::Tsc;
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  if (source >> name && name == "tsc") return CallClock::Tsc;
  if (tsc_agrees_across_cpus_this_boot()) return CallClock::Tsc;
#endif
  return CallClock::MonotonicNs;
}

// Both clocks at (nearly) one instant: the TSC between two clock_gettime, against their middle.
void sample_clocks(CallClock clock, std::uint64_t& ticks, std::uint64_t& ns) {
  const std::uint64_t before = monotonic_ns();
  ticks = read_call_clock(clock);
  const std::uint64_t after = monotonic_ns();
  ns = before + (after - before) / 2;
}

// Allocated before the program starts: the header and the tables (every thread's slot), and
// the ring's first entries; the rest of the ring a megabyte at a time while it starts. All of it
// at once took 4.4 ms, and freeing it 2.6 ms more: half of recording a one-call program.
constexpr std::uint64_t kFirstRingEntries = 4096;
constexpr std::uint64_t kGrowthEntries = 8192;
constexpr std::uint64_t kRingOffset = offsetof(SharedHeader, ring);
static_assert(kRingOffset + std::uint64_t{kRingCapacity} * sizeof(RingEntry) == kSharedBytes);

// A name no session takes (those are blasscope-record-*): the sweep below removes only buffers,
// and only names of exactly the shape mkostemp makes.
constexpr std::string_view kBufferPrefix = "blasscope-buffer-";
constexpr std::size_t kRandomLength = 6;

bool is_buffer_name(std::string_view name) {
  if (name.size() != kBufferPrefix.size() + kRandomLength || !name.starts_with(kBufferPrefix)) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(kBufferPrefix.size()), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::size_t remove_abandoned_buffers(const std::string& dir, std::chrono::seconds min_age) {
  DIR* listing = ::opendir(dir.c_str());
  if (!listing) return 0;
  std::size_t removed = 0;
  const auto now = std::chrono::system_clock::now();
  while (const dirent* entry = ::readdir(listing)) {
    if (!is_buffer_name(entry->d_name)) continue;
    const std::string path = dir + "/" + entry->d_name;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st;
    // Another user's, or one made a moment ago (its recorder takes the lock just after making
    // it): left alone. A lock to be had is a recorder gone (a SIGKILL, a power cut of its VM).
    const bool candidate = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
                           now - std::chrono::system_clock::from_time_t(st.st_mtime) >= min_age;
    if (candidate && ::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::unlink(path.c_str()) == 0) ++removed;
    ::close(fd);
  }
  ::closedir(listing);
  return removed;
}

ClockMap clock_map_between(std::uint64_t tick0, std::uint64_t ns0, std::uint64_t tick1, std::uint64_t ns1) {
  ClockMap map;
  if (tick1 <= tick0 || ns1 <= ns0) return map;  // too close to tell: treat ticks as ns
  map.identity = false;
  map.ns_per_tick = static_cast<double>(ns1 - ns0) / static_cast<double>(tick1 - tick0);
  map.base_ns = ns0;
  map.segments = {{tick0, 0.0, map.ns_per_tick}};
  return map;
}

namespace {
// Nanoseconds after the map's base_ns (negative before it). Differences are taken in integers
// and kept small: a TSC count or a boot-time ns count past 2^53 would round in a double.
double mapped(const ClockMap& map, std::uint64_t ticks) {
  // The last segment starting at or before the ticks (most are in the last one).
  auto s = map.segments.end() - 1;
  while (s != map.segments.begin() && s->tick > ticks) --s;
  // Ticks from before the first sample (none are expected) land before it, not at 2^64.
  return s->ns + static_cast<double>(static_cast<std::int64_t>(ticks - s->tick)) * s->ns_per_tick;
}
}  // namespace

std::uint64_t ClockMap::point(std::uint64_t ticks) const {
  if (identity) return ticks;
  const double after = mapped(*this, ticks);
  if (after < 0 && static_cast<std::uint64_t>(-after) >= base_ns) return 0;
  return after < 0 ? base_ns - static_cast<std::uint64_t>(-after) : base_ns + static_cast<std::uint64_t>(after);
}

std::uint64_t ClockMap::span_from(std::uint64_t start, std::uint64_t ticks) const {
  return identity ? ticks : point(start + ticks) - point(start);
}

ClockMap ContinuousClockMap::update(std::uint64_t tick0, std::uint64_t ns0, std::uint64_t tick1, std::uint64_t ns1) {
  const ClockMap line = clock_map_between(tick0, ns0, tick1, ns1);
  if (line.identity || m_map.identity) {
    if (m_map.identity) m_map = line;  // the first map that can tell (or none yet)
    return m_map;
  }
  m_map.ns_per_tick = line.ns_per_tick;
  const std::uint64_t last = m_map.segments.back().tick;
  if (tick1 <= last || tick1 - tick0 < 2 * (last - tick0)) return m_map;
  // From where the map stands at the sample, a slope that makes up its distance from the line
  // over as many ticks again (by when the next segment starts).
  const double at = mapped(m_map, tick1);
  const double line_at = static_cast<double>(static_cast<std::int64_t>(ns1 - m_map.base_ns));
  double slope = line.ns_per_tick - (at - line_at) / static_cast<double>(tick1 - tick0);
  if (slope <= 0) slope = line.ns_per_tick;  // a sample far off: never run backwards
  m_map.segments.push_back({tick1, at, slope});
  return m_map;
}

std::uint64_t ClockMap::span(std::uint64_t ticks) const {
  return identity ? ticks : static_cast<std::uint64_t>(static_cast<double>(ticks) * ns_per_tick);
}

void SharedBuffer::set_nested_limit(std::uint32_t limit) {
  m_header->nested_limit.store(limit);
}

bool SharedBuffer::publish_long_call(std::uint64_t ns) {
  if (m_header->long_call_ticks.load() != 0) return true;
  // The TSC's rate from two samples 20 ms apart or more: a sample the recorder was preempted
  // in is off by microseconds, a fraction of a percent of that.
  const bool tsc = m_header->clock.load() != CallClock::MonotonicNs;
  if (tsc && monotonic_ns() - m_ns0 < 20000000) return false;
  const ClockMap map = clock_map();
  if (map.identity && tsc) return false;
  const double ticks = static_cast<double>(ns) / map.ns_per_tick;
  m_header->long_call_ticks.store(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(ticks)));
  return true;
}

ClockMap SharedBuffer::clock_map() const {
  const CallClock clock = m_header->clock.load();
  if (clock == CallClock::MonotonicNs) return {};
  const std::lock_guard lock(m_clock_lock);
  std::uint64_t tick1 = 0, ns1 = 0;
  sample_clocks(clock, tick1, ns1);
  return m_clock.update(m_tick0, m_ns0, tick1, ns1);
}

namespace {
// Whether a lock on `fd` is the kernel's own (flock on a local file system), which holds until
// its holder's last descriptor of it goes, as the program's check for a dead recorder takes it
// to. NFS and other network file systems emulate flock with POSIX locks, which one close() of
// any descriptor of the file by the same process lets go.
bool locks_are_local(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x01021994:  // tmpfs (/dev/shm)
    case 0xEF53:      // ext2/3/4
    case 0x58465342:  // xfs
    case 0x9123683E:  // btrfs
    case 0x794C7630:  // overlayfs (a container's /tmp)
      return true;
    default: return false;
  }
}
}  // namespace

SharedBuffer::SharedBuffer(bool check_values, std::uint64_t ring_entries) : m_ring_entries(ring_entries) {
  struct stat st;
  const std::string dir = ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  // Buffers of recorders that were killed before they could remove theirs go first.
  remove_abandoned_buffers(dir, std::chrono::minutes(1));
  std::string pattern = dir + "/" + std::string(kBufferPrefix) + std::string(kRandomLength, 'X');
  m_fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (m_fd < 0) throw std::runtime_error("cannot create the recording buffer in " + dir + ": " + std::strerror(errno));
  m_path = pattern;
  const auto fail = [this](const std::string& what, int error) {
    ::close(m_fd);
    ::unlink(m_path.c_str());
    throw std::runtime_error(what + " " + m_path + ": " + std::strerror(error));
  };
  // Held while this recorder lives (the kernel lets it go when the process ends, however it
  // ends): a buffer nobody holds is abandoned, so one this recorder cannot hold is not made.
  // (A file system without locks, /tmp on NFS, records all the same: the sweep's age check
  // alone keeps such a buffer for its first minute.)
  bool locked = ::flock(m_fd, LOCK_EX | LOCK_NB) == 0;
  if (!locked && errno == EWOULDBLOCK) fail("cannot lock the recording buffer", errno);
  // Full size at once (the program checks it), but pages only where allocated: a full /dev/shm
  // fails here or stops the ring growing, never as SIGBUS inside the program, whose writers
  // never pass what is allocated (write_limit).
  if (::ftruncate(m_fd, static_cast<off_t>(kSharedBytes)) != 0) fail("cannot size the recording buffer", errno);
  const std::uint64_t first = std::min<std::uint64_t>(kFirstRingEntries, m_ring_entries);
  if (const int error = ::posix_fallocate(m_fd, 0, static_cast<off_t>(kRingOffset + first * sizeof(RingEntry)));
      error != 0) {
    fail("cannot allocate the recording buffer", error);
  }
  void* map = ::mmap(nullptr, kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, 0);
  if (map == MAP_FAILED) fail("cannot map the recording buffer", errno);
  // The file is zero-filled, which is every atomic's initial value; the header goes last.
  m_header = static_cast<SharedHeader*>(map);
  m_header->ring_capacity = kRingCapacity;
  m_header->active_slots = kActiveSlots;
  m_header->check_values.store(check_values ? 1 : 0);
  m_header->nested_limit.store(UINT32_MAX);  // every call listed, unless set_nested_limit says otherwise
  m_header->clock.store(choose_clock());
  m_header->recorder_holds_lock.store(locked && locks_are_local(m_fd) ? 1 : 0);
  sample_clocks(m_header->clock.load(), m_tick0, m_ns0);
  m_allocated.store(first);
  publish_write_limit();
  m_header->version = kLayoutVersion;
  std::atomic_thread_fence(std::memory_order_release);
  m_header->magic = kMagic;
  m_full_event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  try {
    m_helper = std::thread(&SharedBuffer::serve_full_ring, this);
  } catch (const std::system_error&) {
    grow_ring();  // no thread to be had: all of it now
  }
}

SharedBuffer::~SharedBuffer() {
  stop_growing();
  if (m_header) ::munmap(m_header, kSharedBytes);
  ::close(m_fd);
  if (m_full_event >= 0) ::close(m_full_event);
  if (!m_path.empty()) ::unlink(m_path.c_str());
}

void SharedBuffer::serve_full_ring() {
  std::atomic<std::uint32_t>& full = m_header->ring_full;
  bool grown = false;
  // Bounded waits: the word is in a file the program can write too, and stop_growing() must
  // end this thread whatever it holds.
  const timespec bound{0, 100000000};
  while (!m_stop_growing.load()) {
    const std::uint32_t state = full.load();
    if (state == kRingUnserved) return;
    if (state != kRingFull) {
      ::syscall(SYS_futex, &full, FUTEX_WAIT, state, &bound, nullptr, 0);
      continue;
    }
    // Most programs never fill the ring's first entries: it grows once a writer finds it full.
    if (!grown) grow_ring(), grown = true;
    std::uint32_t expected = kRingFull;
    full.compare_exchange_strong(expected, kRingReported);
    if (m_full_event >= 0) {
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t written = ::write(m_full_event, &one, sizeof one);
    }
  }
}

void SharedBuffer::grow_ring() {
  for (std::uint64_t done = m_allocated.load(); done < kRingCapacity;) {
    if (done >= m_ring_entries) {
      m_growth_error = "limited to " + std::to_string(m_ring_entries) + " entries";
      return;
    }
    if (m_stop_growing.load()) return;
    const std::uint64_t next = std::min<std::uint64_t>({done + kGrowthEntries, kRingCapacity, m_ring_entries});
    const int error = ::posix_fallocate(m_fd, static_cast<off_t>(kRingOffset + done * sizeof(RingEntry)),
                                        static_cast<off_t>((next - done) * sizeof(RingEntry)));
    if (error != 0) {
      m_growth_error = std::generic_category().message(error);  // strerror is not thread-safe
      return;
    }
    m_allocated.store(next);
    publish_write_limit();
    done = next;
  }
}

void SharedBuffer::stop_growing() {
  if (!m_helper.joinable()) return;
  m_stop_growing.store(true);
  // The word changes before the wake: a helper between its check and its wait does not sleep.
  m_header->ring_full.store(kRingUnserved);
  ::syscall(SYS_futex, &m_header->ring_full, FUTEX_WAKE, 1, nullptr, nullptr, 0);
  m_helper.join();
}

void SharedBuffer::stop_draining() {
  m_header->recorder_gone.store(1);
  m_header->room_made.fetch_add(1);
  ::syscall(SYS_futex, &m_header->room_made, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

std::string SharedBuffer::growth_error() {
  stop_growing();
  return m_growth_error;
}

// Until the whole ring is allocated writers stay in its first lap, below what is; after that,
// within one ring of the read index. Both only grow, so a limit computed from older values is
// still a safe one: it is only ever raised, whichever thread (drain, grower) publishes last.
void SharedBuffer::publish_write_limit() {
  const std::uint64_t allocated = m_allocated.load();
  const std::uint64_t limit = allocated < kRingCapacity ? allocated : m_read.load() + kRingCapacity;
  SharedHeader& s = *m_header;
  std::uint64_t seen = s.write_limit.load(std::memory_order_relaxed);
  bool raised = false;
  while (seen < limit && !(raised = s.write_limit.compare_exchange_weak(seen, limit))) {
  }
  // Sequentially consistent on both sides: a writer that counts itself a waiter and then finds
  // the old limit is seen here; one that came later finds the new limit and does not sleep.
  if (raised && s.room_waiters.load() != 0) {
    s.room_made.fetch_add(1);
    ::syscall(SYS_futex, &s.room_made, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }
}

std::size_t SharedBuffer::drain(DrainedVector& out, bool final) {
  SharedHeader& s = *m_header;
  std::uint64_t r = m_read.load(std::memory_order_relaxed);
  const std::uint64_t first = r;
  const std::uint64_t w = s.write_index.load(std::memory_order_acquire);
  while (r < w) {
    RingEntry& entry = s.ring[r & (kRingCapacity - 1)];
    if (std::atomic_ref<std::uint32_t>(entry.call.ring_seal).load(std::memory_order_acquire) !=
        static_cast<std::uint32_t>(r + 1)) {
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
      if (entry.call.flags & kCountedByRecorder) count(out.back());
    }
    // The write limit is raised once per batch (writers waiting on a full ring see progress
    // every 4096 entries): each store takes the line from the writers' caches.
    if ((++r & 4095) == 0) {
      m_read.store(r);
      publish_write_limit();
    }
  }
  m_read.store(r);
  publish_write_limit();
  // Room made answers a full ring the helper reported: the next one is reported again (the
  // writers still waiting report at their next look). A drain that freed nothing (an entry
  // still being written) leaves it, or writer, helper and recorder would go round at once.
  if (r > first) {
    std::uint32_t reported = kRingReported;
    s.ring_full.compare_exchange_strong(reported, kRingNotFull);
  }
  return static_cast<std::size_t>(r - first);
}

void RawTotals::add(const RoutineTotals& t) {
  calls += t.calls.load(), nanoseconds += t.nanoseconds.load(), self_nanoseconds += t.self_nanoseconds.load();
  failures += t.failures.load(), flops += t.flops.load(), queries += t.queries.load();
  query_nanoseconds += t.query_nanoseconds.load();
  longest = std::max(longest, t.longest.load());
}

void RawTotals::add(const CallCount& call) {
  calls += call.calls, nanoseconds += call.nanoseconds, self_nanoseconds += call.self_nanoseconds;
  failures += call.failures, flops += call.flops, queries += call.queries;
  query_nanoseconds += call.query_nanoseconds;
  longest = std::max(longest, call.longest);
}

// A call that made no recorded call: its whole time is its own.
void SharedBuffer::count(const CallRecord& call) {
  CallCount counted = count_of(call, call.duration_ns);
  counted.calls = 0;  // the preload's
  if (!m_counted_last || m_counted_pid != call.pid) {
    // The pid is the program's word (the file is its to write): past as many as may attach,
    // any other goes to 0's, bounded.
    const bool known = m_counted.count(call.pid) || m_counted.size() < 2 * kMaxProcesses;
    m_counted_last = &m_counted[known ? call.pid : 0];
    m_counted_pid = call.pid;
  }
  (*m_counted_last)[static_cast<std::uint32_t>(call.routine) % kRoutineCount]
                   [static_cast<std::uint32_t>(call.precision) % kPrecisionCount]
                       .add(counted);
}

void RawTotals::add(const RawTotals& t) {
  calls += t.calls, nanoseconds += t.nanoseconds, self_nanoseconds += t.self_nanoseconds;
  failures += t.failures, flops += t.flops, queries += t.queries, query_nanoseconds += t.query_nanoseconds;
  longest = std::max(longest, t.longest);
}

namespace {
void add_totals(ProcessTotals& to, const RoutineTotals (&from)[kRoutineCount][kPrecisionCount]) {
  for (std::uint32_t r = 0; r < kRoutineCount; ++r) {
    for (std::uint32_t p = 0; p < kPrecisionCount; ++p) to[r][p].add(from[r][p]);
  }
}
}  // namespace

void SharedBuffer::reclaim_slots_of_dead_processes() {
  for (std::uint32_t i = 0; i < slots_seen(); ++i) {
    ActiveSlot& slot = m_header->active[i];
    const std::uint32_t pid = slot.owner_pid.load();
    std::uint32_t tid = slot.owner_tid.load();
    // A slot keeps its process when its thread ends (see ActiveSlot): free (tid 0) or held by
    // a thread that died with its process, outside any call.
    if (pid == 0 || tid == kSlotReclaiming || (tid != 0 && slot.depth.load() != 0)) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    // Held while its totals move: a thread of another process claiming it now fails its CAS.
    if (!slot.owner_tid.compare_exchange_strong(tid, kSlotReclaiming)) continue;
    add_totals(m_reclaimed[pid], slot.totals);
    for (auto& by_precision : slot.totals) {
      for (RoutineTotals& t : by_precision) {
        for (auto* counter : {&t.calls, &t.nanoseconds, &t.self_nanoseconds, &t.failures, &t.flops, &t.queries,
                              &t.query_nanoseconds, &t.longest}) {
          counter->store(0);
        }
      }
    }
    slot.depth.store(0);
    slot.owner_pid.store(0);
    slot.owner_tid.store(0, std::memory_order_release);
  }
}

std::map<std::uint32_t, ProcessTotals> SharedBuffer::process_totals() const {
  std::map<std::uint32_t, ProcessTotals> out = m_reclaimed;
  for (const auto& [pid, totals] : m_counted) {
    for (std::uint32_t r = 0; r < kRoutineCount; ++r) {
      for (std::uint32_t p = 0; p < kPrecisionCount; ++p) out[pid][r][p].add(totals[r][p]);
    }
  }
  add_totals(out[0], m_header->totals);
  for (std::uint32_t i = 0; i < slots_seen(); ++i) {
    const ActiveSlot& slot = m_header->active[i];
    add_totals(out[slot.owner_pid.load()], slot.totals);  // a slot never claimed adds zeros to 0's
  }
  return out;
}

std::vector<CallRecord> SharedBuffer::running() const {
  std::vector<CallRecord> out;
  for (std::uint32_t i = 0; i < slots_seen(); ++i) {
    const ActiveSlot& slot = m_header->active[i];
    if (slot.owner_tid.load() == 0) continue;
    // A consistent copy of the thread's running calls: the version and the depth are unchanged
    // around the copy.
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::uint32_t before = slot.version.load(std::memory_order_acquire);
      const std::uint32_t depth = std::min(slot.depth.load(std::memory_order_acquire), kSlotDepth);
      // An odd version means the writer is filling stack[depth], above the calls it published:
      // they stay readable (a scan that crashes with the version odd must not hide them).
      if (depth == 0) break;
      CallRecord calls[kSlotDepth];
      std::copy(slot.stack, slot.stack + depth, calls);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (slot.version.load(std::memory_order_relaxed) != before ||
          std::min(slot.depth.load(std::memory_order_relaxed), kSlotDepth) != depth) {
        continue;
      }
      for (std::uint32_t d = 0; d < depth; ++d) {
        if (calls[d].id != 0) out.push_back(calls[d]);
      }
      break;
    }
  }
  return out;
}

}  // namespace blasscope::record
