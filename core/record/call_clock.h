#pragma once

// The clock calls are timed with. Where the kernel itself trusts the TSC (its clocksource is
// "tsc": invariant, synchronised across cores), the preload library reads it directly, a few
// nanoseconds against about twenty for clock_gettime; the recorder maps ticks to
// CLOCK_MONOTONIC nanoseconds afterwards from samples of both clocks taken at the start and
// the end. It is also read where the kernel keeps time with another clock but the TSC is
// invariant, cheaper to read and the same on every CPU (tsc_check.h); elsewhere calls are timed
// with CLOCK_MONOTONIC itself.
#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace blasscope::record {

enum class CallClock : std::uint32_t { MonotonicNs = 0, Tsc = 1 };

inline std::uint64_t monotonic_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t read_call_clock(CallClock clock) {
#if defined(__x86_64__)
  if (clock == CallClock::Tsc) return __rdtsc();
#endif
  (void)clock;
  return monotonic_ns();
}

}  // namespace blasscope::record
