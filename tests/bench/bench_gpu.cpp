// blasscope-bench-gpu: the GPU half measured side by side in one run, on a real device.
//  1. the device's memory bandwidth as measured here (device-to-device copy, read + write);
//  2. cuBLAS GEMM through BLAScope's plugin against a bare cublasGemmEx on the same operands;
//  3. CUPTI's overhead on a run of 100 small GEMMs (this program re-runs itself under each
//     BLASSCOPE_CUPTI setting: off, the default, kernels alone, all, api), and on bare CUDA calls;
//  4. BLAScope's CUDA DLASCL: bandwidth as a share of the measured copy bandwidth;
//  5. CPU against GPU, sgemm and dgemm, n = 1024 ... 8192, with the agreement check.
// Without a usable GPU it prints why and exits 0: there is nothing to measure.
// Usage: blasscope-bench-gpu [--quick (n up to 2048 in 5)] [--no-cupti (leave 3 out)]
//                             | --cupti (3 alone) | --cpu-vs-gpu (5 alone)
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "exec/runner.h"
#include "gpu_model/gpu_loader.h"
#include "kernels/dlascl.h"
#include "results/run_result.h"
#include "workload/workload_parser.h"

using namespace blasscope::core;

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "blasscope-bench-gpu: %s\n", what.c_str());
  std::exit(1);
}

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) die(std::string(call) + ": " + cudaGetErrorName(e) + " " + cudaGetErrorString(e));
}

void check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) die(std::string(call) + " returned cuBLAS status " + std::to_string(s));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string plugin_path() {
  const char* env = std::getenv("BLASSCOPE_GPU_PLUGIN");
  return env ? env : default_gpu_plugin_path();
}

void fill_random(HostTensor& t, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  const std::size_t count = t.storage_bytes() / item_size(t.dtype());
  if (t.dtype() == DType::Float64) {
    auto* p = reinterpret_cast<double*>(t.data());
    for (std::size_t i = 0; i < count; ++i) p[i] = dist(rng);
  } else {
    auto* p = reinterpret_cast<float*>(t.data());
    for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<float>(dist(rng));
  }
}

