// GPU logic that needs no device: activity conversion, kernel families, cuBLAS statuses,
// device-memory prediction, the plugin loader's error reporting, result comparison.
#include <gtest/gtest.h>

#include <limits>

#include "exec/gpu_ops.h"
#include "gpu_model/cublas_status.h"
#include "gpu_model/cuda_errors.h"
#include "gpu_model/cupti_setting.h"
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
  c.begin_op(3, 0);
  c.add(correlation(10, 3));
  c.add(kernel("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 10, 500));
  ActivityRecordView copy;
  copy.kind = ActivityRecordView::Kind::Memcpy;
  copy.name = "HtoD";
  copy.correlation_id = 10;
  copy.bytes = 4096;
  copy.start_ns = 100;
  c.add(copy);
  auto all = c.take_all();
  ASSERT_EQ(all.size(), 1u);
  const auto& events = all[3];
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "memcpy");  // sorted by start
  EXPECT_EQ(events[0].bytes, 4096u);
  EXPECT_EQ(events[1].kind, "kernel");
  EXPECT_EQ(events[1].family, "cuBLAS xmma GEMM (tensor cores)");
  EXPECT_EQ(events[1].grid, (std::vector<std::int32_t>{8, 0, 0}));
  EXPECT_TRUE(c.take_all().empty());  // taken once
}

TEST(ActivityCollector, RecordsOfManyOpsFlushedOnceGoToTheirOwnOps) {
  // A run's buffers arrive after its last op: correlation decides, not arrival order.
  ActivityCollector c;
  for (std::size_t op = 0; op < 50; ++op) {
    c.begin_op(op, 1000 * op);
    c.end_op(1000 * op + 900);
  }
  for (std::uint32_t op = 0; op < 50; ++op) {
    c.add(kernel("nvjet_tst_128x64", 100 + op, 1000 * op + 10));  // kernels before their correlations
  }
  for (std::uint32_t op = 0; op < 50; ++op) c.add(correlation(100 + op, op));
  const auto all = c.take_all();
  ASSERT_EQ(all.size(), 50u);
  for (const auto& [op, events] : all) {
    ASSERT_EQ(events.size(), 1u) << op;
    EXPECT_EQ(events[0].start_ns, 1000 * op + 10);
  }
}

TEST(ActivityCollector, WithoutApiTracingRecordsArePlacedByTimeAtOnce) {
  // CUPTI gives every kernel a correlation id, but without the API kinds no external
  // correlation record ever maps it: the record goes by its time, not into a waiting list.
  ActivityCollector c;
  c.set_correlated(false);
  c.begin_op(0, 100);
  c.end_op(200);
  c.begin_op(1, 300);
  c.end_op(400);
  c.add(kernel("first", 77, 150));
  c.add(kernel("second", 78, 350));
  c.add(kernel("outside", 79, 250));
  c.add(correlation(77, 1));  // ignored for placement: the time decided
  auto all = c.take_all();
  ASSERT_EQ(all.size(), 2u);
  ASSERT_EQ(all[0].size(), 1u);
  EXPECT_EQ(all[0][0].name, "first");
  ASSERT_EQ(all[1].size(), 1u);
  EXPECT_EQ(all[1][0].name, "second");
}

TEST(ActivityCollector, UncorrelatedRecordsGoToTheOpRunningWhenTheyStarted) {
  ActivityCollector c;
  c.begin_op(1, 100);
  c.end_op(200);
  c.begin_op(2, 300);
  c.end_op(400);
  c.add(kernel("orphan", 21, 150));  // its correlation never arrives
  ActivityRecordView overhead;
  overhead.kind = ActivityRecordView::Kind::Overhead;
  overhead.name = "overhead";
  overhead.start_ns = 350;
  c.add(overhead);
  ActivityRecordView ignored;  // kinds BLAScope does not trace
  c.add(ignored);
  c.add(kernel("between ops", 22, 250));   // in no op's window: not BLAScope's, dropped
  c.add(kernel("before any op", 23, 50));  // likewise
  c.add_dropped(7);
  c.add_dropped(2);
  auto all = c.take_all();
  ASSERT_EQ(all[1].size(), 1u);
  EXPECT_EQ(all[1][0].name, "orphan");
  EXPECT_EQ(all.count(0), 0u);
  ASSERT_EQ(all[2].size(), 1u);
  EXPECT_EQ(all[2][0].kind, "overhead");
  EXPECT_EQ(c.dropped(), 9u);
}

