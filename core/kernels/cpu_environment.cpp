#include "kernels/cpu_environment.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <thread>

#include "kernels/boot_cache.h"
#include "kernels/host_memory.h"

namespace blasscope::core {
namespace {

std::string cpuinfo_field(const std::string& field) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return {};
}

std::vector<std::string> simd_features() {
  std::vector<std::string> found;
  __builtin_cpu_init();
  const std::pair<const char*, bool> features[] = {
      {"sse4_2", __builtin_cpu_supports("sse4.2")},     {"avx", __builtin_cpu_supports("avx")},
      {"avx2", __builtin_cpu_supports("avx2")},         {"fma", __builtin_cpu_supports("fma")},
      {"avx512f", __builtin_cpu_supports("avx512f")},   {"avx512bw", __builtin_cpu_supports("avx512bw")},
      {"avx512vl", __builtin_cpu_supports("avx512vl")}, {"avx512bf16", __builtin_cpu_supports("avx512bf16")}};
  for (const auto& [name, present] : features) {
    if (present) found.emplace_back(name);
  }
  return found;
}

int cpu_simd_level(const std::vector<std::string>& simd) {
  auto has = [&](const char* f) { return std::find(simd.begin(), simd.end(), f) != simd.end(); };
  if (has("avx512f")) return 3;
  if (has("avx2") && has("fma")) return 2;
  if (has("avx")) return 1;
  return 0;
}

std::string parallel_mode(int mode) {
  switch (mode) {
    case 0: return "sequential";
    case 1: return "pthreads";
    case 2: return "OpenMP";
    default: return "unknown";
  }
}

// OpenBLAS's own description of itself, where this process has it loaded: looked up, not
// linked, so that a program that never runs a kernel (the recorder, blasscope-cli's `record`)
// does not load OpenBLAS for it (its load and start cost every recording ~6-10 ms).
template <typename Function>
Function* openblas_function(const char* name) {
  return reinterpret_cast<Function*>(::dlsym(RTLD_DEFAULT, name));
}

void describe_openblas(CpuEnvironment& env) {
  if (auto* config = openblas_function<char*()>("openblas_get_config")) env.openblas_config = config();
  if (auto* corename = openblas_function<char*()>("openblas_get_corename")) env.openblas_corename = corename();
  if (auto* threads = openblas_function<int()>("openblas_get_num_threads")) env.openblas_threads = threads();
  if (auto* parallel = openblas_function<int()>("openblas_get_parallel")) {
    env.openblas_parallel = parallel_mode(parallel());
  }
}

const char* level_name(int level) {
  static const char* const kNames[] = {"SSE", "AVX", "AVX2", "AVX-512"};
  return level >= 0 && level < 4 ? kNames[level] : "unknown";
}

}  // namespace

// "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz": the clock after the '@'. Read by hand: building
// a std::regex for it took half of the probe's 0.9 ms, which the recorder pays before the program.
double nominal_clock_ghz(const std::string& model) {
  for (std::size_t at = model.find('@'); at != std::string::npos; at = model.find('@', at + 1)) {
    const char* begin = model.c_str() + at + 1;
    while (*begin == ' ' || *begin == '\t') ++begin;
    if (!std::isdigit(static_cast<unsigned char>(*begin))) continue;
    // from_chars: decimal only, whatever the locale (the GUI's is the system's).
    double ghz = 0;
    const char* text_end = model.c_str() + model.size();
    auto [end, error] = std::from_chars(begin, text_end, ghz, std::chars_format::fixed);
    if (error != std::errc{}) continue;
    while (*end == ' ' || *end == '\t') ++end;
    if (std::string_view(end).starts_with("GHz") && ghz > 0 && ghz < 100) return ghz;
  }
  const std::string mhz = cpuinfo_field("cpu MHz");
  double value = 0;
  const auto parsed = std::from_chars(mhz.data(), mhz.data() + mhz.size(), value, std::chars_format::fixed);
  return parsed.ec == std::errc{} && value > 0 && value < 100000 ? value / 1000.0 : 0.0;
}

double measure_clock_ghz(int rounds) {
#if defined(__x86_64__)
  // dec + jnz fuse into one micro-op that retires once per cycle on every x86-64 core
  // BLAScope targets, so iterations per second is the clock (turbo included).
  // Rounds of about 0.3 ms: the best of five is the running clock to 1e-4, and the probe stays
  // a few milliseconds (the recorder runs it after every recorded program).
  constexpr std::uint64_t kIterations = 1'000'000;
  double best = 0;
  for (int round = 0; round < rounds; ++round) {
    std::uint64_t n = kIterations;
    const auto start = std::chrono::steady_clock::now();
    asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, kIterations / seconds / 1e9);
  }
  return best;
#else
  return 0;
#endif
}

double cached_clock_ghz(const std::string& cache_file, const std::string& boot_id) {
  const std::optional<std::string> cached = read_boot_fact(cache_file, boot_id);
  double ghz = 0;
  if (!cached || std::from_chars(cached->data(), cached->data() + cached->size(), ghz).ec != std::errc{}) return 0;
  return ghz > 0 && ghz < 100 ? ghz : 0;
}

