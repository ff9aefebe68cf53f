// Tests that need a GPU. Where there is none they skip, printing the reason the CUDA runtime
// gave; `scripts/dev.sh gpu-test` runs them on a machine with a GPU.
#include <gtest/gtest.h>

#include <cmath>
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
  for (const char* dtype : {"float64", "float32"}) {
    for (const char* type : {"G", "L", "U", "H"}) {
      for (const char* scaling : std::string(dtype) == "float64" ? double_scalings : float_scalings) {
        const RunResult r =
            run(std::string(R"({"name": "l", "tensors": {"a": {"shape": [301, 203], "dtype": ")") + dtype +
                R"(", "order": "F", "nan": 3, "inf": 2}}, "ops": [{"op": "dlascl", "a": "a", "type": ")" + type +
                R"(", )" + scaling + R"(, "out": "s"}]})");
        ASSERT_EQ(r.comparisons.size(), 1u) << dtype << " " << type << " " << scaling;
        EXPECT_EQ(r.comparisons[0].max_abs_diff, 0.0) << dtype << " " << type << " " << scaling;
        for (const auto& op : r.ops)
          EXPECT_EQ(op.status, OpStatus::Ok) << text(op.device) << " " << op.error.value_or("");
      }
    }
  }
}

TEST(GpuDevice, CuptiSeesEachOpsKernelsAndCopies) {
  REQUIRE_GPU();
  if (gpu().backend->device().cupti.rfind("tracing", 0) != 0) GTEST_SKIP() << gpu().backend->device().cupti;
  const RunResult r = run(R"({"name": "c", "tensors": {"a": {"shape": [512, 512], "dtype": "float32"},
    "m": {"shape": [1000, 700], "dtype": "float64", "order": "F"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a", "device": "gpu", "repeat": 3},
            {"op": "dlascl", "a": "m", "cfrom": 2, "cto": 3, "device": "gpu", "repeat": 2}]})",
                          std::nullopt);
  ASSERT_EQ(r.ops.size(), 2u);
  for (const auto& op : r.ops) {
    ASSERT_EQ(op.status, OpStatus::Ok) << op.error.value_or("");
    std::size_t kernels = 0, uploads = 0;
    for (const auto& e : op.device_events) {
      EXPECT_LE(e.start_ns, e.end_ns) << e.name;
      if (e.kind == "kernel") {
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
      if (e.kind == "memcpy" && e.name == "HtoD") ++uploads;
    }
    // One kernel per repetition at least (cuBLAS may add a split-K reduction), each on its op.
    EXPECT_GE(kernels, op.op_kind == OpKind::Gemm ? 3u : 2u) << text(op.op_kind);
    EXPECT_GE(uploads, op.op_kind == OpKind::Gemm ? 3u : 2u)
        << text(op.op_kind);  // A, B, C / the matrix per repetition
    EXPECT_EQ(op.cupti_dropped, 0u);
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

TEST(GpuDevice, AnImpossibleAllocationIsPredictedNotAttempted) {
  REQUIRE_GPU();
  const std::uint64_t side = 1 + static_cast<std::uint64_t>(std::sqrt(gpu().backend->device().memory_total / 8.0));
  const RunResult r =
      run(R"({"name": "m", "tensors": {"a": {"shape": [)" + std::to_string(side) + ", 1], " +
              R"("dtype": "float64"}, "b": {"shape": [1, )" + std::to_string(side) +
              R"(], "dtype": "float64"}}, "ops": [{"op": "gemm", "a": "a", "b": "b", "device": "gpu"}]})",
          std::nullopt);
  std::size_t gpu_ops = 0;
  for (const auto& op : r.ops) {
    if (op.device != Device::Gpu) continue;
    ++gpu_ops;
    EXPECT_EQ(op.error_kind, ErrorKind::OutOfMemory);
    // Refused by the prediction, before any cudaMalloc: the message gives the need item by item.
    EXPECT_NE(op.error.value_or("").find("the GEMM needs A "), std::string::npos) << op.error.value_or("");
  }
  EXPECT_EQ(gpu_ops, 1u);
}

// A kernel fault poisons the CUDA context of its process, so this runs in a worker (through
// the CLI next to the plugin): the op that faulted names the sticky error, and the next GPU op
// is refused instead of failing in some innocent call.
TEST(GpuDevice, AKernelFaultIsAStickyCudaErrorAndLaterOpsAreRefused) {
  REQUIRE_GPU();
  const std::filesystem::path cli =
      std::filesystem::path(plugin()).parent_path().parent_path() / "bin" / "blasscope-cli";
  const std::string workload = ::testing::TempDir() + "/fault.json";
  std::ofstream(workload) << R"({"name": "fault", "tensors": {"a": {"shape": [64, 64], "dtype": "float64"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a", "lda": 1000000}, {"op": "gemm", "a": "a", "b": "a"}]})";
  const std::string command = "BLASSCOPE_GPU_PLUGIN='" + std::string(plugin()) + "' '" + cli.string() + "' run '" +
                              workload + "' --device gpu --json";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  ::pclose(pipe);
  const auto result = nlohmann::json::parse(output);
  const auto& ops = result.at("ops");
  ASSERT_EQ(ops.size(), 2u) << output;
  std::printf("op 0: %s\nop 1: %s\n", ops[0]["error"].dump().c_str(), ops[1]["error"].dump().c_str());
  EXPECT_EQ(ops[0]["record"]["error_kind"], "cuda-error");
  EXPECT_NE(ops[0]["error"].get<std::string>().find("sticky"), std::string::npos);
  EXPECT_EQ(ops[1]["record"]["error_kind"], "cuda-error");
  EXPECT_NE(ops[1]["error"].get<std::string>().find("unusable after op 0"), std::string::npos);
  bool diagnosed = false;
  for (const auto& d : result.at("diagnoses")) diagnosed = diagnosed || d["id"] == "cuda-error";
  EXPECT_TRUE(diagnosed);
}
