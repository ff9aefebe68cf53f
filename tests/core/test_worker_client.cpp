// The caller's side of the worker protocol, driven by stand-in workers (shell scripts)
// that die in each way a real one can.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "exec/worker_client.h"
#include "results/event_codec.h"
#include "test_files.h"

using namespace blasscope::core;

namespace {

const char* kStarted = R"({"event":"run_started","workload":"w","t":0})";
const char* kKernel =
    R"({"event":"kernel_started","op":2,"op_kind":"gemm","kernel":"cblas_dgemm","device":"cpu","t":0.1})";

RunResult run_script(const std::string& body) {
  blasscope::test::TempDir dir;
  const std::string path = dir.file("worker.sh");
  blasscope::test::write_file(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
  RunCollector collector;
  std::string error;
  EXPECT_TRUE(run_in_worker(path, {}, collector, error)) << error;
  return collector.finish();
}

std::string echo(const char* line) {
  return std::string("echo '") + line + "'\n";
}

}  // namespace

TEST(WorkerClient, SigkillAfterKernelStartIsACrashInThatOp) {
  const RunResult r = run_script(echo(kStarted) + echo(kKernel) + "kill -KILL $$\n");
  ASSERT_TRUE(r.crash.has_value());
  EXPECT_EQ(r.crash->signal, "SIGKILL");
  EXPECT_EQ(r.crash->op, 2u);
  EXPECT_EQ(r.crash->kernel, "cblas_dgemm");
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].status, OpStatus::Crashed);
  EXPECT_EQ(r.workload, "w");  // events before the crash are kept
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "worker-crashed");
  EXPECT_TRUE(r.has_errors());
}

TEST(WorkerClient, SigabrtAndATornLastLine) {
  const RunResult r = run_script(echo(kStarted) + "printf '{\"event\":\"kernel_sta'\nkill -ABRT $$\n");
  ASSERT_TRUE(r.crash.has_value());
  EXPECT_EQ(r.crash->signal, "SIGABRT");
  EXPECT_FALSE(r.crash->op.has_value());  // no kernel had started
  EXPECT_EQ(r.events.size(), 2u);         // run_started and the crash itself
}

TEST(WorkerClient, ExitWithoutDoneIsReported) {
  const RunResult r = run_script(echo(kStarted) + "exit 7\n");
  ASSERT_TRUE(r.crash.has_value());
  EXPECT_EQ(r.crash->signal, "exit status 7");
  EXPECT_FALSE(r.completed);
}

TEST(WorkerClient, StrayOutputIsIgnoredAndFindingsArrive) {
  const RunResult r = run_script(
      echo(kStarted) + "echo 'OpenBLAS : some chatter'\n" +
      echo(R"({"event":"finding","id":"non-finite-input","severity":"warning","op":0,"tensor":"x","message":"m"})") +
      echo(R"({"event":"done","peak_host_bytes":123})"));
  EXPECT_FALSE(r.crash.has_value());
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.peak_host_bytes, 123u);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].tensor, "x");
  EXPECT_FALSE(r.has_errors());
}

TEST(WorkerClient, MissingWorkerIsAnErrorNotACrash) {
  RunCollector collector;
  std::string error;
  EXPECT_FALSE(run_in_worker("/nonexistent/blasscope-worker", {}, collector, error));
  EXPECT_NE(error.find("cannot start"), std::string::npos);
}

TEST(WorkerClient, ExitThreeAfterARejectionIsTheRejectionNotACrash) {
  const RunResult r = run_script(echo(R"({"event":"rejected","message":"a.npy: not a NumPy file"})") + "exit 3\n");
  EXPECT_FALSE(r.crash.has_value());
  ASSERT_TRUE(r.rejection.has_value());
  EXPECT_EQ(*r.rejection, "a.npy: not a NumPy file");
  // Exit 3 with no rejection event is a worker that died unexplained.
  const RunResult bare = run_script("exit 3\n");
  ASSERT_TRUE(bare.crash.has_value());
  EXPECT_EQ(bare.crash->signal, "exit status 3");
}

