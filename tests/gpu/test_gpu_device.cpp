// Tests that need a GPU. Where there is none they skip, printing the reason the CUDA runtime
// gave; `scripts/dev.sh gpu-test` runs them on a machine with a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "exec/gemm_prep.h"
#include "exec/runner.h"
#include "gpu_model/gpu_loader.h"
#include "kernels/dlascl.h"
#include "kernels/gemm.h"
#include "results/run_result.h"
#include "workload/workload_parser.h"

#if BLASSCOPE_TEST_CUDART
#include <cuda_runtime_api.h>
#endif

using namespace blasscope::core;

namespace {

// The plugin next to this build, unless BLASSCOPE_GPU_PLUGIN names another (a build copied to
// a GPU machine runs from another folder).
const char* plugin() {
  static const char* path =
      std::getenv("BLASSCOPE_GPU_PLUGIN") ? std::getenv("BLASSCOPE_GPU_PLUGIN") : BLASSCOPE_TEST_GPU_PLUGIN;
  return path;
}

GpuLoad& gpu() {
  static GpuLoad load = load_gpu_backend(plugin());
  return load;
}

#define REQUIRE_GPU() \
  if (!gpu().backend) GTEST_SKIP() << "no GPU to test on: " << gpu().reason;

// Runs a workload in this process; `device` overrides the ops' own (none: each op says).
RunResult run(const std::string& text, std::optional<DeviceChoice> device = DeviceChoice::Both) {
  RunCollector collector;
  RunOptions options;
  options.device = device;
  setenv("BLASSCOPE_GPU_PLUGIN", plugin(), 1);
  run_workload(parse_workload_text(text, "/"), options, collector);
  return collector.finish();
}

// Runs a workload through blasscope-cli (a worker process: a fresh CUDA context, with `env`
// before the command) and returns its `run --json` output.
nlohmann::json run_cli(const std::string& name, const std::string& workload_text, const std::string& env = "") {
  const std::filesystem::path cli =
      std::filesystem::path(plugin()).parent_path().parent_path() / "bin" / "blasscope-cli";
  const std::string workload = ::testing::TempDir() + "/" + name + ".json";
  std::ofstream(workload) << workload_text;
  const std::string command = env + " BLASSCOPE_GPU_PLUGIN='" + std::string(plugin()) + "' '" + cli.string() +
                              "' run '" + workload + "' --device gpu --json";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return {};
  std::string output;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  ::pclose(pipe);
  return nlohmann::json::parse(output, nullptr, false);
}

}  // namespace

TEST(GpuDevice, ProbeDescribesTheDevice) {
  REQUIRE_GPU();
  const GpuDeviceInfo info = gpu().backend->device();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_major, 7);
  EXPECT_GT(info.memory_total, info.memory_free / 2);
  EXPECT_GT(info.peak_gflops_fp32, 0);
  std::printf("device: %s, compute %d.%d, %d SMs, %.0f GFLOP/s fp32 peak, CUPTI: %s\n", info.name.c_str(),
              info.compute_major, info.compute_minor, info.sm_count, info.peak_gflops_fp32, info.cupti.c_str());
}

TEST(GpuDevice, GemmAgreesWithTheCpuForEveryDtypeAndLayout) {
  REQUIRE_GPU();
  for (const char* dtype : {"float32", "float64", "float16", "bfloat16", "complex64", "complex128"}) {
    for (const char* order : {"C", "F"}) {
      const std::string text =
          std::string(R"({"name": "g", "tensors": {"a": {"shape": [67, 45], "dtype": ")") + dtype + R"(", "order": ")" +
          order + R"("}, "b": {"shape": [45, 33], "dtype": ")" + dtype +
          R"(", "seed": 2, "ld": 40}}, "ops": [{"op": "gemm", "a": "a", "b": "b", "promote": true}]})";
      const RunResult r = run(text);
      ASSERT_EQ(r.comparisons.size(), 1u) << dtype << " " << order;
      EXPECT_TRUE(r.comparisons[0].agree) << dtype << " " << order << " rel " << r.comparisons[0].max_rel_diff;
      for (const auto& op : r.ops) {
        if (op.device == Device::Gpu) {
          EXPECT_EQ(op.status, OpStatus::Ok) << op.error.value_or("");
          EXPECT_TRUE(op.device_seconds.has_value());
        }
      }
    }
  }
}

