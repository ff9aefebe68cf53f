// The recorder's side of the shared file: how it maps the TSC to nanoseconds, reads the calls
// a thread publishes while they run, and drains the ring, written here as the preload
// library writes them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "record/process_list.h"
#include "record/recording.h"
#include "record/shared_buffer.h"
#include "record/tsc_check.h"

namespace blasscope::record {
namespace {

// A child that waits for a signal; its pid.
pid_t paused_child() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::pause();
    ::_exit(0);
  }
  return pid;
}

// /proc/PID/stat's start time, as the preload records it.
std::uint64_t start_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return start_ticks_in(stat.data(), stat.size());
}

// Puts `pid` in the table as the preload does, with `started` as its start time.
void attach_as(SharedHeader& h, pid_t pid, std::uint64_t started) {
  const std::uint32_t index = h.process_count.fetch_add(1);
  h.processes[index].start_ticks.store(started);
  h.processes[index].pid.store(static_cast<std::uint32_t>(pid));
  h.processes_registered.fetch_add(1);
  ::syscall(SYS_futex, &h.processes_registered, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// Whether the kernel says how a process that was reaped ended (PIDFD_INFO_EXIT, Linux 6.15).
bool kernel_says_how_processes_end() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  int status = 0;
  ::waitpid(child, &status, 0);
  const bool says = exit_status_of(pidfd).has_value();
  if (pidfd >= 0) ::close(pidfd);
  return says;
}

TEST(ProcessEnd, TheStartTimeIsReadPastACommandWithSpacesAndParentheses) {
  const std::string stat = "4242 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 19 20";
  EXPECT_EQ(start_ticks_in(stat.data(), stat.size()), 987654u);
  EXPECT_EQ(start_ticks_in("garbage", 7), 0u);
  EXPECT_GT(start_ticks(::getpid()), 0u);
}

TEST(ProcessEnd, APidfdSaysHowItsProcessEndedOnceReaped) {
  const pid_t child = paused_child();
  ASSERT_GT(child, 0);
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  ASSERT_GE(pidfd, 0) << std::strerror(errno);
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::optional<int> told = exit_status_of(pidfd);
  ::close(pidfd);
  if (!told) GTEST_SKIP() << "this kernel does not say how a process ended (PIDFD_INFO_EXIT: Linux 6.15)";
  EXPECT_TRUE(WIFSIGNALED(*told) && WTERMSIG(*told) == SIGTERM) << *told;
  // One that exited: its status.
  const pid_t exits = ::fork();
  if (exits == 0) ::_exit(3);
  const int exits_fd = static_cast<int>(::syscall(SYS_pidfd_open, exits, 0));
  ::waitpid(exits, &status, 0);
  const std::optional<int> exited = exit_status_of(exits_fd);
  ASSERT_TRUE(exited.has_value());
  EXPECT_TRUE(WIFEXITED(*exited) && WEXITSTATUS(*exited) == 3) << *exited;
  if (exits_fd >= 0) ::close(exits_fd);
}

TEST(ProcessEnd, AProcessThatAttachesIsHeldAtOnceAndOnlyIfItIsTheSameProcess) {
  // A short-lived child may be reaped before the recorder's next look: its pidfd is opened as
  // soon as its entry is complete, and still says how it ended once it is gone. An entry whose
  // start time is not the pid's (a pid reused, another pid namespace) gets none.
  SharedBuffer buffer(false);
  const pid_t child = paused_child(), other = paused_child();
  ASSERT_GT(child, 0);
  ASSERT_GT(other, 0);
  {
    ProcessHandles handles(buffer.header());
    attach_as(buffer.header(), child, start_ticks(child));
    attach_as(buffer.header(), other, start_ticks(other) + 1);
    ::usleep(300000);  // the thread opens them meanwhile
    for (const pid_t pid : {child, other}) {
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
    if (!kernel_says_how_processes_end()) {
      EXPECT_FALSE(handles.wait_status(static_cast<std::uint32_t>(child)).has_value());
      GTEST_SKIP() << "this kernel does not say how a process ended (PIDFD_INFO_EXIT: Linux 6.15)";
    }
    const std::optional<int> told = handles.wait_status(static_cast<std::uint32_t>(child));
    ASSERT_TRUE(told.has_value()) << "no pidfd was held on the process that attached";
    EXPECT_TRUE(WIFSIGNALED(*told) && WTERMSIG(*told) == SIGKILL) << *told;
    EXPECT_EQ(handles.wait_status(static_cast<std::uint32_t>(child)), told) << "asked again";
    EXPECT_FALSE(handles.wait_status(static_cast<std::uint32_t>(other)).has_value()) << "not the process it says";
  }
}

TEST(ClockMap, TicksMapOntoTheLineThroughBothSamples) {
  // 3 ticks per nanosecond, tick 3000 at 1000 ns.
  const ClockMap map = clock_map_between(3000, 1000, 3003000, 1001000);
  EXPECT_FALSE(map.identity);
  EXPECT_EQ(map.point(3000), 1000u);
  EXPECT_EQ(map.point(303000), 101000u);
  EXPECT_EQ(map.span(3000), 1000u);
  EXPECT_EQ(map.point(0), 0u);  // before the first sample: clamped, never wrapped around
}

TEST(ClockMap, RefinementsNeverMoveATickMappedBefore) {
  // 3 ticks a nanosecond, samples taken every 10 ms with up to +-2 us of jitter (a recorder
  // preempted while it sampled): every tick mapped at one drain maps the same at every later
  // one, later ticks map later, and the map comes within a few microseconds of the true line.
  ContinuousClockMap clock;
  const std::uint64_t tick0 = 3'000'000, ns0 = 1'000'000;
  const auto truth = [&](std::uint64_t tick) { return static_cast<double>(ns0) + (tick - tick0) / 3.0; };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;  // ticks mapped, and where
  std::uint64_t previous_point = 0;
  for (int drain = 1; drain <= 3000; ++drain) {
    const std::uint64_t ns1 = ns0 + static_cast<std::uint64_t>(drain) * 10'000'000;
    const std::int64_t jitter = (drain * 7919 % 4001) - 2000;
    const std::uint64_t tick1 = tick0 + (ns1 - ns0) * 3 + static_cast<std::uint64_t>(jitter * 3);
    const ClockMap map = clock.update(tick0, ns0, tick1, ns1);
    ASSERT_FALSE(map.identity);
    for (const auto& [tick, ns] : seen) {
      ASSERT_EQ(map.point(tick), ns) << "drain " << drain << ", tick " << tick;
    }
    // Calls of this drain: ticks up to the sample, each after the last.
    for (std::uint64_t tick = tick1 - 29'000'000; tick <= tick1; tick += 1'000'000) {
      if (tick <= (seen.empty() ? 0 : seen.back().first)) continue;
      const std::uint64_t point = map.point(tick);
      ASSERT_GE(point, previous_point);
      previous_point = point;
      if (drain % 50 == 0) seen.emplace_back(tick, point);
    }
    if (drain > 100) {
      EXPECT_LT(std::abs(static_cast<double>(map.point(tick1)) - truth(tick1)), 5000.0) << drain;
    }
    // A call's end is where the map puts its last tick: it never reaches past a later start.
    EXPECT_EQ(map.point(tick1 - 500) + map.span_from(tick1 - 500, 400), map.point(tick1 - 100));
  }
  // Counts past 2^53 (a TSC after weeks of uptime) keep nanosecond steps.
  ContinuousClockMap late;
  const std::uint64_t big_tick = 1ull << 60, big_ns = 1ull << 56;
  const ClockMap far = late.update(big_tick, big_ns, big_tick + 3'000'000'000ull, big_ns + 1'000'000'000ull);
  EXPECT_EQ(far.point(big_tick + 3), big_ns + 1);
  EXPECT_EQ(far.point(big_tick + 3'000'000'000ull), big_ns + 1'000'000'000ull);
  EXPECT_LT(clock.update(tick0, ns0, tick0 + 90'000'000'000ull, ns0 + 30'000'000'000ull).segments.size(), 20u);
}

TEST(ClockMap, SamplesTooCloseToTellLeaveTicksAsNanoseconds) {
  EXPECT_TRUE(clock_map_between(5, 5, 5, 9).identity);
  EXPECT_TRUE(clock_map_between(5, 9, 9, 9).identity);
  EXPECT_EQ(ClockMap{}.point(1234), 1234u);
}

TEST(SharedBufferClock, AFreshMapAgreesWithTheMonotonicClock) {
  SharedBuffer buffer(false);
  const std::uint64_t ticks = read_call_clock(buffer.header().clock.load());
  const std::uint64_t ns = monotonic_ns();
  const ClockMap map = buffer.clock_map();
  const double apart = static_cast<double>(map.point(ticks)) - static_cast<double>(ns);
  EXPECT_LT(std::abs(apart), 1e6) << "a tick read now maps to within 1 ms of now";
}

// Samples of a TSC running at 2 ticks a nanosecond on every CPU, each 100 ns wide, 10 us apart;
// `ahead_ns` moves the second CPU's TSC on.
std::vector<ClockSample> samples_on(const std::vector<int>& cpus, double ahead_ns = 0) {
  std::vector<ClockSample> samples;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const std::uint64_t ns = 1'000'000 + 10'000 * i;
    const double offset = cpus[i] == 1 ? ahead_ns : 0;
    samples.push_back({cpus[i], ns, static_cast<std::uint64_t>(2 * (ns + 50 + offset)), ns + 100});
  }
  return samples;
}

TEST(TscCheck, CpusWhoseTscsReadAlikeAgree) {
  EXPECT_TRUE(tsc_samples_agree(samples_on({0, 1, 2, 3, 0}), 2000));
  EXPECT_TRUE(tsc_samples_agree(samples_on({0, 1, 0}, 1500), 2000)) << "within the tolerance";
}

TEST(TscCheck, ACpuWhoseTscIsAheadOrBehindDisagrees) {
  EXPECT_FALSE(tsc_samples_agree(samples_on({0, 1, 2, 0}, 5000), 2000));
  EXPECT_FALSE(tsc_samples_agree(samples_on({0, 1, 2, 0}, -5000), 2000));
}

TEST(TscCheck, AWideSampleTellsLessAndTooFewSamplesTellNothing) {
  std::vector<ClockSample> samples = samples_on({0, 1, 0}, 5000);
  samples[1].ns_before -= 6000, samples[1].ns_after += 6000;  // preempted while it sampled
  samples[1].ticks = 2 * (samples[1].ns_before + (samples[1].ns_after - samples[1].ns_before) / 2 + 5000);
  EXPECT_TRUE(tsc_samples_agree(samples, 2000)) << "5 us off, but the sample is 12 us wide";
  EXPECT_FALSE(tsc_samples_agree(samples_on({0}), 2000));
  EXPECT_FALSE(tsc_samples_agree({}, 2000));
  EXPECT_FALSE(tsc_samples_agree(samples_on({0, 1}), 2000)) << "the rate needs the first CPU at both ends";
  EXPECT_TRUE(tsc_samples_agree(samples_on({0, 0}), 2000)) << "one CPU agrees with itself: the caller counts CPUs";
  std::vector<ClockSample> stopped = samples_on({0, 1, 0});
  stopped.back().ticks = stopped.front().ticks;
  EXPECT_FALSE(tsc_samples_agree(stopped, 2000)) << "a TSC that did not move";
}

TEST(TscCheck, TheCheckLeavesTheThreadsCpuAffinityAsItWas) {
  cpu_set_t before, after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
  const TscVerdict verdict = check_tsc_across_cpus();
  ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  if (!tsc_is_invariant()) {
    EXPECT_EQ(verdict, TscVerdict::Differs) << "a TSC whose rate follows the CPU's clock is never used";
  }
  const char* said[] = {"the same", "the same on those sampled", "unknown", "not the same"};
  std::printf("this machine's TSC: %s, %s across its CPUs; a read %s than clock_gettime\n",
              tsc_is_invariant() ? "invariant" : "not invariant", said[static_cast<int>(verdict)],
              tsc_read_is_cheaper() ? "cheaper" : "dearer");
}

TEST(TscCheck, OnOneAllowedCpuThereIsNothingToDisagree) {
  // Pinned to one CPU (taskset -c N), as a program the recorder starts from there would be.
  cpu_set_t before, one;
  ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
  CPU_ZERO(&one);
  CPU_SET(::sched_getcpu(), &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  const TscVerdict verdict = check_tsc_across_cpus();
  cpu_set_t after;
  ::sched_getaffinity(0, sizeof after, &after);
  ::sched_setaffinity(0, sizeof before, &before);
  EXPECT_TRUE(CPU_EQUAL(&one, &after)) << "the check did not widen what it was given";
  if (tsc_is_invariant()) {
    EXPECT_EQ(verdict, ::sysconf(_SC_NPROCESSORS_ONLN) == 1 ? TscVerdict::Same : TscVerdict::SameOnThoseSeen)
        << "what one CPU shows is no verdict for the boot";
  }
}

TEST(SharedBufferClock, TheEnvironmentCanForceEitherClock) {
  const char* was = std::getenv("BLASSCOPE_RECORD_CLOCK");
  const std::string kept = was ? was : "";
  ::setenv("BLASSCOPE_RECORD_CLOCK", "monotonic", 1);
  EXPECT_EQ(SharedBuffer(false).header().clock.load(), CallClock::MonotonicNs);
#if defined(__x86_64__)
  ::setenv("BLASSCOPE_RECORD_CLOCK", "tsc", 1);
  EXPECT_EQ(SharedBuffer(false).header().clock.load(), CallClock::Tsc);
#endif
  if (was) {
    ::setenv("BLASSCOPE_RECORD_CLOCK", kept.c_str(), 1);
  } else {
    ::unsetenv("BLASSCOPE_RECORD_CLOCK");
  }
}

CallRecord call_with_id(std::uint64_t id) {
  CallRecord c;
  c.id = id;
  c.m = static_cast<std::int32_t>(id);
  return c;
}

TEST(SharedBufferRunning, EveryPublishedCallOfEachThreadIsRunningOutermostFirst) {
  SharedBuffer buffer(false);
  ActiveSlot& slot = buffer.header().active[3];
  buffer.header().slots_seen.store(4);  // as a thread does before it takes slot 3
  slot.owner_tid.store(77);
  slot.owner_pid.store(1);
  slot.stack[0] = call_with_id(10);
  slot.stack[1] = call_with_id(11);
  slot.depth.store(2);
  slot.version.store(4);
  auto running = buffer.running();
  ASSERT_EQ(running.size(), 2u) << "a driver and the call it is inside of";
  EXPECT_EQ(running[0].id, 10u);
  EXPECT_EQ(running[1].id, 11u);

  slot.depth.store(1);  // the inner call returned
  running = buffer.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, 10u);

  slot.version.store(5);  // stack[1] is being rewritten: the published call below still shows
  running = buffer.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, 10u);
  slot.version.store(6);
  slot.depth.store(0);
  EXPECT_TRUE(buffer.running().empty());
}

TEST(SharedBufferDrain, CompleteEntriesInOrderAndAnAbandonedOneOnlyAtTheEnd) {
  SharedBuffer buffer(false);
  SharedHeader& h = buffer.header();
  for (std::uint64_t i = 0; i < 3; ++i) {
    h.ring[i].call = call_with_id(100 + i);
    if (i != 1) h.ring[i].call.ring_seal = static_cast<std::uint32_t>(i + 1);  // entry 1 reserved by a writer that died
  }
  h.write_index.store(3);
  DrainedVector out;
  buffer.drain(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, 100u);
  EXPECT_EQ(buffer.drained(), 1u) << "the read index stops at the unfinished entry";
  buffer.drain(out, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].id, 102u);
  EXPECT_EQ(buffer.lost(), 1u);
  EXPECT_EQ(buffer.drained(), 3u);
}

