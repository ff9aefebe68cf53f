// GPU logic that needs no device: activity conversion, kernel families, cuBLAS statuses,
// device-memory prediction, the plugin loader's error reporting, result comparison.
#include <gtest/gtest.h>

#include "exec/gpu_ops.h"
#include "gpu_model/cublas_status.h"
#include "gpu_model/device_activity.h"
#include "gpu_model/device_memory.h"
#include "gpu_model/gpu_loader.h"
#include "gpu_model/kernel_family.h"
#include "tensor/element_codec.h"
#include "test_files.h"

using namespace blasscope::core;

namespace {

ActivityRecordView kernel(const char* name, std::uint32_t correlation, std::uint64_t start) {
  ActivityRecordView v;
  v.kind = ActivityRecordView::Kind::Kernel;
  v.name = name;
  v.correlation_id = correlation;
  v.start_ns = start;
  v.end_ns = start + 100;
  v.grid[0] = 8;
  v.block[0] = 256;
  return v;
}

ActivityRecordView correlation(std::uint32_t id, std::uint64_t op) {
  ActivityRecordView v;
  v.kind = ActivityRecordView::Kind::ExternalCorrelation;
  v.correlation_id = id;
  v.external_id = op + 1;
  return v;
}

}  // namespace

TEST(ActivityCollector, MapsRecordsToOpsThroughExternalCorrelation) {
  ActivityCollector c;
  c.begin_op(3);
  c.add(correlation(10, 3));
  c.add(kernel("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 10, 500));
  ActivityRecordView copy;
  copy.kind = ActivityRecordView::Kind::Memcpy;
  copy.name = "HtoD";
  copy.correlation_id = 10;
  copy.bytes = 4096;
  copy.start_ns = 100;
  c.add(copy);
  const auto events = c.take(3);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "memcpy");  // sorted by start
  EXPECT_EQ(events[0].bytes, 4096u);
  EXPECT_EQ(events[1].kind, "kernel");
  EXPECT_EQ(events[1].family, "cuBLAS xmma GEMM (tensor cores)");
  EXPECT_EQ(events[1].grid, (std::vector<std::int32_t>{8, 0, 0}));
  EXPECT_TRUE(c.take(3).empty());  // taken once
}

TEST(ActivityCollector, RecordsThatArriveBeforeTheirCorrelationWait) {
  ActivityCollector c;
  c.begin_op(1);
  c.add(kernel("nvjet_tst_128x64", 20, 900));  // completed first, correlation still unknown
  c.add(kernel("other", 21, 950));
  c.add(correlation(20, 0));  // belongs to op 0
  EXPECT_EQ(c.take(0).size(), 1u);
  const auto rest = c.take(1);  // the unmatched one goes to the op being traced
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].name, "other");
}

TEST(ActivityCollector, UncorrelatedRecordsAndDroppedCounts) {
  ActivityCollector c;
  c.begin_op(4);
  ActivityRecordView overhead;
  overhead.kind = ActivityRecordView::Kind::Overhead;
  overhead.name = "overhead";
  c.add(overhead);
  ActivityRecordView ignored;  // kinds BLAScope does not trace
  c.add(ignored);
  c.add_dropped(7);
  c.add_dropped(2);
  EXPECT_EQ(c.take(4).size(), 1u);
  EXPECT_EQ(c.dropped(), 9u);
}

TEST(KernelFamily, PrefixRules) {
  EXPECT_EQ(kernel_family("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x256x32"),
            "cuBLAS xmma GEMM (tensor cores)");
  EXPECT_EQ(kernel_family("nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NNT"), "cuBLAS nvjet GEMM (Hopper and later)");
  EXPECT_EQ(kernel_family("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>(Params)"), "CUTLASS");
  EXPECT_EQ(kernel_family("ampere_sgemm_128x64_nn"), "cuBLAS architecture GEMM");
  EXPECT_EQ(kernel_family("_ZN9blasscope3gpu12_GLOBAL__N_122blasscope_lascl_kernelIdEEvcllPT_lNS1_11MultipliersIS3_EE"),
            "BLAScope DLASCL");
  EXPECT_EQ(kernel_family("my_custom_kernel"), "other");
}