// Device-to-device copy of `bytes`, counting bytes read plus bytes written, in GB/s.
double measure_copy_bandwidth(std::size_t bytes) {
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc");
  check(cudaMalloc(&dst, bytes), "cudaMalloc");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int rep = 0; rep < 13; ++rep) {
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (rep >= 3) times.push_back(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / median(times) / 1e9;
}

// A bare cublasGemmEx on device copies of a, b, timed as BLAScope times it: repetitions
// enqueued back to back, each between its own pair of CUDA events.
class BareGemm {
 public:
  BareGemm(const HostTensor& a, const HostTensor& b, std::int64_t n) : m_n(n), m_double(a.dtype() == DType::Float64) {
    check(cudaStreamCreate(&m_stream), "cudaStreamCreate");
    check(cublasCreate(&m_handle), "cublasCreate");
    check(cublasSetStream(m_handle, m_stream), "cublasSetStream");
    for (auto [host, dev] : {std::pair{&a, &m_a}, std::pair{&b, &m_b}}) {
      check(cudaMalloc(dev, host->storage_bytes()), "cudaMalloc");
      check(cudaMemcpy(*dev, host->data(), host->storage_bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    check(cudaMalloc(&m_c, a.storage_bytes()), "cudaMalloc");
  }
  ~BareGemm() {
    cudaFree(m_a);
    cudaFree(m_b);
    cudaFree(m_c);
    cublasDestroy(m_handle);
    cudaStreamDestroy(m_stream);
  }
  // The device seconds of each of `reps` repetitions.
  std::vector<double> run(int reps) {
    const double alpha_d = 1, beta_d = 0;
    const float alpha_f = 1, beta_f = 0;
    const void* alpha = m_double ? static_cast<const void*>(&alpha_d) : &alpha_f;
    const void* beta = m_double ? static_cast<const void*>(&beta_d) : &beta_f;
    const cudaDataType_t type = m_double ? CUDA_R_64F : CUDA_R_32F;
    const cublasComputeType_t compute = m_double ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    const int n = static_cast<int>(m_n);
    std::vector<cudaEvent_t> events(2 * reps);
    for (auto& e : events) check(cudaEventCreate(&e), "cudaEventCreate");
    for (int rep = 0; rep < reps; ++rep) {
      check(cudaEventRecord(events[2 * rep], m_stream), "cudaEventRecord");
      check(cublasGemmEx(m_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, m_a, type, n, m_b, type, n, beta, m_c,
                         type, n, compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
      check(cudaEventRecord(events[2 * rep + 1], m_stream), "cudaEventRecord");
    }
    check(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize");
    std::vector<double> seconds;
    for (int rep = 0; rep < reps; ++rep) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, events[2 * rep], events[2 * rep + 1]), "cudaEventElapsedTime");
      seconds.push_back(ms / 1e3);
    }
    for (auto e : events) cudaEventDestroy(e);
    return seconds;
  }

 private:
  std::int64_t m_n;
  bool m_double;
  cudaStream_t m_stream{};
  cublasHandle_t m_handle{};
  void *m_a = nullptr, *m_b = nullptr, *m_c = nullptr;
};

void bench_gemm_overhead(GpuBackend& gpu) {
  std::printf(
      "\n2. cuBLAS GEMM through BLAScope vs a bare cublasGemmEx (column-major, C = A B; CUDA-event time\n"
      "   of each repetition, back to back; median over 5 alternating rounds)\n");
  std::printf("   dtype     n      bare          BLAScope      ratio\n");
  for (const DType dtype : {DType::Float32, DType::Float64}) {
    for (const std::int64_t n : {256, 1024, 4096}) {
      const auto un = static_cast<std::uint64_t>(n);
      HostTensor a("a", dtype, {un, un}, MemoryOrder::Fortran), b("b", dtype, {un, un}, MemoryOrder::Fortran),
          c("c", dtype, {un, un}, MemoryOrder::Fortran);
      fill_random(a, 1);
      fill_random(b, 2);
      GemmCall call{false, false, false, n, n, n, n, n, n};
      const int reps = n <= 1024 ? 51 : 11;
      GpuGemmRequest request{0, dtype, &a, &b, &c, call, 1.0, 0.0, false, reps};
      BareGemm bare(a, b, n);
      std::vector<double> bare_times, ours;
      bare.run(3);
      for (int round = 0; round < 5; ++round) {
        const KernelRecord r = gpu.gemm(request, [](const events::DeviceBuffer&) {});
        if (r.status != OpStatus::Ok) die("BLAScope GEMM failed: " + r.error.value_or("?"));
        ours.insert(ours.end(), r.seconds_each.begin(), r.seconds_each.end());
        const auto round_times = bare.run(reps);
        bare_times.insert(bare_times.end(), round_times.begin(), round_times.end());
      }
      (void)gpu.take_device_activity();
      const double tb = median(bare_times), to = median(ours);
      std::printf("   %-8s %5lld  %9.1f us  %9.1f us   %5.3f\n", std::string(name(dtype)).c_str(),
                  static_cast<long long>(n), tb * 1e6, to * 1e6, tb / to);
    }
  }
  std::printf("   ratio = bare time / BLAScope time (1.0 = no overhead; goal >= 0.98)\n");
}

// CUDA calls timed bare in a child, under its CUPTI setting: the cost CUPTI adds to each kind
// of call, apart from what BLAScope does with the records.
struct BareCallTimes {
  double launch_us = 0;  // enqueueing one 128x128 cublasSgemm (1000 back to back)
  double sync_us = 0;    // one such launch and cudaStreamSynchronize
  double event_us = 0;   // two events made, recorded, waited for, read and destroyed
  double alloc_us = 0;   // cudaMalloc + cudaFree of 64 KiB
  double copy_us = 0;    // cudaMemcpy of 64 KiB from pageable host memory
  double info_us = 0;    // cudaMemGetInfo
};

template <typename F>
double microseconds_each(int count, F&& call) {
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) call();
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / count;
}

BareCallTimes time_bare_calls() {
  constexpr int n = 128;
  BareCallTimes t;
  cublasHandle_t handle{};
  check(cublasCreate(&handle), "cublasCreate");
  float *a = nullptr, *c = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&a), sizeof(float) * n * n), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&c), sizeof(float) * n * n), "cudaMalloc");
  const float one = 1, zero = 0;
  auto gemm = [&] {
    check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n), "cublasSgemm");
  };
  gemm();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  t.launch_us = microseconds_each(1000, gemm);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  t.sync_us = microseconds_each(200, [&] {
    gemm();
    check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  });
  t.event_us = microseconds_each(200, [&] {
    cudaEvent_t e[2];
    check(cudaEventCreate(&e[0]), "cudaEventCreate");
    check(cudaEventCreate(&e[1]), "cudaEventCreate");
    check(cudaEventRecord(e[0]), "cudaEventRecord");
    check(cudaEventRecord(e[1]), "cudaEventRecord");
    check(cudaEventSynchronize(e[1]), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e[0], e[1]), "cudaEventElapsedTime");
    cudaEventDestroy(e[0]);
    cudaEventDestroy(e[1]);
  });
  t.alloc_us = microseconds_each(200, [] {
    void* p = nullptr;
    check(cudaMalloc(&p, 65536), "cudaMalloc");
    check(cudaFree(p), "cudaFree");
  });
  std::vector<float> host(16384, 1.0f);
  t.copy_us =
      microseconds_each(200, [&] { check(cudaMemcpy(c, host.data(), 65536, cudaMemcpyHostToDevice), "cudaMemcpy"); });
  t.info_us = microseconds_each(200, [] {
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  });
  cudaFree(a);
  cudaFree(c);
  cublasDestroy(handle);
  return t;
}