// A pid no process has: a child that has exited and been waited for.
std::uint32_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return static_cast<std::uint32_t>(child);
}

TEST(SharedBufferSlots, AnExitedProcesssSlotsGoBackWithTheirTotalsKeptAsItsOwn) {
  SharedBuffer buffer(false);
  SharedHeader& h = buffer.header();
  h.slots_seen.store(3);
  const std::uint32_t dead = dead_pid(), alive = static_cast<std::uint32_t>(::getpid());
  const auto own = [&h](std::uint32_t i, std::uint32_t pid, std::uint32_t tid, std::uint64_t calls) {
    h.active[i].owner_pid.store(pid);
    h.active[i].owner_tid.store(tid);
    h.active[i].totals[static_cast<int>(Routine::Gemv)][static_cast<int>(Precision::D)].calls.store(calls);
  };
  own(0, dead, 0, 5);     // its thread ended before the process did
  own(1, dead, 4242, 7);  // held by a thread that died with it, outside any call
  own(2, alive, 0, 11);   // a live process's ended thread: its slot stays the process's
  h.totals[static_cast<int>(Routine::Gemv)][static_cast<int>(Precision::D)].calls.store(2);  // no slot
  buffer.reclaim_slots_of_dead_processes();
  for (int i : {0, 1}) {
    EXPECT_EQ(h.active[i].owner_pid.load(), 0u) << "slot " << i << " is free for any process again";
    EXPECT_EQ(h.active[i].owner_tid.load(), 0u);
    EXPECT_EQ(h.active[i].totals[static_cast<int>(Routine::Gemv)][static_cast<int>(Precision::D)].calls.load(), 0u);
  }
  EXPECT_EQ(h.active[2].owner_pid.load(), alive);
  const auto totals = buffer.process_totals();
  const auto gemv = [&totals](std::uint32_t pid) {
    return totals.at(pid)[static_cast<int>(Routine::Gemv)][static_cast<int>(Precision::D)].calls;
  };
  EXPECT_EQ(gemv(dead), 12u) << "both slots' calls, kept after the slots went back";
  EXPECT_EQ(gemv(alive), 11u);
  EXPECT_EQ(gemv(0), 2u) << "calls of threads without a slot are no process's";
  buffer.reclaim_slots_of_dead_processes();
  EXPECT_EQ(buffer.process_totals().at(dead)[static_cast<int>(Routine::Gemv)][static_cast<int>(Precision::D)].calls,
            12u)
      << "counted once";
}