TEST(ActivityCollector, EachKernelKeepsItsOwnNameAcrossOpsAndRuns) {
  // Names are worked out once per raw name and reused: a mix-up would give a kernel another's.
  ActivityCollector c;
  const char* names[] = {"_Z3fooIdEvcPT_l", "sm90_xmma_gemm_f32f32_tn", "_Z3fooIfEvcPT_l"};
  for (int run = 0; run < 2; ++run) {
    for (std::size_t op = 0; op < 30; ++op) {
      c.begin_op(op, 1000 * op);
      c.end_op(1000 * op + 900);
      c.add(kernel(names[op % 3], 0, 1000 * op + 10));
    }
    const auto all = c.take_all();
    ASSERT_EQ(all.size(), 30u);
    for (const auto& [op, events] : all) {
      ASSERT_EQ(events.size(), 1u);
      EXPECT_EQ(events[0].name, readable_kernel_name(names[op % 3])) << op;
      EXPECT_EQ(events[0].family, kernel_family(events[0].name)) << op;
    }
  }
}

TEST(CuptiSetting, NamedSettingsAndKindLists) {
  const CuptiSetting unset = parse_cupti_setting("");
  EXPECT_TRUE(unset.error.empty());
  EXPECT_EQ(unset.describe(), "kernels");
  EXPECT_TRUE(parse_cupti_setting("0").off());
  EXPECT_EQ(parse_cupti_setting("0").describe(), "nothing");
  EXPECT_EQ(parse_cupti_setting("kernels").describe(), "kernels");
  EXPECT_EQ(parse_cupti_setting("kernel,overhead").describe(), "kernels, overhead");
  EXPECT_EQ(parse_cupti_setting("all").describe(), "kernels, copies, memsets, allocations, overhead");
  EXPECT_FALSE(parse_cupti_setting("all").api);
  EXPECT_EQ(parse_cupti_setting("api").describe(), "kernels, copies, memsets, allocations, overhead, API calls");
  const CuptiSetting list = parse_cupti_setting("memcpy,kernel");
  EXPECT_TRUE(list.error.empty());
  EXPECT_EQ(list.describe(), "kernels, copies");
  EXPECT_EQ(parse_cupti_setting("kernel, memcpy , memset").describe(), "kernels, copies, memsets");
  EXPECT_FALSE(list.api);
}

TEST(CuptiSetting, AnUnknownKindIsNamedAndTheDefaultKept) {
  for (const char* text : {"kernel,bogus", "kernel,", ",", "KERNEL"}) {
    const CuptiSetting s = parse_cupti_setting(text);
    EXPECT_FALSE(s.error.empty()) << text;
    EXPECT_EQ(s.describe(), parse_cupti_setting("").describe()) << text;
  }
  EXPECT_NE(parse_cupti_setting("kernel,bogus").error.find("\"bogus\""), std::string::npos);
}

TEST(KernelFamily, MangledKernelNamesAreMadeReadable) {
  // The mangled name nvcc gives blasscope_lascl_kernel<double>(char, long, long, double*, long, ...).
  EXPECT_EQ(readable_kernel_name("_Z3fooIdEvcPT_l"), "void foo<double>(char, double*, long)");
  EXPECT_EQ(readable_kernel_name("sm90_xmma_gemm_f32f32"), "sm90_xmma_gemm_f32f32");
  EXPECT_EQ(readable_kernel_name("_Znot-a-name"), "_Znot-a-name");
  ActivityCollector collector;
  collector.begin_op(0, 0);
  ActivityRecordView k;
  k.kind = ActivityRecordView::Kind::Kernel;
  k.name = "_ZN9blasscope3gpu12_GLOBAL__N_122blasscope_lascl_kernelIdEEvcllPT_l";
  collector.add(k);
  auto all = collector.take_all();
  const auto& events = all[0];
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name.find("_Z"), std::string::npos) << events[0].name;
  EXPECT_EQ(events[0].family, "BLAScope DLASCL");
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
  const auto need = gemm_device_memory(64 << 20, 64 << 20, 64 << 20, cublas_workspace_bytes(9));
  EXPECT_EQ(need.total(), (192ull << 20) + (32ull << 20));
  EXPECT_TRUE(need.fits(240ull << 20));
  EXPECT_FALSE(need.fits(230ull << 20));  // fits the bytes, not the 5% headroom
  EXPECT_EQ(cublas_workspace_bytes(8), 4ull << 20);
  EXPECT_NE(need.describe().find("cuBLAS workspace 32.0 MiB"), std::string::npos);
}