TEST(GpuDevice, LasclIsBitIdenticalToTheCpuAndLapack) {
  REQUIRE_GPU();
  // Every matrix type, both precisions, one-step and multi-step multipliers, overflow to inf,
  // underflow to subnormals, and NaN/Inf in the input.
  const std::vector<const char*> double_scalings = {R"("cfrom": 3, "cto": 5)", R"("cfrom": 1e-300, "cto": 1e300)",
                                                    R"("cfrom": 1e300, "cto": 1e-300)",
                                                    R"("cfrom": 7e-20, "cto": 3e25)"};
  const std::vector<const char*> float_scalings = {R"("cfrom": 3, "cto": 5)", R"("cfrom": 1e-30, "cto": 1e30)",
                                                   R"("cfrom": 1e30, "cto": 1e-30)", R"("cfrom": 7e-20, "cto": 3e25)"};
  // Shapes for each launch path (core::lascl_launch_plan): short columns (G as one column, the
  // others the general tile walk), segments of 16 and of 8 elements a thread, 3 rows.
  for (const char* shape : {"301, 203", "4500, 9", "1500, 40", "3, 5000"}) {
    for (const char* dtype : {"float64", "float32"}) {
      for (const char* type : {"G", "L", "U", "H"}) {
        auto scalings = std::string(dtype) == "float64" ? double_scalings : float_scalings;
        if (std::string(shape) != "301, 203") scalings.resize(2);
        for (const char* scaling : scalings) {
          const RunResult r =
              run(std::string(R"({"name": "l", "tensors": {"a": {"shape": [)") + shape + R"(], "dtype": ")" + dtype +
                  R"(", "order": "F", "nan": 3, "inf": 2}}, "ops": [{"op": "dlascl", "a": "a", "type": ")" + type +
                  R"(", )" + scaling + R"(, "out": "s"}]})");
          ASSERT_EQ(r.comparisons.size(), 1u) << shape << " " << dtype << " " << type << " " << scaling;
          EXPECT_EQ(r.comparisons[0].max_abs_diff, 0.0) << shape << " " << dtype << " " << type << " " << scaling;
          for (const auto& op : r.ops)
            EXPECT_EQ(op.status, OpStatus::Ok) << text(op.device) << " " << op.error.value_or("");
        }
      }
    }
  }
}

constexpr const char* kTracedWorkload = R"({"name": "c", "tensors": {"a": {"shape": [512, 512], "dtype": "float32"},
    "m": {"shape": [1000, 700], "dtype": "float64", "order": "F"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a", "device": "gpu", "repeat": 3},
            {"op": "dlascl", "a": "m", "cfrom": 2, "cto": 3, "device": "gpu", "repeat": 2}]})";

