#pragma once

// Whether calls can be timed with the TSC where the kernel keeps time with another clock (a
// VM's kvm-clock, or `tsc=unstable` on its command line): reading it costs a call 11 ns against
// 26 for clock_gettime through kvm-clock, twice a call. It can where the TSC is invariant (its
// rate does not follow the CPU's frequency) and reads the same on every CPU the program may
// run on, which is measured here against CLOCK_MONOTONIC.
#include <cstdint>
#include <vector>

namespace blasscope::record {

// Both clocks read on one CPU: the TSC between two CLOCK_MONOTONIC reads.
struct ClockSample {
  int cpu = 0;
  std::uint64_t ns_before = 0, ticks = 0, ns_after = 0;
};

// Whether the samples, taken one CPU after another and ending on the CPU they began on, have
// every CPU's TSC where the first CPU's rate between its two samples puts it, within
// `tolerance_ns` (beyond each sample's own width). False where they cannot tell: fewer than two
// samples, a sample not ending where it began, clocks that did not move forward.
bool tsc_samples_agree(const std::vector<ClockSample>& samples, double tolerance_ns);

// CPUID's invariant-TSC bit (false off x86-64).
bool tsc_is_invariant();

// What sampling the CPUs this process may run on (64 of them, spread out, where it may run on
// more) says: the same TSC on every online CPU; the same on those sampled (not all the machine's:
// under taskset, or more than 64); no verdict (a CPU the thread could not be moved to); or not the
// same. The thread's CPU affinity is restored.
enum class TscVerdict { Same, SameOnThoseSeen, Unknown, Differs };
TscVerdict check_tsc_across_cpus();

// Whether reading the TSC costs less than clock_gettime (a hypervisor may trap RDTSC).
bool tsc_read_is_cheaper();

// Whether calls can be timed with the TSC: it is cheaper to read and check_tsc_across_cpus()
// finds it the same. Checked once per boot, the verdict kept in the boot cache (boot_cache.h),
// since moving a thread to each CPU can take milliseconds on a busy machine.
bool tsc_agrees_across_cpus_this_boot();

}  // namespace blasscope::record