TEST(CublasStatus, NamesAndMeanings) {
  EXPECT_EQ(cublas_status_name(13), "CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_NE(std::string(cublas_status_info(1).meaning).find("device memory"), std::string::npos);
  EXPECT_EQ(cublas_status_name(99), "CUBLAS_STATUS_UNKNOWN (99)");
}

TEST(DeviceMemory, PredictionWithHeadroom) {
  const auto need = gemm_device_memory(64 << 20, 64 << 20, 64 << 20, 9);
  EXPECT_EQ(need.total(), (192ull << 20) + (32ull << 20));
  EXPECT_TRUE(need.fits(240ull << 20));
  EXPECT_FALSE(need.fits(230ull << 20));  // fits the bytes, not the 5% headroom
  EXPECT_EQ(cublas_workspace_bytes(8), 4ull << 20);
  EXPECT_NE(need.describe().find("cuBLAS workspace 32.0 MiB"), std::string::npos);
}

TEST(GpuLoader, EveryFailureHasAPreciseReason) {
  blasscope::test::TempDir dir;
  EXPECT_NE(load_gpu_backend(dir.file("absent.so")).reason.find("does not exist"), std::string::npos);
  blasscope::test::write_file(dir.file("text.so"), "not a library");
  EXPECT_NE(load_gpu_backend(dir.file("text.so")).reason.find("could not be loaded"), std::string::npos);
  const auto no_symbol = load_gpu_backend("/usr/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_FALSE(no_symbol.backend);
  EXPECT_NE(no_symbol.reason.find("lacks the symbol blasscope_gpu_abi_version"), std::string::npos);
}

TEST(GpuLoader, TheRealPluginSaysWhyThereIsNoGpu) {
  if (!gpu_plugin_built()) GTEST_SKIP() << "built without the CUDA toolkit: " << load_gpu_backend().reason;
  const GpuLoad load = load_gpu_backend(BLASSCOPE_TEST_GPU_PLUGIN);
  if (load.backend) {
    GTEST_SKIP() << "a GPU is present (" << load.backend->device().name << "): the device tests cover it";
  }
  std::printf("no GPU here, as the CUDA runtime says: %s\n", load.reason.c_str());
  EXPECT_TRUE(load.reason.find("cuda") != std::string::npos || load.reason.find("CUDA") != std::string::npos)
      << load.reason;
}

TEST(DeviceComparison, ToleranceGrowsWithKAndCatchesRealDifferences) {
  EXPECT_LT(device_tolerance(DType::Float64, false, 1024), 1e-13);
  EXPECT_GT(device_tolerance(DType::Float32, true, 1024), device_tolerance(DType::Float32, false, 1024));
  HostTensor cpu("c", DType::Float32, {2, 2}, MemoryOrder::C), gpu("g", DType::Float32, {2, 2}, MemoryOrder::Fortran);
  for (std::uint64_t i = 0; i < 4; ++i) {
    store_element(DType::Float32, cpu.data() + cpu.offset_of_flat(i), 1.0 + static_cast<double>(i));
    store_element(DType::Float32, gpu.data() + gpu.offset_of_flat(i), 1.0 + static_cast<double>(i));
  }
  EXPECT_TRUE(compare_results(cpu, gpu, 1e-6).agree);  // different layouts, same values
  store_element(DType::Float32, gpu.data() + gpu.offset_of_flat(3), 4.01);
  const auto c = compare_results(cpu, gpu, 1e-6);
  EXPECT_FALSE(c.agree);
  EXPECT_NEAR(c.max_rel_diff, 0.01 / 4, 1e-6);
}