// By default CUPTI traces kernels alone: each op gets its own, named.
TEST(GpuDevice, CuptiSeesEachOpsKernels) {
  REQUIRE_GPU();
  if (gpu().backend->device().cupti.rfind("tracing", 0) != 0) GTEST_SKIP() << gpu().backend->device().cupti;
  const RunResult r = run(kTracedWorkload, std::nullopt);
  ASSERT_EQ(r.ops.size(), 2u);
  const bool all_kinds = gpu().backend->device().cupti.find("copies") != std::string::npos;  // BLASSCOPE_CUPTI=all
  for (const auto& op : r.ops) {
    ASSERT_EQ(op.status, OpStatus::Ok) << op.error.value_or("");
    std::size_t kernels = 0, copies = 0;
    for (const auto& e : op.device_events) {
      EXPECT_LE(e.start_ns, e.end_ns) << e.name;
      copies += e.kind == "memcpy";
      if (e.kind != "kernel") continue;
      ++kernels;
      std::printf("op %zu kernel: %s (%s), %.1f us\n", op.op, e.name.c_str(), e.family.c_str(),
                  (e.end_ns - e.start_ns) / 1e3);
      EXPECT_EQ(e.name.find("_Z"), std::string::npos) << "mangled: " << e.name;
      if (op.op_kind == OpKind::Dlascl) {
        EXPECT_EQ(e.family, "BLAScope DLASCL") << e.name;
      } else {
        EXPECT_NE(e.family, "BLAScope DLASCL") << e.name;
      }
    }
    // One kernel per repetition at least (cuBLAS may add a split-K reduction), each on its op.
    EXPECT_GE(kernels, op.op_kind == OpKind::Gemm ? 3u : 2u) << text(op.op_kind);
    if (!all_kinds) {
      EXPECT_EQ(copies, 0u) << "copies are traced only with BLASSCOPE_CUPTI=all";
    }
    EXPECT_EQ(op.cupti_dropped, 0u);
  }
}

// BLASSCOPE_CUPTI=all traces each op's copies too (in a worker: CUPTI's kinds are set once a process).
TEST(GpuDevice, CuptiAllSeesEachOpsCopies) {
  REQUIRE_GPU();
  const auto result = run_cli("traced", kTracedWorkload, "BLASSCOPE_CUPTI=all");
  ASSERT_TRUE(result.is_object()) << "blasscope-cli printed no JSON";
  const auto& device = result.at("environment").at("gpu");
  if (!device.contains("device")) GTEST_SKIP() << "no GPU in the worker: " << device.dump();
  const std::string cupti = device.at("device").value("cupti", "");
  if (cupti.rfind("tracing", 0) != 0) GTEST_SKIP() << cupti;
  EXPECT_NE(cupti.find("copies, memsets, allocations"), std::string::npos) << cupti;
  ASSERT_EQ(result.at("ops").size(), 2u);
  for (const auto& op : result.at("ops")) {
    std::size_t uploads = 0, kernels = 0;
    for (const auto& e : op.at("record").at("device_events")) {
      uploads += e["kind"] == "memcpy" && e["name"] == "HtoD";
      kernels += e["kind"] == "kernel";
    }
    const bool gemm = op.at("record").at("op_kind") == "gemm";
    EXPECT_GE(uploads, gemm ? 3u : 2u) << op.dump();  // A, B, C / the matrix per repetition
    EXPECT_GE(kernels, gemm ? 3u : 2u) << op.dump();
  }
}

TEST(GpuDevice, CudaEventTimesBoundTheKernelsCuptiSaw) {
  REQUIRE_GPU();
  if (gpu().backend->device().cupti.rfind("tracing", 0) != 0) GTEST_SKIP() << gpu().backend->device().cupti;
  const RunResult r = run(R"({"name": "t", "tensors": {"a": {"shape": [4096, 4096], "dtype": "float32"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a", "device": "gpu", "repeat": 5}]})",
                          std::nullopt);
  ASSERT_EQ(r.ops.size(), 1u);
  const auto& op = r.ops[0];
  ASSERT_EQ(op.status, OpStatus::Ok) << op.error.value_or("");
  ASSERT_TRUE(op.device_seconds && op.seconds);
  // The kernels of the 6 launches (the untimed first one included), in start order. The 5
  // timed launches are the last ones and run the same kernels; the first may run more (cuBLAS
  // picks or prepares its kernels), so the count per launch is the period of the last names.
  std::vector<double> durations;
  std::vector<std::string> names;
  for (const auto& e : op.device_events) {
    if (e.kind == "kernel") durations.push_back((e.end_ns - e.start_ns) / 1e9), names.push_back(e.name);
  }
  const std::size_t count = names.size();
  std::size_t per_launch = 0;
  for (std::size_t k = 1; per_launch == 0 && 5 * k < count; ++k) {
    bool periodic = true;
    for (std::size_t i = count - 5 * k; periodic && i + k < count; ++i) periodic = names[i] == names[i + k];
    if (periodic) per_launch = k;
  }
  ASSERT_GT(per_launch, 0u) << count << " kernels: no 5 alike launches at the end";
  double timed = 0;
  for (std::size_t i = count - 5 * per_launch; i < count; ++i) timed += durations[i];
  const double per_repetition = timed / 5;
  std::printf("CUDA events %.1f us, CUPTI kernels %.1f us per repetition (%zu kernels each)\n",
              *op.device_seconds * 1e6, per_repetition * 1e6, per_launch);
  EXPECT_GE(*op.device_seconds * 1.05, per_repetition);         // events enclose the kernels
  EXPECT_LE(*op.device_seconds, per_repetition * 1.2 + 20e-6);  // and little else
}

