#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "record/call_flops.h"
#include "record/call_record.h"
#include "record/huge_pages.h"

namespace blasscope::record {

// Maps the calls' clock to CLOCK_MONOTONIC nanoseconds: the identity, or for the TSC a line
// through samples of both clocks, in segments (see ContinuousClockMap).
struct ClockMap {
  struct Segment {
    std::uint64_t tick = 0;  // where it starts (the first one also covers ticks before it)
    double ns = 0;           // where it starts, in ns after base_ns
    double ns_per_tick = 1;
  };
  std::uint64_t base_ns = 0;      // the first sample's
  std::vector<Segment> segments;  // in tick order; none for the identity
  double ns_per_tick = 1;         // the latest estimate of the rate, for durations
  bool identity = true;
  std::uint64_t point(std::uint64_t ticks) const;  // a time
  std::uint64_t span(std::uint64_t ticks) const;   // a duration, at the latest rate (totals)
  // A call's duration: from its mapped start to its mapped end, so that a call ends where the
  // map puts it, never past the start of one that followed it.
  std::uint64_t span_from(std::uint64_t start, std::uint64_t ticks) const;
};
ClockMap clock_map_between(std::uint64_t tick0, std::uint64_t ns0, std::uint64_t tick1, std::uint64_t ns1);

// The map refined as the samples grow apart, without ever moving a tick it mapped before: a
// line through the first sample and the latest would change its slope at every drain, and a
// call drained later could then start a few nanoseconds before one drained earlier that it
// followed. Each refinement starts a segment where the map stood at the newest sample, steered
// to meet the line through both samples one doubling later; segments start when the samples are
// twice as far apart as at the last one, so a day's recording has some thirty.
class ContinuousClockMap {
 public:
  ClockMap update(std::uint64_t tick0, std::uint64_t ns0, std::uint64_t tick1, std::uint64_t ns1);

 private:
  ClockMap m_map;
};

// Removes the buffers in `dir` that no recorder holds any more (a recorder killed by SIGKILL
// cannot remove its own), except those modified less than `min_age` ago; returns how many.
std::size_t remove_abandoned_buffers(const std::string& dir, std::chrono::seconds min_age);

// One routine's totals as the preload keeps them (times in the calls' clock), and a process's.
struct RawTotals {
  std::uint64_t calls = 0, nanoseconds = 0, self_nanoseconds = 0, failures = 0, flops = 0, queries = 0,
                query_nanoseconds = 0, longest = 0;
  void add(const RoutineTotals& t);
  void add(const RawTotals& t);
  void add(const CallCount& call);  // one call
};
using ProcessTotals = std::array<std::array<RawTotals, kPrecisionCount>, kRoutineCount>;

// Calls as drained: up to a ring's worth, on huge pages (see huge_pages.h).
using DrainedVector = std::vector<CallRecord, HugePageAllocator<CallRecord>>;

// The recorder's side of the shared file: created empty before the program starts, drained
// while it runs, read once more after it ends.
class SharedBuffer {
 public:
  // Creates the file in /dev/shm (else /tmp) and maps it; throws std::runtime_error. Only the
  // tables and the ring's first entries are allocated at once; the rest of the ring is
  // allocated on a thread of its own while the program starts (see grow_ring).
  // `ring_entries` below the capacity makes a ring that cannot grow that far (tests).
  explicit SharedBuffer(bool check_values, std::uint64_t ring_entries = kRingCapacity);
  ~SharedBuffer();  // unmaps and removes the file
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;

  const std::string& path() const { return m_path; }
  SharedHeader& header() { return *m_header; }

  // Moves the finished calls the program has published into `out`; with `final`, entries a
  // dead writer reserved but never completed are skipped (and counted in `lost`). Returns how
  // many calls it took from the ring.
  std::size_t drain(DrainedVector& out, bool final = false);
  std::uint64_t lost() const { return m_lost; }
  // Gives back the slots of processes that have exited while no call of theirs was running,
  // their totals kept for process_totals().
  void reclaim_slots_of_dead_processes();
  // Every process's exact totals, by pid (0: threads that found no free slot).
  std::map<std::uint32_t, ProcessTotals> process_totals() const;
  // active[0, slots_seen()) holds every slot a thread has claimed.
  std::uint32_t slots_seen() const { return std::min(m_header->slots_seen.load(), kActiveSlots); }
  // The calls running now (or when the program stopped): each thread's, outermost first (a
  // driver, then the call it was inside of when it stopped).
  std::vector<CallRecord> running() const;
  // Lists only the first `limit` calls made inside each top-level call of the program (see
  // SharedHeader::nested_limit); UINT32_MAX, the default, lists all. Before the program starts.
  void set_nested_limit(std::uint32_t limit);
  // Publishes `ns` in the calls' clock as SharedHeader::long_call_ticks, once the clocks have
  // been apart long enough to map one to the other; returns whether it is published.
  bool publish_long_call(std::uint64_t ns);
  // The mapping of the calls' clock, from the start until now.
  ClockMap clock_map() const;
  // Readable (an eventfd, or -1) when a writer has found the ring full: drain now. Where it is
  // -1 or there is no helper thread, nothing wakes the recorder and it must poll.
  int full_ring_event() const { return m_full_event; }
  bool wakes_when_full() const { return m_full_event >= 0 && m_helper.joinable(); }
  // Ends the ring's allocation and its helper thread (the program has ended: it needs no more).
  void stop_growing();
  // After the last drain: a process still running (a daemon the program left) no longer waits
  // for room in a full ring, its calls are dropped (counted) at once, and any asleep are woken.
  void stop_draining();
  // Ring entries allocated so far, and drained so far.
  std::uint64_t ring_allocated() const { return m_allocated.load(); }
  std::uint64_t drained() const { return m_read.load(); }
  // Why the ring could not grow to its capacity ("" if it could); stops its growth first.
  std::string growth_error();

 private:
  void serve_full_ring();  // the helper thread
  void grow_ring();
  void publish_write_limit();
  void count(const CallRecord& call);  // one the preload left to the recorder (kCountedByRecorder)

  std::string m_path;
  int m_fd = -1;  // kept for the ring's allocation
  SharedHeader* m_header = nullptr;
  std::atomic<std::uint64_t> m_read{0};       // ring entries drained
  std::atomic<std::uint64_t> m_allocated{0};  // ring entries backed by allocated pages
  std::atomic<bool> m_stop_growing{false};
  std::thread m_helper;
  int m_full_event = -1;
  std::uint64_t m_ring_entries;  // what the ring may grow to
  std::string m_growth_error;    // written by the helper before it ends
  std::uint64_t m_lost = 0;
  std::map<std::uint32_t, ProcessTotals> m_reclaimed;  // the totals of slots taken back, by process
  // The totals of the calls the preload left to the recorder to count (kCountedByRecorder), by
  // process, and the last process's (calls come in runs of one process).
  std::map<std::uint32_t, ProcessTotals> m_counted;
  std::uint32_t m_counted_pid = 0;
  ProcessTotals* m_counted_last = nullptr;
  std::uint64_t m_stuck_since_ns = 0;    // when the entry at the read index was first seen unfinished
  std::uint64_t m_tick0 = 0, m_ns0 = 0;  // both clocks, when the buffer was made
  mutable std::mutex m_clock_lock;       // clock_map() from the drain and the end
  mutable ContinuousClockMap m_clock;
};

}  // namespace blasscope::record