// One child: `count` small GEMMs through the runner, in this process, timed as a whole run
// (median of 3, after two warm-up runs: module loads, handle, clocks up). Then the same runs
// with tracing paused and resumed in turn (8 pairs: the ratio without the noise between
// processes), then bare calls.
int cupti_child(int count) {
  std::string ops;
  for (int i = 0; i < count; ++i) ops += std::string(i ? "," : "") + R"({"op": "gemm", "a": "a", "b": "b"})";
  const std::string text = R"({"name": "small", "tensors": {"a": {"shape": [128, 128], "dtype": "float32"},
      "b": {"shape": [128, 128], "dtype": "float32", "seed": 2}}, "ops": [)" +
                           ops + "]}";
  const Workload w = parse_workload_text(text, "/");
  RunOptions options;
  options.device = DeviceChoice::Gpu;
  RunResult r;
  auto timed_run = [&] {
    RunCollector collector;
    const auto start = Clock::now();
    run_workload(w, options, collector);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r = collector.finish();
    return seconds;
  };
  timed_run();
  timed_run();
  std::vector<double> seconds;
  for (int run = 0; run < 3; ++run) seconds.push_back(timed_run());
  std::size_t kernels = 0, failed = 0;
  std::uint64_t dropped = 0;
  for (const auto& op : r.ops) {
    failed += op.status != OpStatus::Ok;
    for (const auto& e : op.device_events) kernels += e.kind == "kernel";
    dropped = std::max(dropped, op.cupti_dropped);
  }
  double paired = -1;  // median of traced / paused over the pairs; -1: not measured
  void* plugin = ::dlopen(plugin_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  auto* pause = plugin ? reinterpret_cast<int (*)(int)>(::dlsym(plugin, "blasscope_gpu_pause_tracing")) : nullptr;
  const char* setting = std::getenv("BLASSCOPE_CUPTI");
  if (pause && !(setting && std::strcmp(setting, "0") == 0)) {
    std::vector<double> ratios;
    for (int pair = 0; pair < 8; ++pair) {
      double traced = 0, paused = 0;
      for (int half = 0; half < 2; ++half) {
        const bool pausing = (half == 0) == (pair % 2 == 0);
        if (pause(pausing ? 1 : 0) != 0) die("CUPTI refused to pause or resume tracing");
        (pausing ? paused : traced) = timed_run();
      }
      if (pause(0) != 0) die("CUPTI refused to resume tracing");
      ratios.push_back(traced / paused);
    }
    paired = median(ratios);
  }
  const BareCallTimes bare = time_bare_calls();
  std::printf("%.6f %zu %zu %llu %.5f %.3f %.3f %.3f %.3f %.3f %.3f\n", median(seconds), kernels, failed,
              static_cast<unsigned long long>(dropped), paired, bare.launch_us, bare.sync_us, bare.event_us,
              bare.alloc_us, bare.copy_us, bare.info_us);
  return 0;
}

