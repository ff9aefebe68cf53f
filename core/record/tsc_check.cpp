#include "record/tsc_check.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/boot_cache.h"
#include "record/call_clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace blasscope::record {

bool tsc_samples_agree(const std::vector<ClockSample>& samples, double tolerance_ns) {
  if (samples.size() < 2 || samples.front().cpu != samples.back().cpu) return false;
  const ClockSample& first = samples.front();
  const ClockSample& last = samples.back();
  const auto middle = [](const ClockSample& s) {
    return static_cast<double>(s.ns_before) + static_cast<double>(s.ns_after - s.ns_before) / 2;
  };
  const double span_ns = middle(last) - middle(first);
  const double span_ticks = static_cast<double>(static_cast<std::int64_t>(last.ticks - first.ticks));
  if (span_ns <= 0 || span_ticks <= 0) return false;
  const double ticks_per_ns = span_ticks / span_ns;
  for (const ClockSample& s : samples) {
    if (s.ns_after < s.ns_before) return false;
    const double expected = static_cast<double>(first.ticks) + (middle(s) - middle(first)) * ticks_per_ns;
    const double off_ns = std::abs(static_cast<double>(s.ticks) - expected) / ticks_per_ns;
    // Where within its sample the TSC was read is unknown: half its width either way, and as
    // much again for the first and last samples the rate comes from.
    const double width = static_cast<double>(s.ns_after - s.ns_before) / 2 +
                         static_cast<double>(first.ns_after - first.ns_before + last.ns_after - last.ns_before) / 2;
    if (off_ns > tolerance_ns + width) return false;
  }
  return true;
}

bool tsc_is_invariant() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1u;
#else
  return false;
#endif
}

namespace {

// The narrowest of a few reads on the CPU the thread is on now: one preempted is wide.
ClockSample sample_here(int cpu) {
  ClockSample best{cpu, 0, 0, UINT64_MAX};
  for (int i = 0; i < 5; ++i) {
    ClockSample s{cpu, monotonic_ns(), 0, 0};
    s.ticks = read_call_clock(CallClock::Tsc);
    s.ns_after = monotonic_ns();
    if (s.ns_after - s.ns_before < best.ns_after - best.ns_before) best = s;
  }
  return best;
}

bool run_on(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  // The kernel moves the thread before sched_setaffinity returns.
  return ::sched_setaffinity(0, sizeof one, &one) == 0 && ::sched_getcpu() == cpu;
}

}  // namespace

TscVerdict check_tsc_across_cpus() {
#if defined(__x86_64__)
  if (!tsc_is_invariant()) return TscVerdict::Differs;
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return TscVerdict::Unknown;
  // The CPUs the recorder, and so the program, may run on. On a large machine, some across the
  // whole range (where its sockets are): each move costs microseconds, milliseconds when busy.
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  constexpr std::size_t kMostCpus = 64;
  const bool all = cpus.size() <= kMostCpus;
  if (!all) {
    std::vector<int> spread;
    for (std::size_t i = 0; i < kMostCpus; ++i) spread.push_back(cpus[i * cpus.size() / kMostCpus]);
    cpus = std::move(spread);
  }
  std::vector<ClockSample> samples;
  for (const int cpu : cpus) {
    if (run_on(cpu)) samples.push_back(sample_here(cpu));
  }
  const std::size_t sampled = samples.size();
  // Back where it began: the rate comes from the first CPU alone.
  if (!samples.empty() && run_on(samples.front().cpu)) samples.push_back(sample_here(samples.front().cpu));
  if (::sched_setaffinity(0, sizeof allowed, &allowed) != 0) {
    // The cpuset changed meanwhile: every CPU, which the kernel narrows to those still allowed,
    // rather than leave the recorder (and the program it starts) on one.
    cpu_set_t every;
    std::memset(&every, 0xff, sizeof every);
    ::sched_setaffinity(0, sizeof every, &every);
  }
  // Two microseconds: what a call that moves to another CPU while it runs may be timed off by.
  if (!tsc_samples_agree(samples, 2000.0)) return TscVerdict::Differs;
  // Agreement seen on some of the CPUs only (one the recorder could not move to) is no verdict
  // for the boot; one CPU seen twice is one only where only one is allowed.
  if (sampled < cpus.size() || (sampled < 2 && cpus.size() > 1)) return TscVerdict::Unknown;
  // Only a check of every online CPU holds for the boot (a later recording may run elsewhere).
  const bool whole_machine = all && static_cast<long>(cpus.size()) >= ::sysconf(_SC_NPROCESSORS_ONLN);
  return whole_machine ? TscVerdict::Same : TscVerdict::SameOnThoseSeen;
#else
  return TscVerdict::Differs;
#endif
}

bool tsc_read_is_cheaper() {
#if defined(__x86_64__)
  // A hypervisor that traps RDTSC makes it cost a microsecond: then the kernel's clock it is.
  constexpr int kReads = 2000;
  std::uint64_t sink = 0;
  const std::uint64_t start = monotonic_ns();
  for (int i = 0; i < kReads; ++i) sink += read_call_clock(CallClock::Tsc);
  const std::uint64_t middle = monotonic_ns();
  for (int i = 0; i < kReads; ++i) sink += monotonic_ns();
  const std::uint64_t end = monotonic_ns();
  asm volatile("" : : "r"(sink));
  return middle - start < end - middle;
#else
  return false;
#endif
}

bool tsc_agrees_across_cpus_this_boot() {
  const std::string boot = core::boot_id(), cache = core::boot_cache_path("tsc");
  if (const std::optional<std::string> known = core::read_boot_fact(cache, boot)) return *known == "same";
  const TscVerdict verdict = tsc_read_is_cheaper() ? check_tsc_across_cpus() : TscVerdict::Differs;
  const bool same = verdict == TscVerdict::Same || verdict == TscVerdict::SameOnThoseSeen;
  // A verdict on some CPUs only holds for this recording (one started under taskset).
  if (verdict == TscVerdict::Same || verdict == TscVerdict::Differs) {
    core::write_boot_fact(cache, boot, same ? "same" : "differs");
  }
  return same;
}

}  // namespace blasscope::record
