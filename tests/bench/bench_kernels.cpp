// blasscope-bench-kernels: BLAScope's kernels against what they wrap, side by side in one run.
//  - instrumented GEMM (plan + xerbla capture + timing around cblas_dgemm) vs a direct call,
//    and the whole gemm op (which also scans inputs and output for NaN/Inf) vs a direct call;
//  - BLAScope's DLASCL vs LAPACK's dlascl_ and vs a plain copy of the same bytes;
//  - GEMM GFLOP/s as a fraction of the CPU's theoretical peak.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "exec/cpu_ops.h"
#include "kernels/cpu_environment.h"
#include "kernels/dlascl.h"
#include "kernels/gemm.h"
#include "kernels/xerbla_capture.h"
#include "workload/tensor_factory.h"
#include "workload/workload_parser.h"

using namespace blasscope::core;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(const std::function<void()>& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs the candidates in turn, `rounds` times, and returns each one's median time.
std::vector<double> side_by_side(int rounds, const std::vector<std::function<void()>>& candidates) {
  std::vector<std::vector<double>> times(candidates.size());
  for (auto& c : candidates) c();  // warm up
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < candidates.size(); ++i) times[i].push_back(seconds(candidates[i]));
  }
  std::vector<double> medians;
  for (auto& t : times) medians.push_back(median(t));
  return medians;
}

class NullSink : public EventSink {
 public:
  void publish(const RunEvent&) override {}
};

void bench_gemm(const CpuEnvironment& env) {
  std::printf(
      "\nGEMM (float64, C = A @ B, row-major)       direct      instrumented  ratio   whole op   ratio   GFLOP/s  of "
      "peak\n");
  for (const std::uint64_t n : {64u, 512u, 2048u}) {
    NullSink sink;
    RunState state(sink, std::nullopt);
    const Workload w = parse_workload_text(
        R"({"name": "b", "tensors": {"a": {"shape": [)" + std::to_string(n) + ", " + std::to_string(n) +
            R"(], "dtype": "float64"}, "b": {"shape": [)" + std::to_string(n) + ", " + std::to_string(n) +
            R"(], "dtype": "float64", "seed": 2}, "c": {"shape": [)" + std::to_string(n) + ", " + std::to_string(n) +
            R"(], "dtype": "float64"}}, "ops": [{"op": "gemm", "a": "a", "b": "b", "c": "c"}]})",
        "/");
    for (const auto& spec : w.tensors) state.adopt(make_tensor(spec), 0, "synthetic");
    HostTensor& c = state.create("direct", DType::Float64, {n, n}, MemoryOrder::C);
    const auto* a = reinterpret_cast<const double*>(state.find("a")->data());
    const auto* b = reinterpret_cast<const double*>(state.find("b")->data());
    auto* cd = reinterpret_cast<double*>(c.data());
    const int in = static_cast<int>(n);
    const MatrixView av{state.find("a")->data(), DType::Float64, n, n, MemoryOrder::C, n};
    const MatrixView bv{state.find("b")->data(), DType::Float64, n, n, MemoryOrder::C, n};
    const MatrixView cv{c.data(), DType::Float64, n, n, MemoryOrder::C, n};
    const int rounds = n <= 64 ? 2001 : n <= 512 ? 61 : 11;
    std::vector<double> instrumented_times;
    const auto t = side_by_side(
        rounds,
        {
            [&] { cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in, 1.0, a, in, b, in, 0.0, cd, in); },
            [&] {
              const GemmCall call = plan_gemm(av, false, bv, false, cv);
              XerblaCapture capture;
              const auto start = Clock::now();
              call_gemm(DType::Float64, call, 1.0, 0.0, av.data, bv.data, c.data());
              instrumented_times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
            },
            [&] { run_gemm_op(w.ops[0], state); },
        });
    const double gflops = 2.0 * n * n * n / t[1] / 1e9;
    std::printf("  n = %4llu %36s %9.3f ms  %9.3f ms  %5.3f  %8.3f ms  %5.3f  %7.1f  %5.1f%%\n",
                static_cast<unsigned long long>(n), "", t[0] * 1e3, t[1] * 1e3, t[0] / t[1], t[2] * 1e3, t[0] / t[2],
                gflops, 100.0 * gflops / env.peak_gflops_fp64);
  }
  std::printf(
      "  ratio = direct time / BLAScope time (1.00 = no overhead; goal >= 0.98 for the instrumented\n"
      "  kernel at n >= 512). 'whole op' is the workload op writing into an existing C: it adds the\n"
      "  NaN/Inf scans of A, B and C that findings rely on.\n");
}