struct ChildResult {
  double seconds = 0, paired = -1;
  std::size_t kernels = 0, failed = 0;
  unsigned long long dropped = 0;
  BareCallTimes bare;
};

// `cupti`: the child's BLASSCOPE_CUPTI ("0" off, "" the default tracing, or a kind list).
ChildResult run_child(const char* self, const std::string& cupti, int count) {
  const std::string command = "BLASSCOPE_CUPTI=" + cupti + " '" + self + "' --cupti-child " + std::to_string(count);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) die("cannot start " + command);
  ChildResult r;
  BareCallTimes& b = r.bare;
  const int fields =
      std::fscanf(pipe, "%lf %zu %zu %llu %lf %lf %lf %lf %lf %lf %lf", &r.seconds, &r.kernels, &r.failed, &r.dropped,
                  &r.paired, &b.launch_us, &b.sync_us, &b.event_us, &b.alloc_us, &b.copy_us, &b.info_us);
  if (::pclose(pipe) != 0 || fields != 11) die("the child run failed: " + command);
  return r;
}

// "median (low .. high)" of a sample, as percentages.
std::string percent_spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  char text[96];
  std::snprintf(text, sizeof text, "%+6.1f%% (%+.1f .. %+.1f)", median(v) * 100, v.front() * 100, v.back() * 100);
  return text;
}

void bench_cupti_overhead(const char* self) {
  struct Setting {
    const char* env;
    const char* name;
  };
  const Setting settings[] = {{"0", "tracing off"},
                              {"", "default (kernels)"},
                              {"kernel,overhead", "kernels and CUPTI's overhead records"},
                              {"all", "all (+ copies, memsets, allocations)"},
                              {"api", "api (all + every CUDA call)"}};
  constexpr int kSettings = sizeof settings / sizeof settings[0];
  constexpr int kRounds = 11, kCount = 100;
  std::printf(
      "\n3. CUPTI's overhead on runs of %d GEMMs of 128x128 float32 through the runner (whole run; each child:\n"
      "   median of 3 runs after 2 warm-up runs), %d rounds of one child per setting. Between processes:\n"
      "   median of the rounds' ratios to tracing off (lowest .. highest). In one process: tracing paused\n"
      "   and resumed run by run (8 pairs a child), median over the children (lowest .. highest)\n",
      kCount, kRounds);
  std::vector<double> seconds[kSettings], ratio[kSettings], paired[kSettings];
  std::vector<BareCallTimes> bare[kSettings];
  ChildResult last[kSettings];
  for (int round = 0; round < kRounds; ++round) {
    ChildResult got[kSettings];
    for (int k = 0; k < kSettings; ++k) {  // each round starts at another setting
      const int i = (k + round) % kSettings;
      got[i] = run_child(self, settings[i].env, kCount);
    }
    for (int i = 0; i < kSettings; ++i) {
      seconds[i].push_back(got[i].seconds);
      ratio[i].push_back(got[i].seconds / got[0].seconds - 1);
      if (got[i].paired > 0) paired[i].push_back(got[i].paired - 1);
      bare[i].push_back(got[i].bare);
      last[i] = got[i];
    }
  }
  std::size_t failed = 0;
  std::printf(
      "   setting                                                    run      kernels  between processes"
      "                      in one process\n");
  for (int i = 0; i < kSettings; ++i) {
    failed += last[i].failed;
    std::printf("   %-57s %6.2f ms  %4zu", settings[i].name, median(seconds[i]) * 1e3, last[i].kernels);
    if (i != 0) {
      const double per_gemm = (median(seconds[i]) - median(seconds[0])) / kCount * 1e6;
      std::printf("  %s, %5.1f us a GEMM", percent_spread(ratio[i]).c_str(), per_gemm);
      if (!paired[i].empty()) std::printf("  %s", percent_spread(paired[i]).c_str());
      if (i == 1) std::printf("  goal <= 5%%");
    }
    std::printf("\n");
  }
  std::printf("   bare calls, medians in us: launch  launch+sync  events  malloc+free  64 KiB copy  cudaMemGetInfo\n");
  for (int i = 0; i < kSettings; ++i) {
    auto med = [&](double BareCallTimes::*field) {
      std::vector<double> v;
      for (const auto& b : bare[i]) v.push_back(b.*field);
      return median(v);
    };
    std::printf("   %-29s %6.2f  %11.2f  %6.2f  %11.2f  %11.2f  %14.2f\n",
                settings[i].env[0] ? settings[i].env : "(default)", med(&BareCallTimes::launch_us),
                med(&BareCallTimes::sync_us), med(&BareCallTimes::event_us), med(&BareCallTimes::alloc_us),
                med(&BareCallTimes::copy_us), med(&BareCallTimes::info_us));
  }
  std::printf("   failed ops: %zu\n", failed);
}

