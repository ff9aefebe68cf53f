// The caller's side of the worker protocol, driven by stand-in workers (shell scripts)
// that die in each way a real one can.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "exec/worker_client.h"
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
  EXPECT_EQ(r.ops[0].status, "crashed");
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