void bench_sgemm_peak(const CpuEnvironment& env) {
  const int n = 2048;
  std::vector<float> a(static_cast<std::size_t>(n) * n, 0.5f), b(a), c(a.size());
  const auto t = side_by_side(5, {[&] {
                                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n,
                                            b.data(), n, 0.0f, c.data(), n);
                              }});
  const double gflops = 2.0 * n * n * n / t[0] / 1e9;
  std::printf("\nSGEMM n = 2048: %.1f GFLOP/s = %.1f%% of the %.0f GFLOP/s float32 peak estimate\n", gflops,
              100.0 * gflops / env.peak_gflops_fp32, env.peak_gflops_fp32);
}

void bench_dlascl() {
  const std::int64_t m = 4096, n = 2048;  // 64 MiB of float64
  const std::size_t count = static_cast<std::size_t>(m * n);
  std::vector<double> matrix(count, 1.25), copy_target(count);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("\nDLASCL, %lld x %lld float64 (%.0f MiB), %u threads for BLAScope and the threaded copy\n",
              static_cast<long long>(m), static_cast<long long>(n), count * 8.0 / (1 << 20), threads);
  std::printf("  %-26s %10s %10s %10s %10s %12s %12s\n", "cfrom -> cto", "BLAScope", "LAPACK", "memcpy",
              "copy x"
              "T",
              "vs LAPACK", "vs copy xT");
  for (const auto& [cfrom, cto] : {std::pair{3.0, 7.0}, std::pair{1e-300, 1e300}}) {
    const auto t =
        side_by_side(9, {
                            [&] { blasscope_lascl<double>('G', cfrom, cto, m, n, matrix.data(), m); },
                            [&] { lapack_lascl('G', cfrom, cto, m, n, matrix.data(), m); },
                            [&] { std::memcpy(copy_target.data(), matrix.data(), count * 8); },
                            [&] {
                              std::vector<std::jthread> pool;
                              for (unsigned w = 0; w < threads; ++w) {
                                pool.emplace_back([&, w] {
                                  const std::size_t begin = count * w / threads, end = count * (w + 1) / threads;
                                  std::memcpy(copy_target.data() + begin, matrix.data() + begin, (end - begin) * 8);
                                });
                              }
                            },
                        });
    // Keep values in range between rounds: the scale ran as many times each way.
    std::fill(matrix.begin(), matrix.end(), 1.25);
    char label[64];
    std::snprintf(label, sizeof label, "%g -> %g (%zu steps)", cfrom, cto, lascl_multipliers(cfrom, cto).size());
    std::printf("  %-26s %8.2f ms %7.2f ms %7.2f ms %7.2f ms %11.2fx %11.0f%%\n", label, t[0] * 1e3, t[1] * 1e3,
                t[2] * 1e3, t[3] * 1e3, t[1] / t[0], 100.0 * t[3] / t[0]);
  }
  std::printf("  goal: >= 1.0x LAPACK and >= 85%% of the copy's speed (the copy moves the same bytes)\n");
}

}  // namespace

int main() {
  const CpuEnvironment env = probe_cpu_environment();
  std::printf("BLAScope kernel benchmark\nCPU: %s, %u logical CPUs, %s; OpenBLAS %s kernels, %d threads\n",
              env.cpu_model.c_str(), env.logical_cpus, env.peak_assumption.c_str(), env.openblas_corename.c_str(),
              env.openblas_threads);
  std::printf("peak estimate: %.0f GFLOP/s float64, %.0f GFLOP/s float32\n", env.peak_gflops_fp64,
              env.peak_gflops_fp32);
  bench_gemm(env);
  bench_sgemm_peak(env);
  bench_dlascl();
  return 0;
}