void bench_lascl(GpuBackend& gpu, double copy_gbs) {
  std::printf("\n4. BLAScope's CUDA DLASCL (cfrom 3, cto 5), medians of 11; bandwidth counts read + write\n");
  std::printf("   type  dtype     m x n              GB     time        GB/s    of copy bandwidth\n");
  struct Case {
    char type;
    DType dtype;
    std::uint64_t m, n;
  };
  for (const Case c : {Case{'G', DType::Float64, 16384, 8192}, Case{'G', DType::Float32, 16384, 16384},
                       Case{'G', DType::Float64, 100, 1 << 20}, Case{'G', DType::Float32, 100, 1 << 21},
                       Case{'G', DType::Float64, 1 << 27, 1}, Case{'U', DType::Float64, 16384, 8192}}) {
    HostTensor a("a", c.dtype, {c.m, c.n}, MemoryOrder::Fortran);
    fill_random(a, 3);
    const bool is_double = c.dtype == DType::Float64;
    std::vector<double> muls;
    if (is_double) {
      for (double v : lascl_multipliers<double>(3.0, 5.0)) muls.push_back(v);
    } else {
      for (float v : lascl_multipliers<float>(3.0f, 5.0f)) muls.push_back(v);
    }
    GpuLasclRequest request{0,
                            &a,
                            c.type,
                            static_cast<std::int64_t>(c.m),
                            static_cast<std::int64_t>(c.n),
                            static_cast<std::int64_t>(c.m),
                            muls,
                            11};
    const KernelRecord r = gpu.lascl(request, [](const events::DeviceBuffer&) {});
    (void)gpu.take_device_activity();
    if (r.status != OpStatus::Ok) die("BLAScope DLASCL failed: " + r.error.value_or("?"));
    const double touched = static_cast<double>(c.m) * static_cast<double>(c.n) * item_size(c.dtype) *
                           (c.type == 'U' ? 0.5 * (1 + 1.0 / static_cast<double>(c.m)) : 1.0);
    const double gbs = 2 * touched / *r.device_seconds / 1e9;
    std::printf("   %c     %-8s %7llu x %-8llu %6.2f  %8.1f us  %7.0f  %5.1f%%\n", c.type,
                std::string(name(c.dtype)).c_str(), static_cast<unsigned long long>(c.m),
                static_cast<unsigned long long>(c.n), touched / 1e9, *r.device_seconds * 1e6, gbs,
                100 * gbs / copy_gbs);
  }
  std::printf("   goal: >= 85%% of the copy bandwidth on the large matrices\n");
}