TEST(WorkerStreamFramer, EventsSplitAcrossReadsTornLinesAndStrayOutput) {
  WorkerStreamFramer framer;
  RunCollector collector;
  auto names = [&collector] {
    std::vector<std::string> out;
    for (const RunEvent& e : collector.finish().events) out.push_back(event_name(e));
    return out;
  };
  const std::string stream =
      std::string(kStarted) + "\nOpenBLAS warning: stray text\n\n" + kKernel + "\n{\"event\":\"ker";
  std::size_t published = 0;
  for (std::size_t i = 0; i < stream.size(); i += 7) {
    published += framer.feed(stream.data() + i, std::min<std::size_t>(7, stream.size() - i), collector);
  }
  EXPECT_EQ(published, 2u);  // the torn tail waits
  const std::string tail = "nel_finished\",\"record\":{\"op\":2}}\n";
  EXPECT_EQ(framer.feed(tail.data(), tail.size(), collector), 1u);
  EXPECT_EQ(names(), (std::vector<std::string>{"run_started", "kernel_started", "kernel_finished"}));
}

TEST(WorkerClient, AStopByTheUserIsRecordedAsSuch) {
  RunCollector collector;
  collector.publish(decode_event(nlohmann::json::parse(kKernel)));
  record_worker_exit(collector, {true, 9, true});
  const RunResult r = collector.finish();
  ASSERT_TRUE(r.crash.has_value());
  EXPECT_EQ(r.crash->signal, "stopped by the user");
  EXPECT_EQ(r.crash->op, 2u);
}

TEST(WorkerStreamFramer, AnEventTheCollectorCannotReadIsSkipped) {
  WorkerStreamFramer framer;
  RunCollector collector;
  const std::string stream =
      std::string(kStarted) + "\n{\"event\":\"kernel_finished\",\"record\":17}\n" + kKernel + "\n";
  framer.feed(stream.data(), stream.size(), collector);
  const RunResult r = collector.finish();
  EXPECT_EQ(r.workload, "w");
  EXPECT_TRUE(r.ops.empty());
  EXPECT_EQ(r.skipped_events, 1u);
  EXPECT_EQ(r.events.size(), 2u);  // the unreadable one is not kept: a saved session stays readable
}

TEST(RunCollector, ReducesEventsIntoTimelinesAndProgress) {
  RunCollector c;
  auto e = [](const char* text) { return decode_event(nlohmann::json::parse(text)); };
  c.publish(
      e(R"({"event":"run_started","workload":"w","ops":2,"memory_limit":1000,"predicted_peak_bytes":600,"t":0})"));
  c.publish(e(R"({"event":"tensor_allocated","tensor":"a","dtype":"float32","bytes":400,"t":0.1})"));
  c.publish(e(R"({"event":"memory","host_bytes":400,"t":0.1})"));
  c.publish(e(R"({"event":"kernel_started","op":0,"op_kind":"gemm","device":"gpu","kernel":"cublasGemmEx","t":0.2})"));
  EXPECT_EQ(c.progress().running_op, std::optional<std::size_t>(0));
  c.publish(e(R"({"event":"device_allocated","op":0,"buffer":"A","bytes":2097152,"t":0.3})"));
  c.publish(e(R"({"event":"device_freed","op":0,"buffer":"A","bytes":2097152,"t":0.4})"));
  c.publish(
      e(R"({"event":"kernel_finished","op":0,"record":{"op":0,"device":"gpu","kernel":"cublasGemmEx"},"t":0.5})"));
  c.publish(e(R"({"event":"workspace_allocated","op":1,"workspace":"integer","bytes":64,"t":0.6})"));
  const auto p = c.progress();
  EXPECT_EQ(p.ops_total, 2u);
  EXPECT_EQ(p.ops_finished, 1u);
  EXPECT_FALSE(p.running_op.has_value());
  const RunTimeline t = c.finish().timeline;
  EXPECT_EQ(t.memory_limit, 1000u);
  EXPECT_EQ(t.predicted_peak_bytes, 600u);
  ASSERT_EQ(t.host_memory.size(), 1u);
  EXPECT_EQ(t.first_t, 0.1);
  EXPECT_EQ(t.last_t, 0.6);
  ASSERT_EQ(t.device_memory.size(), 2u);
  EXPECT_EQ(t.device_memory[0].bytes, 2097152u);
  EXPECT_EQ(t.device_memory[1].bytes, 0u);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].start, 0.2);
  EXPECT_EQ(t.kernels[0].end, 0.5);
  EXPECT_EQ(t.kernels[0].device, Device::Gpu);
  ASSERT_EQ(t.allocations.size(), 3u);  // tensor a, GPU buffer A, op 1's IWORK
  EXPECT_EQ(t.allocations[1].kind, Allocation::Kind::DeviceBuffer);
  EXPECT_EQ(t.allocations[2].name, "IWORK");
}