TEST(GpuDevice, DeviceMemoryPredictionMatchesCudaMemGetInfo) {
  REQUIRE_GPU();
  const RunResult r = run(R"({"name": "m", "tensors": {"a": {"shape": [3000, 2000], "dtype": "float32"},
    "b": {"shape": [2000, 1000], "dtype": "float32"}, "x": {"shape": [5000, 3001], "dtype": "float64"}},
    "ops": [{"op": "gemm", "a": "a", "b": "b", "device": "gpu"},
            {"op": "gemm", "a": "a", "b": "b", "device": "gpu"},
            {"op": "dlascl", "a": "x", "cfrom": 2, "cto": 3, "device": "gpu"}]})",
                          std::nullopt);
  ASSERT_EQ(r.ops.size(), 3u);
  for (const auto& op : r.ops) {
    ASSERT_EQ(op.status, OpStatus::Ok) << op.error.value_or("");
    ASSERT_TRUE(op.device_memory_predicted && op.device_memory_measured);
    const double predicted = *op.device_memory_predicted, measured = *op.device_memory_measured;
    std::printf("op %zu (%s): predicted %.1f MiB, cudaMemGetInfo saw %.1f MiB\n", op.op, text(op.op_kind).c_str(),
                predicted / 1048576, measured / 1048576);
    // cuBLAS is set up (and measured) before the first GEMM, so an op takes its buffers, in
    // whole 2 MiB pages; a kernel loaded for the first time may add a page or two of code.
    EXPECT_NEAR(measured, predicted, 4.0 * 1048576);
  }
}

TEST(GpuDevice, AnIllegalLeadingDimensionIsCublasInvalidValue) {
  REQUIRE_GPU();
  // lda 10 for a row-major 64 x 48 A: cuBLAS itself rejects it, as it would a user's call.
  const RunResult r = run(R"({"name": "ld", "tensors": {"a": {"shape": [64, 48], "dtype": "float32"},
    "b": {"shape": [48, 32], "dtype": "float32"}}, "ops": [{"op": "gemm", "a": "a", "b": "b", "lda": 10, "device": "gpu"}]})",
                          std::nullopt);
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].status, OpStatus::Failed);
  EXPECT_EQ(r.ops[0].error_kind, ErrorKind::CublasError);
  EXPECT_NE(r.ops[0].error.value_or("").find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos)
      << r.ops[0].error.value_or("");
}

#if BLASSCOPE_TEST_CUDART
// Takes device memory (plain cudaMalloc, 1 GiB at a time) until about `leave` bytes are free,
// and gives it back when destroyed.
class DeviceMemoryTaken {
 public:
  explicit DeviceMemoryTaken(std::size_t leave) {
    constexpr std::size_t kChunk = std::size_t{1} << 30;
    std::size_t free = 0, total = 0;
    while (cudaMemGetInfo(&free, &total) == cudaSuccess && free > leave) {
      void* p = nullptr;
      if (cudaMalloc(&p, std::min(kChunk, free - leave)) != cudaSuccess) break;
      m_taken.push_back(p);
    }
    m_free = free;
  }
  ~DeviceMemoryTaken() {
    for (void* p : m_taken) cudaFree(p);
  }
  std::size_t free() const { return m_free; }

