#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blasscope::core {

// What the CPU side of a run executes on: the BLAS library and the processor.
struct CpuEnvironment {
  std::string openblas_config;        // openblas_get_config(): version and build options
  std::string openblas_corename;      // openblas_get_corename(): the kernel set in use
  std::string openblas_coretype_env;  // OPENBLAS_CORETYPE, when set
  int openblas_threads = 0;
  std::string openblas_parallel;  // "sequential", "pthreads", "OpenMP"
  bool has_sbgemm = false;
  std::string cpu_model;
  unsigned logical_cpus = 0;
  std::vector<std::string> simd;  // sse4_2, avx, avx2, fma, avx512f, ...
  double nominal_ghz = 0;         // from the model name ("@ 2.30GHz")
  double measured_ghz = 0;        // timed on a dependent instruction loop: the fastest seen since boot
  double peak_gflops_fp64 = 0;    // estimate: logical CPUs x measured clock x FLOPs/cycle of the widest FMA
  double peak_gflops_fp32 = 0;
  std::string peak_assumption;
  std::uint64_t memory_total = 0;
  std::uint64_t memory_available = 0;
  // Set when the kernels OpenBLAS uses are older than what the CPU supports (Haswell kernels
  // on an AVX-512 CPU because OPENBLAS_CORETYPE forces them; Prescott kernels on a CPU this
  // OpenBLAS does not recognise).
  std::string kernel_mismatch;
};

// How the probe gets the clock: measured (one round where this boot's fastest is known, five
// otherwise), or this boot's fastest as known, measured only where none is (the recorder, which
// pays the probe before the program starts).
enum class ClockProbe { Measure, KnownIfAny };
CpuEnvironment probe_cpu_environment(ClockProbe clock = ClockProbe::Measure);

// Cycles per second of one core, timed on a loop of one-cycle iterations: the best of
// `rounds` of about 0.3 ms each.
double measure_clock_ghz(int rounds = 5);

// The fastest of `measured_ghz` and the clocks measured before it since `boot_id` booted, as
// kept in `cache_file` (which it updates; a file that cannot be read or written is ignored).
// One short measurement can catch a core at half speed (an SMT sibling busy on a shared VM
// halved it in one run of three here), which made the estimated peak of two runs of one
// program differ by 1.8x.
double fastest_clock_ghz(double measured_ghz, const std::string& cache_file, const std::string& boot_id);
// The clock `cache_file` holds for `boot_id`, or 0.
double cached_clock_ghz(const std::string& cache_file, const std::string& boot_id);
// The same with the user's cache ($XDG_CACHE_HOME or ~/.cache, blasscope/clock) and this boot,
// measured here: five rounds the first time, then one; or, with ClockProbe::KnownIfAny, the
// cache's clock as it is wherever it has one.
double fastest_clock_this_boot_ghz(ClockProbe probe = ClockProbe::Measure);

// The clock a CPU model name states ("... @ 2.60GHz"), else /proc/cpuinfo's "cpu MHz".
double nominal_clock_ghz(const std::string& model);

// The kernel_mismatch text: empty unless `kernel_level` (corename_simd_level) is known and below
// `cpu_level`. It names OPENBLAS_CORETYPE where that chose the set (a DYNAMIC_ARCH build, the
// variable naming the set in use), else says OpenBLAS chose it, or that the build has no other.
std::string describe_kernel_mismatch(const std::string& corename, int kernel_level, int cpu_level,
                                     const std::string& coretype_env, bool dynamic_arch);

// SIMD level (0 SSE2, 1 AVX, 2 AVX2, 3 AVX-512) an OpenBLAS core name targets; -1 unknown.
int corename_simd_level(const std::string& corename);

// The kernel_mismatch text of an OpenBLAS that another process loaded (a recorded program's),
// from what it said of itself, on this machine's CPU (`cpu`, probed here).
std::string kernel_mismatch_of(const std::string& corename, const std::string& config, const std::string& coretype_env,
                               const CpuEnvironment& cpu);

}  // namespace blasscope::core
