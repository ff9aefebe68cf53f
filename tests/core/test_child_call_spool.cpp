// The recorder's spool of child processes' calls: each child's calls come back whole and in
// order, from an unnamed file that leaves nothing behind, or from memory where the file fails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "record/child_call_spool.h"
#include "test_files.h"

namespace blasscope::record {
namespace {

constexpr std::uint32_t kProgram = 100;

CallRecord call_of(std::uint32_t pid, std::uint64_t id) {
  CallRecord c;
  c.id = id, c.pid = pid, c.tid = pid;
  c.routine = Routine::Gemm, c.precision = Precision::D;
  c.m = static_cast<std::int32_t>(id), c.start_ns = 1000 * id, c.duration_ns = id;
  return c;
}

// Drains as the recorder's: the program's calls and two children's, interleaved in runs of
// different lengths, `batches` of them.
std::vector<std::vector<CallRecord>> interleaved_batches(int batches) {
  std::vector<std::vector<CallRecord>> out;
  std::uint64_t id = 1;
  for (int b = 0; b < batches; ++b) {
    std::vector<CallRecord>& batch = out.emplace_back();
    for (int i = 0; i < 500; ++i) {
      const std::uint32_t pid = i % 7 == 0 ? 201 : (i / 50) % 2 ? 202 : kProgram;
      batch.push_back(call_of(pid, id++));
    }
  }
  return out;
}

std::vector<std::uint64_t> ids_of(const std::vector<CallRecord>& calls, std::uint32_t pid) {
  std::vector<std::uint64_t> ids;
  for (const CallRecord& c : calls) {
    if (c.pid == pid) ids.push_back(c.id);
  }
  return ids;
}

void expect_each_childs_calls_back(const ChildCallSpool& spool, const std::vector<std::vector<CallRecord>>& batches) {
  std::vector<CallRecord> all;
  for (const auto& batch : batches) all.insert(all.end(), batch.begin(), batch.end());
  for (const std::uint32_t child : {201u, 202u}) {
    const std::vector<CallRecord> back = spool.calls_of(child);
    EXPECT_EQ(ids_of(back, child), ids_of(all, child)) << "child " << child;
    ASSERT_EQ(back.size(), ids_of(all, child).size());
    for (const CallRecord& c : back) EXPECT_EQ(c.m, static_cast<std::int32_t>(c.id)) << "a record's fields";
    EXPECT_EQ(spool.lost(child), 0u);
  }
  EXPECT_TRUE(spool.calls_of(kProgram).empty()) << "the program's calls are its session's, not set aside";
  EXPECT_TRUE(spool.calls_of(999).empty());
}

TEST(ChildCallSpool, EachChildsCallsComeBackInOrderFromAFileThatLeavesNothingBehind) {
  const test::TempDir dir;
  const auto batches = interleaved_batches(40);
  {
    ChildCallSpool spool(dir.path().string());
    for (const auto& batch : batches) spool.add(batch, kProgram);
    expect_each_childs_calls_back(spool, batches);
    EXPECT_TRUE(spool.on_disk());
    EXPECT_EQ(spool.calls_in_memory(), 0u);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the file has no name";
    spool.close();
    EXPECT_FALSE(spool.on_disk());
    EXPECT_TRUE(spool.calls_of(201).empty());
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ChildCallSpool, AFolderThatCannotBeWrittenFallsBackToTheTemporaryFolder) {
  const test::TempDir dir;
  const auto batches = interleaved_batches(3);
  ChildCallSpool spool((dir.path() / "no such folder").string());
  for (const auto& batch : batches) spool.add(batch, kProgram);
  expect_each_childs_calls_back(spool, batches);
  EXPECT_TRUE(spool.on_disk()) << "in $TMPDIR or /tmp";
  EXPECT_EQ(spool.calls_in_memory(), 0u);
}

TEST(ChildCallSpool, AProgramWithoutChildrenMakesNoFile) {
  ChildCallSpool spool("/nonexistent");
  std::vector<CallRecord> own = {call_of(kProgram, 1), call_of(kProgram, 2)};
  spool.add(own, kProgram);
  EXPECT_FALSE(spool.on_disk());
  EXPECT_EQ(spool.calls_in_memory(), 0u);
  EXPECT_TRUE(spool.calls_of(kProgram).empty());
}

TEST(ChildCallSpool, CallsTheFileHasNoRoomForAreKeptInMemory) {
  // A file size limit (as a full disk) cuts the file after a few batches: those stay readable
  // from it, and the rest are kept in memory, in order after them. (In a child: the limit and
  // the ignored SIGXFSZ are the process's.)
  const test::TempDir dir;
  const auto batches = interleaved_batches(40);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{200 * sizeof(CallRecord) * 5, RLIM_INFINITY};  // about five batches' children
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
    ChildCallSpool spool(dir.path().string());
    for (const auto& batch : batches) spool.add(batch, kProgram);
    expect_each_childs_calls_back(spool, batches);
    EXPECT_TRUE(spool.on_disk());
    // The file holds the first batches' calls, memory the rest (40 batches hold 11,440).
    EXPECT_GT(spool.calls_in_memory(), 0u);
    EXPECT_LT(spool.calls_in_memory(), 11440u - 500u);
    ::_exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the calls did not come back whole (the child's failures are above)";
}

}  // namespace
}  // namespace blasscope::record
