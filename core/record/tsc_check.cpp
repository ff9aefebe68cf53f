#include "record/tsc_check.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

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

bool tsc_agrees_across_cpus() {
#if defined(__x86_64__)
  if (!tsc_is_invariant()) return false;
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  // Every CPU the program could move to, not only those this thread may use now (a program may
  // widen its affinity); those its cpuset forbids are skipped: it cannot run there either. On a
  // large machine, CPUs across the whole range (where its sockets are): each move costs some
  // microseconds.
  const long configured = std::clamp<long>(::sysconf(_SC_NPROCESSORS_CONF), 1, CPU_SETSIZE);
  constexpr long kMostCpus = 64;
  const long tried = std::min(configured, kMostCpus);
  std::vector<ClockSample> samples;
  for (long i = 0; i < tried; ++i) {
    const int cpu = static_cast<int>(i * configured / tried);
    if (run_on(cpu)) samples.push_back(sample_here(cpu));
  }
  // Back where it began: the rate comes from the first CPU alone.
  if (!samples.empty() && run_on(samples.front().cpu)) samples.push_back(sample_here(samples.front().cpu));
  ::sched_setaffinity(0, sizeof allowed, &allowed);
  // Two microseconds: what a call that moves to another CPU while it runs may be timed off by.
  return tsc_samples_agree(samples, 2000.0);
#else
  return false;
#endif
}

bool tsc_agrees_across_cpus_this_boot() {
  const std::string boot = core::boot_id(), cache = core::boot_cache_path("tsc");
  if (const std::optional<std::string> known = core::read_boot_fact(cache, boot)) return *known == "same";
  const bool same = tsc_agrees_across_cpus();
  core::write_boot_fact(cache, boot, same ? "same" : "differs");
  return same;
}

}  // namespace blasscope::record