 private:
  std::vector<void*> m_taken;
  std::size_t m_free = 0;
};
#endif

// A GEMM whose buffers do not fit the free device memory is refused by the prediction, before
// any cudaMalloc. Most of the device's memory is taken first, so the host (which on some
// machines has less memory than the GPU) needs only a 2 GiB result.
TEST(GpuDevice, AnImpossibleAllocationIsPredictedNotAttempted) {
  REQUIRE_GPU();
#if BLASSCOPE_TEST_CUDART
  const DeviceMemoryTaken taken(std::size_t{1} << 30);
  ASSERT_LT(taken.free(), std::size_t{3} << 29) << "could not take the device's memory";
  const RunResult r = run(R"({"name": "m", "tensors": {"a": {"shape": [16384, 1], "dtype": "float64"},
      "b": {"shape": [1, 16384], "dtype": "float64"}}, "ops": [{"op": "gemm", "a": "a", "b": "b", "device": "gpu"}]})",
                          std::nullopt);
  std::size_t gpu_ops = 0;
  for (const auto& op : r.ops) {
    if (op.device != Device::Gpu) continue;
    ++gpu_ops;
    EXPECT_EQ(op.error_kind, ErrorKind::OutOfMemory);
    // The message gives the need item by item, and what was free.
    EXPECT_NE(op.error.value_or("").find("the GEMM needs A "), std::string::npos) << op.error.value_or("");
    EXPECT_NE(op.error.value_or("").find(" is free"), std::string::npos) << op.error.value_or("");
    std::printf("refused: %s\n", op.error.value_or("").c_str());
  }
  EXPECT_EQ(gpu_ops, 1u);
#else
  GTEST_SKIP() << "built without the CUDA runtime: the test cannot take device memory";
#endif
}

// A kernel fault poisons the CUDA context of its process, so this runs in a worker (through
// the CLI next to the plugin): the op that faulted names the sticky error, and the next GPU op
// is refused instead of failing in some innocent call.
TEST(GpuDevice, AKernelFaultIsAStickyCudaErrorAndLaterOpsAreRefused) {
  REQUIRE_GPU();
  // Launches are not waited for one by one: with 50 repetitions the fault may first show as a
  // later GEMM's CUBLAS_STATUS_EXECUTION_FAILED, and must still be found sticky.
  for (const int repeat : {1, 50}) {
    const auto result = run_cli("fault", R"({"name": "fault", "tensors": {"a": {"shape": [64, 64], "dtype": "float64"}},
      "ops": [{"op": "gemm", "a": "a", "b": "a", "lda": 1000000, "repeat": )" +
                                             std::to_string(repeat) + R"(}, {"op": "gemm", "a": "a", "b": "a"}]})");
    ASSERT_TRUE(result.is_object()) << "blasscope-cli printed no JSON";
    const auto& ops = result.at("ops");
    ASSERT_EQ(ops.size(), 2u) << result.dump();
    std::printf("repeat %d, op 0: %s\nop 1: %s\n", repeat, ops[0].at("error").dump().c_str(),
                ops[1].at("error").dump().c_str());
    EXPECT_EQ(ops[0].at("record").at("error_kind"), "cuda-error") << repeat;
    EXPECT_NE(ops[0].at("error").get<std::string>().find("sticky"), std::string::npos) << repeat;
    EXPECT_EQ(ops[1].at("record").at("error_kind"), "cuda-error") << repeat;
    EXPECT_NE(ops[1].at("error").get<std::string>().find("unusable after op 0"), std::string::npos) << repeat;
    bool diagnosed = false;
    for (const auto& d : result.at("diagnoses")) diagnosed = diagnosed || d.at("id") == "cuda-error";
    EXPECT_TRUE(diagnosed) << repeat;
  }
}
