// The one JSON form of run events: every event survives the trip through it, and what is
// not an event is refused rather than guessed at.
#include <gtest/gtest.h>

#include <set>

#include "results/event_codec.h"
#include "text/json.h"

using namespace blasscope::core;
using nlohmann::json;

namespace {

std::vector<RunEvent> one_of_each() {
  KernelRecord record;
  record.op = 3;
  record.op_kind = OpKind::Gemm;
  record.kernel = "cblas_dgemm";
  record.status = OpStatus::Failed;
  record.error_kind = ErrorKind::IllegalArgument;
  record.error = "On entry to DGEMM parameter number 10 had an illegal value";
  record.xerbla = {{"DGEMM", 10, "ldc"}};
  Detection finding{"non-finite-input", Severity::Warning, 1, "x", "2 NaN", {{"nan", 2}}};
  RunEnvironment environment;
  environment.cpu = CpuEnvironment{};
  environment.cpu->openblas_corename = "Haswell";
  environment.cpu->kernel_mismatch = "Haswell kernels on an AVX-512 CPU";
  environment.gpu.reason = "no CUDA driver";
  DeviceComparison comparison;
  comparison.op = 2;
  comparison.agree = false;
  comparison.speedup = 40;
  return {
      {0.0, events::RunStarted{"w", "a workload", 1 << 20, 4096, 2, environment, 77}},
      {0.1, events::KernelStarted{3, OpKind::Gemm, "cblas_dgemm", Device::Cpu}},
      {0.15, events::KernelStarted{4, OpKind::Lstsq, "dgelsd", Device::Cpu, 10, 0, 1, DType::Float64, 30, 9, {}}},
      {0.2, events::KernelFinished{record}},
      {0.3, events::Xerbla{3, {"DGEMM", 10, "ldc"}}},
      {0.4, events::TensorAllocated{"a", DType::Float64, {3, 4}, MemoryOrder::Fortran, 96, 64, "file"}},
      {0.5, events::TensorFreed{"a", 96}},
      {0.6, events::Workspace{true, 1, "gesdd workspace", 800}},
      {0.7, events::Workspace{false, 1, "gesdd workspace", 800}},
      {0.8, events::DeviceBuffer{true, 2, "A", 2097152}},
      {0.9, events::DeviceBuffer{false, 2, "A", 2097152}},
      {1.0, events::HostMemory{12345}},
      {1.1, events::OutOfMemory{"big", std::nullopt, 8000000, 100, 1000000, "tensor 'big' needs 7.6 MiB"}},
      {1.2, events::FindingRaised{finding}},
      {1.3, events::TensorError{"b", "b.npy: not a NumPy file"}},
      {1.4, events::Comparison{comparison}},
      {1.5, events::OutputSaved{3, "c", "/tmp/c.npy", ""}},
      {1.6, events::OutputSaved{3, "c", "", "cannot write /nope/c.npy"}},
      {1.7, events::DeviceActivity{2, {{"kernel", "sgemm_128x64", "gemm", 10, 20, {4, 1, 1}, {256, 1, 1}, 0}}, 1}},
      {1.8, events::Done{4096}},
      {1.9, events::Rejected{"a.npy: not a NumPy file"}},
      {2.0, events::Crashed{"SIGSEGV", ""}},
  };
}

}  // namespace

TEST(EventCodec, EveryEventSurvivesTheRoundTrip) {
  const auto all = one_of_each();
  std::set<std::size_t> kinds;
  for (const RunEvent& event : all) {
    kinds.insert(event.body.index());
    const json once = encode_event(event);
    const RunEvent back = decode_event(once);
    EXPECT_EQ(back.body.index(), event.body.index()) << once.dump();
    EXPECT_EQ(back.t, event.t);
    EXPECT_EQ(encode_event(back), once) << once.dump();
    EXPECT_EQ(once["event"], event_name(event));
  }
  EXPECT_EQ(kinds.size(), std::variant_size_v<RunEventBody>);  // a new event kind needs a case here
}

TEST(EventCodec, TheWireFormatKeepsItsNames) {
  // Sessions saved by earlier versions must keep opening: these names and fields are a format.
  const RunEvent e = decode_event(json::parse(
      R"({"event":"out_of_memory","tensor":"big","op":4,"requested":10,"available":2,"limit":8,"message":"m","t":1.5})"));
  const auto* oom = e.as<events::OutOfMemory>();
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->op, std::optional<std::size_t>(4));
  EXPECT_EQ(oom->requested, 10u);
  EXPECT_EQ(e.t, 1.5);
  const json w = encode_event({0.25, events::Workspace{false, 1, "integer workspace", 64}});
  EXPECT_EQ(w,
            json::parse(R"({"event":"workspace_freed","op":1,"workspace":"integer workspace","bytes":64,"t":0.25})"));
}

TEST(EventCodec, WhatIsNotAnEventIsRefused) {
  for (const char* text :
       {R"([1,2])", R"({"t":1})", R"({"event":7})", R"({"event":"kernel_finished"})",
        R"({"event":"kernel_finished","record":17})", R"({"event":"finding","id":"x"})",
        R"({"event":"memory","host_bytes":"many"})", R"({"event":"kernel_started","op":1,"op_kind":"fft"})",
        R"({"event":"kernel_finished","record":{"op":1,"status":"exploded"}})",
        R"({"event":"tensor_allocated","tensor":"a","dtype":"float128"})"}) {
    EXPECT_THROW(decode_event(json::parse(text)), json::exception) << text;
  }
  EXPECT_THROW(decode_event(json::parse(R"({"event":"no_such_event"})")), UnknownEvent);
}