TEST(WorkerProcess, KeepsTheTailOfALongStderrWithoutBlockingTheWorker) {
  // 300 KB on stderr is more than a pipe holds: the worker would block if nobody read it.
  blasscope::test::TempDir dir;
  const std::string path = dir.file("worker.sh");
  blasscope::test::write_file(path, "#!/bin/sh\n" + echo(kStarted) +
                                        "i=0; while [ $i -lt 3000 ]; do echo \"stderr line $i "
                                        "..........................................................................."
                                        "........\" >&2; i=$((i+1)); done\necho 'the last line' >&2\n" +
                                        echo(R"({"event":"done","peak_host_bytes":1})"));
  ::chmod(path.c_str(), 0755);
  WorkerProcess process;
  std::string error;
  WorkerProcess::Options options;
  options.capture_stderr = true;
  ASSERT_TRUE(process.start(path, {}, options, error)) << error;
  RunCollector collector;
  process.run(collector);
  const RunResult r = collector.finish();
  EXPECT_TRUE(r.completed);
  EXPECT_FALSE(r.crash.has_value());
  EXPECT_LE(process.stderr_text().size(), 64u * 1024);
  EXPECT_NE(process.stderr_text().find("the last line"), std::string::npos);
  EXPECT_EQ(process.stderr_text().find("stderr line 0 "), std::string::npos);  // the head was dropped
}

TEST(WorkerProcess, AStopEndsAWorkerThatWouldRunForever) {
  blasscope::test::TempDir dir;
  const std::string path = dir.file("worker.sh");
  blasscope::test::write_file(path, "#!/bin/sh\n" + echo(kStarted) + echo(kKernel) + "exec sleep 600\n");
  ::chmod(path.c_str(), 0755);
  WorkerProcess process;
  std::string error;
  ASSERT_TRUE(process.start(path, {}, {}, error)) << error;
  RunCollector collector;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (collector.progress().running_op != std::optional<std::size_t>(2)) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the kernel_started event never arrived";
    process.read_events(collector);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  process.stop();
  process.run(collector);
  const RunResult r = collector.finish();
  ASSERT_TRUE(r.crash.has_value());
  EXPECT_EQ(r.crash->signal, "stopped by the user");
  EXPECT_EQ(r.crash->op, 2u);
}