// Bytes of the buffer file backed by pages.
std::uint64_t allocated_bytes(const SharedBuffer& buffer) {
  struct stat st {};
  if (::stat(buffer.path().c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

std::uint64_t ring_offset(SharedBuffer& buffer) {
  return static_cast<std::uint64_t>(reinterpret_cast<char*>(&buffer.header().ring[0]) -
                                    reinterpret_cast<char*>(&buffer.header()));
}

// Publishes `count` calls in the ring's first entries, as writers do, and drains them.
std::size_t publish_and_drain(SharedBuffer& buffer, std::uint64_t count) {
  SharedHeader& h = buffer.header();
  for (std::uint64_t i = 0; i < count; ++i) {
    h.ring[i].call = call_with_id(i + 1);
    h.ring[i].call.ring_seal = static_cast<std::uint32_t>(i + 1);
  }
  h.write_index.store(count);
  DrainedVector out;
  buffer.drain(out);
  return out.size();
}

TEST(SharedBufferGrowth, TheRingGrowsToItsCapacityWhileWritersStayWithinWhatIsAllocated) {
  SharedBuffer buffer(false);
  SharedHeader& h = buffer.header();
  report_ring_full(h);  // as a writer that found the ring full
  // Sampled while it grows: a writer may never be let past the pages allocated.
  for (int i = 0; i < 200000 && buffer.ring_allocated() < kRingCapacity; ++i) {
    const std::uint64_t limit = h.write_limit.load();
    ASSERT_LE(limit, buffer.ring_allocated());
    ASSERT_GE(allocated_bytes(buffer), ring_offset(buffer) + limit * sizeof(RingEntry));
  }
  EXPECT_EQ(buffer.growth_error(), "");
  EXPECT_EQ(buffer.ring_allocated(), kRingCapacity);
  EXPECT_EQ(h.write_limit.load(), std::uint64_t{kRingCapacity}) << "nothing drained yet: one full ring";
  EXPECT_GE(allocated_bytes(buffer), kSharedBytes);

  // Draining raises the limit by what was drained.
  EXPECT_EQ(publish_and_drain(buffer, 5), 5u);
  EXPECT_EQ(h.write_limit.load(), std::uint64_t{kRingCapacity} + 5);
}

TEST(SharedBufferGrowth, ARingThatCannotGrowHoldsWritersAtWhatIsAllocated) {
  constexpr std::uint64_t kCannotPass = 12288;  // as if /dev/shm filled up there
  SharedBuffer buffer(false, kCannotPass);
  report_ring_full(buffer.header());
  for (int i = 0; i < 5000 && buffer.ring_allocated() < kCannotPass; ++i) ::usleep(1000);
  EXPECT_EQ(buffer.growth_error(), "limited to 12288 entries");
  EXPECT_EQ(buffer.ring_allocated(), kCannotPass);
  SharedHeader& h = buffer.header();
  EXPECT_EQ(h.write_limit.load(), kCannotPass);
  EXPECT_LT(allocated_bytes(buffer), kSharedBytes) << "the rest of the ring has no pages";
  // Draining does not lift the limit past the allocation: the ring would wrap into holes.
  EXPECT_EQ(publish_and_drain(buffer, 3), 3u);
  EXPECT_EQ(h.write_limit.load(), kCannotPass);
}

// Whether the recorder's wake-up event fires within `ms`, emptying it.
bool full_ring_event_fires(const SharedBuffer& buffer, int ms) {
  pollfd event{buffer.full_ring_event(), POLLIN, 0};
  if (::poll(&event, 1, ms) != 1) return false;
  std::uint64_t count = 0;
  return ::read(buffer.full_ring_event(), &count, sizeof count) == sizeof count && count > 0;
}

TEST(SharedBufferGrowth, AFullRingWakesTheRecorderOnceUntilItDrains) {
  SharedBuffer buffer(false);
  ASSERT_TRUE(buffer.wakes_when_full());
  SharedHeader& h = buffer.header();
  EXPECT_FALSE(full_ring_event_fires(buffer, 20)) << "nothing is full yet";
  report_ring_full(h);
  EXPECT_TRUE(full_ring_event_fires(buffer, 5000));
  EXPECT_EQ(buffer.ring_allocated(), kRingCapacity) << "grown before the recorder is woken";
  // Writers still finding it full before the drain wake nobody again.
  for (int i = 0; i < 100; ++i) report_ring_full(h);
  EXPECT_FALSE(full_ring_event_fires(buffer, 20));
  DrainedVector none;
  EXPECT_EQ(buffer.drain(none), 0u);
  EXPECT_EQ(h.ring_full.load(), kRingReported) << "a drain that freed nothing leaves the report standing";
  EXPECT_EQ(publish_and_drain(buffer, 2), 2u);
  EXPECT_EQ(h.ring_full.load(), kRingNotFull) << "the drain that made room answers the report";
  report_ring_full(h);
  EXPECT_TRUE(full_ring_event_fires(buffer, 5000)) << "a ring full again after a drain wakes the recorder again";
  buffer.stop_growing();
  EXPECT_EQ(h.ring_full.load(), kRingUnserved);
  report_ring_full(h);  // a writer outliving the recorder's loop wakes nothing
  EXPECT_FALSE(full_ring_event_fires(buffer, 20));
}

TEST(SharedBufferGrowth, UnwantedTheRingKeepsItsFirstEntriesAndStopsAtOnce) {
  SharedBuffer buffer(false);
  ::usleep(20000);  // the grower waits for a writer that needs more room; none comes
  EXPECT_EQ(buffer.ring_allocated(), 4096u);
  EXPECT_EQ(buffer.header().write_limit.load(), 4096u);
  EXPECT_LT(allocated_bytes(buffer), kSharedBytes);
  EXPECT_GE(allocated_bytes(buffer), ring_offset(buffer) + 4096 * sizeof(RingEntry));
  buffer.stop_growing();  // the program ended: the waiting grower ends too (no hang here)
  EXPECT_EQ(buffer.ring_allocated(), 4096u);
  EXPECT_EQ(buffer.growth_error(), "") << "stopped, not failed";
}

TEST(AbandonedBuffers, OnlyOldBuffersThatNoRecorderHoldsAreRemoved) {
  char made[] = "/tmp/blasscope-buffers-XXXXXX";
  ASSERT_TRUE(::mkdtemp(made));
  const std::string dir = made;
  const auto file = [&dir](const std::string& name, bool old) {
    const std::string path = dir + "/" + name;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (old) {
      const timespec an_hour_ago[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
      ::futimens(fd, an_hour_ago);
    }
    return fd;
  };
  ::close(file("blasscope-buffer-abcdef", true));
  ::close(file("blasscope-buffer-madeit", false));  // its recorder has not locked it yet
  ::close(file("someone-elses-file", true));
  // Sessions are named blasscope-record-*, and a recording's own part file is longer: neither
  // is a buffer, however old and unlocked.
  ::close(file("blasscope-record-vm-733.json", true));
  ::close(file("blasscope-buffer-abcdef.json.Q1w2E3.part", true));
  const int held = file("blasscope-buffer-holdit", true);  // a recorder still running holds its lock
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  EXPECT_EQ(remove_abandoned_buffers(dir, std::chrono::minutes(1)), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/blasscope-buffer-abcdef"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/blasscope-buffer-madeit"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/someone-elses-file"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/blasscope-record-vm-733.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/blasscope-buffer-abcdef.json.Q1w2E3.part"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/blasscope-buffer-holdit"));
  ::close(held);  // the recorder is gone: its buffer goes at the next sweep
  EXPECT_EQ(remove_abandoned_buffers(dir, std::chrono::minutes(1)), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/blasscope-buffer-holdit"));
  EXPECT_EQ(remove_abandoned_buffers(dir + "/missing", std::chrono::minutes(1)), 0u);
  std::filesystem::remove_all(dir);
}

TEST(AbandonedBuffers, ALiveRecordersBufferIsKeptWhateverItsAge) {
  SharedBuffer buffer(false, 4096);
  const std::string path = buffer.path();
  const std::string dir = path.substr(0, path.rfind('/'));
  const timespec an_hour_ago[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), an_hour_ago, 0), 0);
  remove_abandoned_buffers(dir, std::chrono::minutes(1));  // old, but held
  EXPECT_TRUE(std::filesystem::exists(path)) << "held by this recorder";
}

}  // namespace
}  // namespace blasscope::record

namespace blasscope::record {
namespace {

void register_entry(SharedHeader& h, std::uint32_t pid, const std::string& command, bool blas_found) {
  ProcessEntry& e = h.processes[h.process_count.fetch_add(1)];
  std::memset(e.command, 0, sizeof e.command);
  std::memcpy(e.command, command.data(), std::min(command.size(), sizeof e.command - 1));
  e.parent_pid.store(1);
  e.blas_found.store(blas_found ? 1 : 0);
  e.pid.store(pid);
}

TEST(ProcessList, OneEntryAProcessTheWholeCommandLineAndWhenItWasSeen) {
  SharedBuffer buffer(false);
  SharedHeader& h = buffer.header();
  const auto self = static_cast<std::uint32_t>(::getpid());
  // A child that is gone by the time the recorder looks, whose command filled the table's 115
  // characters: nothing more can be read of it.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ::waitpid(gone, nullptr, 0);
  register_entry(h, self, "before exec", true);
  register_entry(h, static_cast<std::uint32_t>(gone), std::string(200, 'x'), false);
  register_entry(h, self, "after exec", false);  // this process exec'd: the same pid again
  std::vector<ProcessInfo> processes;
  collect_processes(h, 1000, processes);
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0].pid, self);
  EXPECT_TRUE(processes[0].blas_found) << "found in it before the exec";
  EXPECT_EQ(processes[0].registered, "after exec");
  EXPECT_EQ(processes[0].argv, command_line_of(self)) << "read whole from /proc while it runs";
  EXPECT_FALSE(processes[0].argv.empty());
  EXPECT_EQ(processes[1].command, std::string(sizeof ProcessEntry{}.command - 1, 'x') + "…");
  EXPECT_TRUE(processes[1].argv.empty());
  EXPECT_EQ(processes[1].last_seen_ns, 0u) << "never seen alive";
  // Seen again later: first seen stays, last seen moves (only while it lives).
  collect_processes(h, 5000, processes);
  EXPECT_EQ(processes[0].first_seen_ns, 1000u);
  EXPECT_EQ(processes[0].last_seen_ns, 5000u);
  EXPECT_EQ(processes[1].first_seen_ns, 1000u);
  EXPECT_EQ(processes[1].last_seen_ns, 0u);
}

TEST(ProcessList, AProcessGoneBeforeItWasReadHasTheArgumentsItsPreloadRegistered) {
  SharedBuffer buffer(false);
  SharedHeader& h = buffer.header();
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ::waitpid(gone, nullptr, 0);
  // "python3 -c x 'a b'": the preload marks where the NULs were; the space in "a b" is not one.
  register_entry(h, static_cast<std::uint32_t>(gone), "python3 -c x a b", false);
  ProcessEntry& e = h.processes[0];
  for (const std::size_t end : {7, 10, 12}) e.argument_ends[end / 8] |= static_cast<std::uint8_t>(1u << (end % 8));
  e.command_whole = 1;
  std::vector<ProcessInfo> processes;
  collect_processes(h, 1000, processes);
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].argv, (std::vector<std::string>{"python3", "-c", "x", "a b"}));
  EXPECT_EQ(processes[0].command, "python3 -c x 'a b'");
  // Not marked whole (cut to fit): its arguments are not known.
  SharedBuffer cut_buffer(false);
  register_entry(cut_buffer.header(), static_cast<std::uint32_t>(gone), "python3 -c x a b", false);
  processes.clear();
  collect_processes(cut_buffer.header(), 1000, processes);
  EXPECT_TRUE(processes[0].argv.empty());
}