TEST(DeviceMemory, BuffersTakeWholeTwoMebibytePages) {
  EXPECT_EQ(device_allocation_bytes(0), 2ull << 20);
  EXPECT_EQ(device_allocation_bytes(1), 2ull << 20);
  EXPECT_EQ(device_allocation_bytes((2ull << 20) + 1), 4ull << 20);
  EXPECT_EQ(gemm_device_memory(100, 100, 100).total(), 6ull << 20);  // cuBLAS already set up
  EXPECT_EQ(gemm_device_memory(100, 100, 100, cublas_workspace_bytes(8)).total(), (6ull << 20) + (4ull << 20));
  EXPECT_EQ(lascl_device_memory(3ull << 20).total(), 4ull << 20);
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

TEST(DeviceComparison, TheSameInfinityOnBothSidesAgreesAndAnyOtherDoesNot) {
  const double inf = std::numeric_limits<double>::infinity();
  HostTensor cpu("c", DType::Float64, {1, 3}, MemoryOrder::C), gpu("g", DType::Float64, {1, 3}, MemoryOrder::C);
  for (const auto* t : {&cpu, &gpu}) {
    store_element(DType::Float64, t->data() + t->offset_of_flat(0), inf);
    store_element(DType::Float64, t->data() + t->offset_of_flat(1), -inf);
    store_element(DType::Float64, t->data() + t->offset_of_flat(2), 2.0);
  }
  EXPECT_TRUE(compare_results(cpu, gpu, 1e-12).agree);  // DLASCL overflowing on both devices
  store_element(DType::Float64, gpu.data() + gpu.offset_of_flat(1), inf);
  EXPECT_FALSE(compare_results(cpu, gpu, 1e-12).agree);
  store_element(DType::Float64, gpu.data() + gpu.offset_of_flat(1), 5.0);
  EXPECT_FALSE(compare_results(cpu, gpu, 1e-12).agree);
}

TEST(KernelRecordJson, DeviceTimingsAndCuptiEventsSurviveTheEventStream) {
  KernelRecord r;
  r.device = Device::Gpu;
  r.device_seconds = 1.5e-4;
  r.cupti_dropped = 3;
  DeviceEventRecord e;
  e.kind = "kernel";
  e.name = "sm90_xmma_gemm_f32f32";
  e.start_ns = 10;
  e.end_ns = 20;
  r.device_events.push_back(e);
  const KernelRecord back = nlohmann::json(r).get<KernelRecord>();
  ASSERT_TRUE(back.device_seconds.has_value());
  EXPECT_EQ(*back.device_seconds, 1.5e-4);
  EXPECT_EQ(back.cupti_dropped, 3u);
  ASSERT_EQ(back.device_events.size(), 1u);
  EXPECT_EQ(back.device_events[0].name, e.name);
  EXPECT_EQ(back.device_events[0].end_ns, 20u);
}

TEST(CudaErrors, KernelFaultsAreStickyAndOrdinaryErrorsAreNot) {
  EXPECT_TRUE(is_sticky_cuda_error("cudaErrorIllegalAddress"));
  EXPECT_TRUE(is_sticky_cuda_error("cudaErrorInvalidAddressSpace"));  // what a too large ld gave on an H100
  EXPECT_FALSE(is_sticky_cuda_error("cudaErrorMemoryAllocation"));
  EXPECT_FALSE(is_sticky_cuda_error("cudaErrorInvalidValue"));
  EXPECT_NE(sticky_error_advice().find("every later CUDA call"), std::string::npos);
}