double fastest_clock_ghz(double measured_ghz, const std::string& cache_file, const std::string& boot_id) {
  if (boot_id.empty() || cache_file.empty()) return measured_ghz;
  const double fastest = std::max(measured_ghz, cached_clock_ghz(cache_file, boot_id));
  if (fastest > measured_ghz || measured_ghz <= 0) return fastest;
  char ghz[32];
  const char* end = std::to_chars(ghz, ghz + sizeof ghz, measured_ghz).ptr;  // the shortest text read back exactly
  write_boot_fact(cache_file, boot_id, std::string(ghz, static_cast<std::size_t>(end - ghz)));
  return measured_ghz;
}

double fastest_clock_this_boot_ghz(ClockProbe probe) {
  const std::string boot = boot_id(), cache = boot_cache_path("clock");
  if (cache.empty()) return measure_clock_ghz();
  const double known = cached_clock_ghz(cache, boot);
  if (known > 0 && probe == ClockProbe::KnownIfAny) return known;
  return fastest_clock_ghz(measure_clock_ghz(known > 0 ? 1 : 5), cache, boot);
}

std::string describe_kernel_mismatch(const std::string& corename, int kernel_level, int cpu_level,
                                     const std::string& coretype_env, bool dynamic_arch) {
  if (kernel_level < 0 || kernel_level >= cpu_level) return "";
  const std::string text = "OpenBLAS runs " + corename + " kernels (" + level_name(kernel_level) + ") on a CPU with " +
                           level_name(cpu_level);
  auto lower = [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t;
  };
  // The variable chooses only in a build with several sets (DYNAMIC_ARCH), and only a name it knows.
  if (dynamic_arch && !coretype_env.empty() && lower(coretype_env) == lower(corename)) {
    return text + ", because OPENBLAS_CORETYPE=" + coretype_env;
  }
  if (!dynamic_arch) return text + ", the one set this OpenBLAS was built with (no DYNAMIC_ARCH)";
  return text + ", chosen by OpenBLAS itself (" +
         (coretype_env.empty() ? std::string("OPENBLAS_CORETYPE is not set")
                               : "OPENBLAS_CORETYPE=" + coretype_env + " did not choose it") +
         ")";
}

int corename_simd_level(const std::string& corename) {
  std::string c = corename;
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return std::tolower(ch); });
  for (const char* name : {"skylakex", "cooperlake", "sapphirerapids"}) {
    if (c == name) return 3;
  }
  for (const char* name : {"haswell", "zen", "excavator"}) {
    if (c == name) return 2;
  }
  for (const char* name : {"sandybridge", "bulldozer", "piledriver", "steamroller"}) {
    if (c == name) return 1;
  }
  for (const char* name : {"nehalem", "core2", "penryn", "dunnington", "prescott", "katmai", "coppermine", "northwood",
                           "opteron", "barcelona", "atom", "nano", "bobcat"}) {
    if (c == name) return 0;
  }
  return -1;
}

std::string kernel_mismatch_of(const std::string& corename, const std::string& config, const std::string& coretype_env,
                               const CpuEnvironment& cpu) {
  return describe_kernel_mismatch(corename, corename_simd_level(corename), cpu_simd_level(cpu.simd), coretype_env,
                                  config.find("DYNAMIC_ARCH") != std::string::npos);
}

CpuEnvironment probe_cpu_environment(ClockProbe clock_probe) {
  CpuEnvironment env;
  describe_openblas(env);
  if (const char* coretype = std::getenv("OPENBLAS_CORETYPE")) env.openblas_coretype_env = coretype;
  env.has_sbgemm = ::dlsym(RTLD_DEFAULT, "cblas_sbgemm") != nullptr;
  env.cpu_model = cpuinfo_field("model name");
  env.logical_cpus = std::max(1u, std::thread::hardware_concurrency());
  env.simd = simd_features();
  env.nominal_ghz = nominal_clock_ghz(env.cpu_model);
  env.measured_ghz = fastest_clock_this_boot_ghz(clock_probe);
  const double clock = env.measured_ghz > 0 ? env.measured_ghz : env.nominal_ghz;
  const int level = cpu_simd_level(env.simd);
  // Two FMA units per core: FP64 lanes x 2 (multiply + add) x 2 units.
  static constexpr double kFp64FlopsPerCycle[] = {4, 8, 16, 32};
  env.peak_gflops_fp64 = env.logical_cpus * clock * kFp64FlopsPerCycle[level];
  env.peak_gflops_fp32 = 2 * env.peak_gflops_fp64;
  env.peak_assumption = std::string("logical CPUs x measured clock x ") + level_name(level) +
                        " FMA width x 2 FMA units (an upper bound: SMT siblings share units)";
  env.memory_total = host_memory_total();
  env.memory_available = host_memory_available();
  env.kernel_mismatch = kernel_mismatch_of(env.openblas_corename, env.openblas_config, env.openblas_coretype_env, env);
  return env;
}

}  // namespace blasscope::core