// A program (pid 10) with one child (pid 11) that made a DGESDD with 2,000 calls inside it
// not listed, and the child's exact totals as the recorder kept them when `exact`.
Recording program_with_a_child(bool exact) {
  Recording r;
  r.pid = 10;
  r.processes = {ProcessInfo{}, ProcessInfo{}};
  r.processes[0].pid = 10;
  r.processes[1].pid = 11;
  CallRecord svd;
  svd.id = 1, svd.pid = 11, svd.routine = Routine::Gesdd, svd.unlisted = 2000;
  r.calls = {svd};
  if (exact) {
    RoutineTotal gesdd, gemv;
    gesdd.routine = Routine::Gesdd, gesdd.calls = 1;
    gemv.routine = Routine::Gemv, gemv.calls = 2000;
    r.process_routines[11] = {gesdd, gemv};
  }
  return r;
}

// The child's recording, with its calls as the program's recording lists them.
Recording child_of(const Recording& r) {
  return child_recording(r, r.processes[1], calls_of_process(r, r.processes[1].pid));
}

TEST(ChildRecordings, AChildHasTheTotalsKeptForItsProcessOrSaysWhatItsSumLeavesOut) {
  Recording r = program_with_a_child(true);
  Recording child = child_of(r);
  EXPECT_EQ(child.calls.size(), 1u);
  EXPECT_EQ(child.calls_total, 2001u);
  EXPECT_EQ(child.calls_unlisted, 2000u);
  EXPECT_EQ(child.problem, "");

  RoutineTotal no_slot;  // a thread past the table's slots made a call: no process's
  no_slot.routine = Routine::Gemm, no_slot.calls = 1;
  r.process_routines[0] = {no_slot};
  child = child_of(r);
  EXPECT_NE(child.problem.find("no free slot"), std::string::npos) << child.problem;

  child = child_of(program_with_a_child(false));  // an older recording's child
  EXPECT_EQ(child.calls_total, 1u);
  EXPECT_NE(child.problem.find("2000 calls made inside them"), std::string::npos) << child.problem;
}

// The recorder's last look: a child that has ended but that nobody reaped (its parent stopped
// or gone) is gone, not "still running"; while recording it still counts as alive.
TEST(ProcessAlive, AZombieIsGoneOnlyWhereZombiesAreGone) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::prctl(PR_SET_NAME, ") Z (x", 0, 0, 0);  // a name that looks like the state field
    ::pause();
    ::_exit(0);
  }
  const auto pid = static_cast<std::uint32_t>(child);
  EXPECT_TRUE(process_alive(pid, true));
  EXPECT_TRUE(process_alive(pid, false));
  ::kill(child, SIGKILL);
  // Ended, not reaped: a zombie until waitpid below.
  for (int i = 0; i < 2000 && process_alive(pid, true); ++i) ::usleep(1000);
  EXPECT_FALSE(process_alive(pid, true));
  EXPECT_TRUE(process_alive(pid, false));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(process_alive(pid, false));
}

}  // namespace
}  // namespace blasscope::record
