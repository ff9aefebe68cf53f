// Tests that need a GPU. Where there is none they skip, printing the reason the CUDA runtime
// gave; `scripts/dev.sh gpu-test` runs them on a machine with a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/gemm_prep.h"
#include "exec/run_result.h"
#include "exec/runner.h"
#include "gpu_model/gpu_loader.h"
#include "kernels/dlascl.h"
#include "kernels/gemm.h"
#include "workload/workload_parser.h"

using namespace blasscope::core;

namespace {

GpuLoad& gpu() {
  static GpuLoad load = load_gpu_backend(BLASSCOPE_TEST_GPU_PLUGIN);
  return load;
}

#define REQUIRE_GPU() \
  if (!gpu().backend) GTEST_SKIP() << "no GPU to test on: " << gpu().reason;

RunResult run(const std::string& text) {
  RunCollector collector;
  RunOptions options;
  options.device = DeviceChoice::Both;
  setenv("BLASSCOPE_GPU_PLUGIN", BLASSCOPE_TEST_GPU_PLUGIN, 1);
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
        if (op.device == "gpu") {
          EXPECT_EQ(op.status, "ok") << op.error.value_or("");
          EXPECT_TRUE(op.device_seconds.has_value());
        }
      }
    }
  }
}

TEST(GpuDevice, LasclIsBitIdenticalToTheCpuAndLapack) {
  REQUIRE_GPU();
  const RunResult r = run(R"({"name": "l", "tensors": {"a": {"shape": [300, 200], "dtype": "float64", "order": "F"}},
    "ops": [{"op": "dlascl", "a": "a", "type": "U", "cfrom": 1e-300, "cto": 1e300, "out": "s"}]})");
  ASSERT_EQ(r.comparisons.size(), 1u);
  EXPECT_EQ(r.comparisons[0].max_abs_diff, 0.0);
}

TEST(GpuDevice, CuptiSeesTheKernels) {
  REQUIRE_GPU();
  if (gpu().backend->device().cupti != "tracing") GTEST_SKIP() << gpu().backend->device().cupti;
  const RunResult r = run(R"({"name": "c", "tensors": {"a": {"shape": [512, 512], "dtype": "float32"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"}]})");
  bool kernel = false;
  for (const auto& op : r.ops) {
    for (const auto& e : op.device_events) kernel = kernel || e.kind == "kernel";
  }
  EXPECT_TRUE(kernel);
}

TEST(GpuDevice, AnImpossibleAllocationIsPredictedNotAttempted) {
  REQUIRE_GPU();
  const std::uint64_t side = 1 + static_cast<std::uint64_t>(std::sqrt(gpu().backend->device().memory_total / 8.0));
  const RunResult r = run(R"({"name": "m", "tensors": {"a": {"shape": [)" + std::to_string(side) + ", 1], " +
                          R"("dtype": "float64"}, "b": {"shape": [1, )" + std::to_string(side) +
                          R"(], "dtype": "float64"}}, "ops": [{"op": "gemm", "a": "a", "b": "b"}]})");
  for (const auto& op : r.ops) {
    if (op.device == "gpu") {
      EXPECT_EQ(op.error_kind, "out-of-memory");
    }
  }
}