TEST(WorkerClient, AnOpPastItsTimeLimitIsStoppedAsKernelHangAndEarlierEventsStay) {
  // A stand-in worker whose op 2 starts and never finishes, after op 1 finished.
  blasscope::test::TempDir dir;
  const std::string path = dir.file("worker.sh");
  blasscope::test::write_file(
      path, "#!/bin/sh\n" + echo(kStarted) +
                echo(R"({"event":"kernel_started","op":1,"op_kind":"gemm","kernel":"cblas_dgemm","device":"cpu",)"
                     R"("flops":10,"t":0.05})") +
                echo(R"({"event":"kernel_finished","op":1,"record":{"op":1,"op_kind":"gemm","status":"ok",)"
                     R"("kernel":"cblas_dgemm","device":"cpu"},"t":0.06})") +
                echo(R"({"event":"kernel_started","op":2,"op_kind":"lstsq","kernel":"dgelsd","device":"cpu",)"
                     R"("flops":10,"input_nan":0,"input_inf":1,"dtype":"float64","m":30,"n":9,"t":0.1})") +
                echo(R"({"event":"xerbla","op":2,"routine":"DLASCL","parameter":4,"meaning":"CFROM","t":0.11})") +
                "exec sleep 600\n");
  ::chmod(path.c_str(), 0755);
  WorkerProcess::Options options;
  options.time_limits.op_seconds[2] = 0.5;
  std::vector<double> watched;
  options.on_running = [&watched](const RunningOp& running) { watched.push_back(running.limit); };
  RunCollector collector;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(run_in_worker(path, {}, collector, error, options)) << error;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  const RunResult r = collector.finish();
  ASSERT_TRUE(r.crash.has_value());
  EXPECT_EQ(r.crash->signal, kTimeLimitEnd);
  EXPECT_EQ(r.crash->op, 2u);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[0].status, OpStatus::Ok);  // the op before it is kept
  EXPECT_EQ(r.ops[1].error_kind, ErrorKind::KernelHang);
  EXPECT_EQ(r.ops[1].status, OpStatus::Hung);  // stopped, not crashed
  // It ends where it was stopped (started at 0.1 s, ran past its 0.5 s), not at its last event.
  EXPECT_GE(r.timeline.last_t, 0.1 + 0.5);
  EXPECT_EQ(text(r.ops[1].status), "hung");
  EXPECT_EQ(r.ops[1].dtype, DType::Float64);  // the op tables show what it was running
  EXPECT_EQ(r.ops[1].m, 30);
  EXPECT_EQ(r.ops[1].n, 9);
  EXPECT_FALSE(r.ops[1].k.has_value());
  // What the op reported before it hung, and what it was given, are findings as for an op that
  // returned: the replay of a recorded hang gives the recording's diagnoses.
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].id, "kernel-hang");
  EXPECT_EQ(r.findings[0].op, 2u);
  EXPECT_NE(r.findings[0].message.find("0 NaN and 1 Inf"), std::string::npos) << r.findings[0].message;
  ASSERT_EQ(r.ops[1].xerbla.size(), 1u);
  EXPECT_EQ(r.ops[1].xerbla[0].routine, "DLASCL");
  EXPECT_EQ(r.findings[1].id, "dlascl-invalid-cfrom");
  EXPECT_EQ(r.findings[1].message.find("never returned"), std::string::npos) << r.findings[1].message;
  EXPECT_NE(r.findings[1].message.find("DLASCL rejected CFROM"), std::string::npos) << r.findings[1].message;
  EXPECT_EQ(r.findings[2].id, "non-finite-input");
  EXPECT_EQ(r.findings[2].op, 2u);
  ASSERT_FALSE(watched.empty());
  EXPECT_EQ(watched.back(), 0.5);
}

TEST(TimeLimits, AnOpsOwnLimitThenTheRunsThenOneScaledFromItsSize) {
  TimeLimits limits;
  EXPECT_EQ(limits.seconds_for(0, 1000, 100), kMinimumDefaultTimeLimit);            // tiny: never under 10 s
  EXPECT_DOUBLE_EQ(limits.seconds_for(0, 2'000'000'000'000ull, 100), 1000 * 20.0);  // 20 s at 100 GFLOP/s
  EXPECT_EQ(limits.seconds_for(0, 1000, 0), kMinimumDefaultTimeLimit);              // no peak known
  limits.run_seconds = 3;
  limits.op_seconds[4] = 7;
  EXPECT_EQ(limits.seconds_for(0, 2'000'000'000'000ull, 100), 3);
  EXPECT_EQ(limits.seconds_for(4, 1000, 100), 7);
}