void bench_cpu_vs_gpu(int largest) {
  std::printf("\n5. CPU (OpenBLAS) vs GPU (cuBLAS), C = A B row-major, through the runner (--device both)\n");
  std::printf("   kernel        n      CPU          GPU (kernel)   speed-up   max rel diff  tolerance  agree\n");
  for (const char* dtype : {"float32", "float64"}) {
    for (int n = 1024; n <= largest; n *= 2) {
      const std::string shape = "[" + std::to_string(n) + ", " + std::to_string(n) + "]";
      const std::string text = std::string(R"({"name": "cmp", "tensors": {"a": {"shape": )") + shape +
                               R"(, "dtype": ")" + dtype + R"("}, "b": {"shape": )" + shape + R"(, "dtype": ")" +
                               dtype + R"(", "seed": 2}}, "ops": [{"op": "gemm", "a": "a", "b": "b", "repeat": 3}]})";
      RunOptions options;
      options.device = DeviceChoice::Both;
      RunCollector collector;
      run_workload(parse_workload_text(text, "/"), options, collector);
      const RunResult r = collector.finish();
      if (r.comparisons.empty()) {
        for (const auto& op : r.ops) {
          if (op.status != OpStatus::Ok)
            die(blasscope::core::text(op.device) + " GEMM failed: " + op.error.value_or("?"));
        }
        die("no comparison was made");
      }
      const DeviceComparison& c = r.comparisons.front();
      std::printf("   %sgemm  %6d  %9.2f ms  %9.3f ms   %8.1fx   %.2e     %.1e   %s\n", dtype[5] == '3' ? "s" : "d", n,
                  c.cpu_seconds.value_or(0) * 1e3, c.gpu_seconds.value_or(0) * 1e3, c.speedup.value_or(0),
                  c.max_rel_diff, c.tolerance, c.agree ? "yes" : "NO");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  setenv("BLASSCOPE_GPU_PLUGIN", plugin_path().c_str(), 0);
  if (argc > 2 && std::strcmp(argv[1], "--cupti-child") == 0) return cupti_child(std::atoi(argv[2]));
  auto has = [&](const char* flag) {
    return std::find_if(argv + 1, argv + argc, [&](const char* a) { return std::strcmp(a, flag) == 0; }) != argv + argc;
  };
  const bool quick = has("--quick"), no_cupti = has("--no-cupti");
  if (has("--cpu-vs-gpu")) {  // section 5 alone
    bench_cpu_vs_gpu(8192);
    return 0;
  }
  GpuLoad load = load_gpu_backend(plugin_path());
  if (!load.backend) {
    std::printf("blasscope-bench-gpu: nothing to measure: %s\n", load.reason.c_str());
    return 0;
  }
  if (has("--cupti")) {  // section 3 alone
    bench_cupti_overhead(argv[0]);
    return 0;
  }
  GpuBackend& gpu = *load.backend;
  const GpuDeviceInfo info = gpu.device();
  std::printf("device: %s (compute %d.%d, %d SMs, %.1f GiB), driver %d, runtime %d, CUPTI: %s\n", info.name.c_str(),
              info.compute_major, info.compute_minor, info.sm_count, info.memory_total / 1073741824.0,
              info.driver_version, info.runtime_version, info.cupti.c_str());
  const double copy_gbs = measure_copy_bandwidth(std::size_t{1} << 30);
  std::printf(
      "\n1. memory bandwidth: device-to-device copy of 1 GiB: %.0f GB/s measured (read + write); the "
      "estimate from clocks and bus width is %.0f GB/s\n",
      copy_gbs, info.bandwidth_gbytes);
  bench_gemm_overhead(gpu);
  if (!no_cupti) bench_cupti_overhead(argv[0]);
  bench_lascl(gpu, copy_gbs);
  bench_cpu_vs_gpu(quick ? 2048 : 8192);
  return 0;
}
