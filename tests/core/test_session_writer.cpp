// Sessions of recordings as they are written: one call's text, the whole file, the file written
// while the program runs (a background thread and the caller sharing the work), and the readers.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>

#include "record/call_flops.h"
#include "record/recording_json.h"
#include "record/routine_names.h"
#include "record/session_stream.h"
#include "record/session_writer.h"

namespace blasscope::record {
namespace {

constexpr std::uint64_t kStart = 5'000'000'000;

CallRecord call(std::uint64_t id, std::uint64_t parent = 0) {
  CallRecord c;
  c.id = id;
  c.parent = parent;
  c.pid = 4242;
  c.tid = 4243;
  c.routine = Routine::Gemv;
  c.precision = Precision::D;
  c.start_ns = kStart + id * 1000;
  c.duration_ns = 60 + id;
  c.m = 200;
  c.n = static_cast<std::int32_t>(id % 300);
  c.lda = 200;
  c.alpha = 1;
  c.side_uplo = 'T';
  return c;
}

// A call with every field set, the unusual values included.
CallRecord full_call() {
  CallRecord c = call(7, 3);
  c.routine = Routine::Lascl;
  c.precision = Precision::Z;
  c.k = 5;
  c.ldb = 9;
  c.ldc = 11;
  c.alpha = std::numeric_limits<double>::quiet_NaN();
  c.beta = -std::numeric_limits<double>::infinity();
  c.info = -4;
  c.xerbla_parameter = 4;
  std::snprintf(c.xerbla_routine, sizeof c.xerbla_routine, "ZLASCL");
  c.input_nan = 1;
  c.input_inf = 2;
  c.output_nan = 3;
  c.output_inf = 4294967295u;
  c.flags = kCblas | kRowMajor | kTransA | kTransB | kHasInfo | kValuesChecked | kCaptured | kWorkspaceQuery |
            kSomeEigenvalues | kXerbla | kLapacke | kConjA | kConjB;
  c.side_uplo = 'G';
  c.align_a = 1, c.align_b = 4, c.align_c = 13;  // 1, 8 and 4096 bytes
  return c;
}

Recording recording_of(std::vector<CallRecord> calls) {
  Recording r;
  r.command = {"python3", "train.py"};
  r.host = "host";
  r.pid = 4242;
  r.start_ns = kStart;
  r.wall_seconds = 1.5;
  r.calls_total = calls.size();
  r.calls = std::move(calls);
  return r;
}

// `a` as read back from a session, `b` as written: a session's call starts count from the
// recording's start (a session keeps no point of the recorder's monotonic clock).
void expect_same_call(const CallRecord& a, const CallRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.tid, b.tid);
  EXPECT_EQ(a.routine, b.routine);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.start_ns, b.start_ns - kStart);
  EXPECT_EQ(a.duration_ns, b.duration_ns);
  EXPECT_EQ(a.m, b.m);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.lda, b.lda);
  EXPECT_EQ(a.ldb, b.ldb);
  EXPECT_EQ(a.ldc, b.ldc);
  EXPECT_TRUE(a.alpha == b.alpha || (std::isnan(a.alpha) && std::isnan(b.alpha))) << a.alpha << " " << b.alpha;
  EXPECT_TRUE(a.beta == b.beta || (std::isnan(a.beta) && std::isnan(b.beta))) << a.beta << " " << b.beta;
  EXPECT_EQ(a.info, b.info);
  EXPECT_EQ(a.xerbla_parameter, b.xerbla_parameter);
  EXPECT_STREQ(a.xerbla_routine, b.xerbla_routine);
  EXPECT_EQ(a.input_nan, b.input_nan);
  EXPECT_EQ(a.input_inf, b.input_inf);
  EXPECT_EQ(a.output_nan, b.output_nan);
  EXPECT_EQ(a.output_inf, b.output_inf);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.side_uplo, b.side_uplo);
  EXPECT_EQ(a.align_a, b.align_a);
  EXPECT_EQ(a.align_b, b.align_b);
  EXPECT_EQ(a.align_c, b.align_c);
}

void expect_same_calls(const std::vector<CallRecord>& a, const std::vector<CallRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) expect_same_call(a[i], b[i]);
}

// Whether a part file (PATH.XXXXXX.part) of a session in `dir` was left behind.
bool part_files_left(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".part") return true;
  }
  return false;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() / ("blasscope-session-writer-" + std::to_string(::getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::string path(const std::string& name) const { return (m_dir / name).string(); }
  std::filesystem::path m_dir;
};

TEST(SessionText, EveryFieldOfEveryCallReadsBack) {
  const Recording r = recording_of({call(1), call(2, 1), full_call()});
  const std::string text = session_text(r);
  EXPECT_EQ(text.rfind(R"({"format":"blasscope-session","version":1,"kind":"recording","calls":[)", 0), 0u)
      << "the format and kind come first, the calls right after them";
  const Recording back = parse_recording_text(text);
  expect_same_calls(back.calls, r.calls);
  EXPECT_EQ(back.command, r.command);
  EXPECT_EQ(back.wall_seconds, r.wall_seconds);
  // The JSON parser reads the same text to the same calls.
  expect_same_calls(recording_from_json(nlohmann::json::parse(text)).calls, r.calls);
}

TEST(SessionText, TheProgramsBlasReadsBack) {
  Recording r = recording_of({call(1)});
  r.blas_library = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3";
  r.openblas_corename = "Haswell";
  ProcessInfo& p = r.processes.emplace_back();
  p.pid = 4242;
  p.blas_found = true;
  p.blas_library = r.blas_library;
  p.openblas_corename = "Haswell";
  p.openblas_config = "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64";
  p.openblas_coretype = "Haswell";
  p.openblas_threads = r.openblas_threads = 3;
  const Recording back = parse_recording_text(session_text(r));
  EXPECT_EQ(back.blas_library, r.blas_library);
  EXPECT_EQ(back.openblas_corename, "Haswell");
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].blas_library, r.blas_library);
  EXPECT_EQ(back.processes[0].openblas_corename, "Haswell");
  EXPECT_EQ(back.processes[0].openblas_config, p.openblas_config);
  EXPECT_EQ(back.processes[0].openblas_coretype, "Haswell");
  EXPECT_EQ(back.openblas_threads, 3);
  EXPECT_EQ(back.processes[0].openblas_threads, 3);
  // Unknown (a program that called no BLAS): null, and read back as unknown.
  const Recording none = parse_recording_text(session_text(recording_of({})));
  EXPECT_EQ(none.blas_library, "");
  EXPECT_EQ(none.openblas_threads, 0);
}

TEST(SessionText, AnXerblaReportOfParameter0IsStillAReport) {
  // OpenBLAS's CBLAS refuses a layout that is neither row- nor column-major as parameter 0.
  CallRecord refused = call(1);
  refused.flags |= kCblas | kXerbla;
  std::snprintf(refused.xerbla_routine, sizeof refused.xerbla_routine, "DGEMM");
  ASSERT_TRUE(has_xerbla(refused) && call_failed(refused));
  const Recording back = parse_recording_text(session_text(recording_of({refused, call(2)})));
  ASSERT_EQ(back.calls.size(), 2u);
  EXPECT_TRUE(has_xerbla(back.calls[0]));
  EXPECT_EQ(back.calls[0].xerbla_parameter, 0);
  EXPECT_STREQ(back.calls[0].xerbla_routine, "DGEMM");
  EXPECT_FALSE(has_xerbla(back.calls[1]));
  EXPECT_TRUE(has_xerbla(recording_from_json(nlohmann::json::parse(session_text(recording_of({refused})))).calls[0]));
}

TEST(SessionText, ACudaMallocOfMoreThan4GiBKeepsItsSize) {
  CallRecord malloc = call(1);
  malloc.routine = blasscope::record::Routine::CudaMalloc;
  malloc.precision = blasscope::record::Precision::S;  // as the preload records it
  malloc.flags = blasscope::record::kHasStatus;
  malloc.info = 2;
  blasscope::record::set_malloc_bytes(malloc, (std::uint64_t{5} << 30) + 3);
  const std::string text = session_text(recording_of({malloc}));
  EXPECT_NE(text.find(R"("bytes":5368709123)"), std::string::npos) << text;
  const Recording back = parse_recording_text(text);
  ASSERT_EQ(back.calls.size(), 1u);
  EXPECT_EQ(blasscope::record::malloc_bytes(back.calls[0]), (std::uint64_t{5} << 30) + 3);
  expect_same_calls(back.calls, {malloc});
}

// cublasGemmEx names its data type (PyTorch's float16 and bfloat16 products): each call keeps
// it, written as its dtype and read back, by both readers.
TEST(SessionText, ACublasGemmExKeepsTheDataTypeItWasGiven) {
  using blasscope::record::Routine;
  std::vector<CallRecord> calls;
  for (const int type : {2, 14, 0, 1, 28}) {  // CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUDA_R_64F, CUDA_R_8F_E4M3
    CallRecord c = call(static_cast<std::uint64_t>(calls.size() + 1));
    c.routine = calls.size() % 2 ? Routine::CublasGemmStridedBatchedEx : Routine::CublasGemmEx;
    c.precision = blasscope::record::Precision::S;  // as the preload records it
    c.flags = blasscope::record::kHasStatus;
    c.side_uplo = static_cast<std::uint8_t>(1 + type);
    calls.push_back(c);
  }
  CallRecord unknown = call(9);  // a type BLAScope has no name for: no dtype, nothing made up
  unknown.routine = Routine::CublasGemmEx;
  unknown.side_uplo = 1 + 99;
  const std::string text = session_text(recording_of(calls));
  for (const char* dtype : {"float16", "bfloat16", "float32", "float64", "float8_e4m3fn"}) {
    EXPECT_NE(text.find(std::string(R"("dtype":")") + dtype + "\""), std::string::npos) << dtype << ": " << text;
  }
  EXPECT_EQ(text.find(R"("char")"), std::string::npos) << "the type is no character argument: " << text;
  const Recording back = parse_recording_text(text);
  expect_same_calls(back.calls, calls);
  expect_same_calls(recording_from_json(nlohmann::json::parse(text)).calls, calls);
  EXPECT_STREQ(blasscope::record::call_dtype(back.calls[1]), "bfloat16");
  EXPECT_STREQ(blasscope::record::call_dtype(unknown), "");
  // library_types.h's integer types: CUDA_R_4I is 16, CUDA_R_16I 20, CUDA_R_64I 24.
  EXPECT_STREQ(blasscope::record::cuda_data_type_dtype(16), "int4");
  EXPECT_STREQ(blasscope::record::cuda_data_type_dtype(20), "int16");
  EXPECT_STREQ(blasscope::record::cuda_data_type_dtype(24), "int64");
  CallRecord gemm = call(10);  // any other routine's dtype is its precision's
  EXPECT_STREQ(blasscope::record::call_dtype(gemm), "float64");
}

// A routine's totals say the data type its calls were given, where they all had the same one and
// every call is listed; mixed types, or calls not listed, leave it empty (nothing made up).
TEST(SessionText, ACublasGemmExTotalSaysItsOneDataType) {
  using blasscope::record::Routine;
  std::vector<CallRecord> calls;
  for (const int type : {2, 2, 0, 14}) {  // two float16 GemmEx; a float32 and a bfloat16 strided one
    CallRecord c = call(static_cast<std::uint64_t>(calls.size() + 1));
    c.routine = calls.size() < 2 ? Routine::CublasGemmEx : Routine::CublasGemmStridedBatchedEx;
    c.flags = blasscope::record::kHasStatus;
    c.side_uplo = static_cast<std::uint8_t>(1 + type);
    calls.push_back(c);
  }
  Recording r = recording_of(calls);
  r.routines = totals_of(r.calls);
  name_single_dtypes(r);
  auto total = [](const Recording& rec, Routine routine) {
    return *std::find_if(rec.routines.begin(), rec.routines.end(),
                         [routine](const RoutineTotal& t) { return t.routine == routine; });
  };
  EXPECT_EQ(total_dtype(total(r, Routine::CublasGemmEx)), "float16");
  EXPECT_EQ(total_dtype(total(r, Routine::CublasGemmStridedBatchedEx)), "") << "two types";
  const Recording back = recording_from_json(nlohmann::json::parse(session_text(r)));
  EXPECT_EQ(total_dtype(total(back, Routine::CublasGemmEx)), "float16") << "read back";
  Recording capped = recording_of(calls);
  capped.routines = totals_of(capped.calls);
  capped.routines[0].calls += 1;  // a call not listed: its type is not known
  name_single_dtypes(capped);
  EXPECT_EQ(total_dtype(total(capped, Routine::CublasGemmEx)), "");
}

TEST(SessionText, WorkspaceQueriesAreCountedInCallsButNotInTheMean) {
  CallRecord query = call(1), work = call(2);
  query.routine = work.routine = Routine::Gesdd;
  query.flags = kHasInfo | kWorkspaceQuery;
  query.duration_ns = 20000;  // longer than the work: a first query can be (lazy set-up)
  work.flags = kHasInfo;
  work.duration_ns = 9000;
  Recording r = recording_of({query, work});
  r.routines = totals_of(r.calls);
  ASSERT_EQ(r.routines.size(), 1u);
  EXPECT_EQ(r.routines[0].calls, 2u);
  EXPECT_EQ(r.routines[0].queries, 1u);
  EXPECT_DOUBLE_EQ(mean_seconds(r.routines[0]), 9e-6);  // the one that did work: not the query's time
  EXPECT_DOUBLE_EQ(working_seconds(r.routines[0]), 9e-6);
  EXPECT_DOUBLE_EQ(r.routines[0].longest_seconds, 9e-6) << "a hang is measured against work, not a query";
  // A query does no work: no FLOPs (a QR's would double its GFLOP/s).
  CallRecord qr;
  qr.routine = Routine::Geqrf;
  qr.m = qr.n = 100;
  EXPECT_GT(flops_of(qr), 0u);
  qr.flags = kWorkspaceQuery;
  EXPECT_EQ(flops_of(qr), 0u);
  const Recording back = parse_recording_text(session_text(r));
  ASSERT_EQ(back.routines.size(), 1u);
  EXPECT_EQ(back.routines[0].queries, 1u);
  EXPECT_DOUBLE_EQ(back.routines[0].longest_seconds, 9e-6);
  EXPECT_DOUBLE_EQ(back.routines[0].query_seconds, 2e-5);
  EXPECT_TRUE(back.calls[0].flags & kWorkspaceQuery);
  EXPECT_FALSE(back.calls[1].flags & kWorkspaceQuery);
  // Only queries: their own mean.
  RoutineTotal all_queries;
  all_queries.calls = all_queries.queries = 4;
  all_queries.seconds = 2e-6;
  EXPECT_DOUBLE_EQ(mean_seconds(all_queries), 0.5e-6);
}

TEST(SessionText, AlignmentsAreWrittenInBytesAndOnlyWhereRecorded) {
  const Recording r = recording_of({call(1), full_call()});
  const std::string text = session_text(r);
  EXPECT_NE(text.find(R"("align_a":1,"align_b":8,"align_c":4096)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"("align_)"), text.find(R"("align_a":1)")) << "call(1) recorded no pointer: no alignment";
}

TEST(SessionReader, AnAlignmentThatIsNoPowerOfTwoUpTo4096IsAnErrorNamingIt) {
  for (const char* align : {"0", "3", "8192", "4294967296", "-8"}) {
    const std::string text = std::string(R"({"format":"blasscope-session","version":1,"kind":"recording","calls":[)") +
                             R"({"seq":0,"id":1,"thread":1,"routine":"dgemm","start":0,"seconds":0,"align_b":)" +
                             align + "}\n]" + R"(,"exit_status":0})";
    try {
      parse_recording_text(text);
      ADD_FAILURE() << align << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("align_b"), std::string::npos) << e.what();
    }
  }
}

TEST(SessionText, TimesAreTheExactDecimalsOfTheirNanoseconds) {
  CallRecord a = call(1), b = call(2), c = call(3);
  a.duration_ns = 60;
  a.start_ns = kStart;
  b.duration_ns = 1'000'000'001;
  b.start_ns = kStart + 2'500'000'000;
  c.duration_ns = 0;
  c.start_ns = kStart - 5;  // before the start (clock jitter): at the start, never negative
  const std::string text = session_text(recording_of({a, b, c}));
  EXPECT_NE(text.find(R"("start":0,"seconds":0.00000006,)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("start":2.5,"seconds":1.000000001,)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("start":0,"seconds":0,)"), std::string::npos) << text;
}

TEST(SessionText, ScalarsAreWrittenAsTheirShortestForm) {
  // Small integers take a quicker path; the text must be what the shortest form gives.
  for (const double v : {1.0, -1.0, 2.0, 9999.0, -9999.0, 10000.0, -10000.0, 1e5, 1e22, 123456789.0, 0.5, -2.5e-7,
                         1.0 / 3.0, 4096.0, 2147483648.0}) {
    CallRecord c = call(1);
    c.alpha = v;
    c.beta = 7;  // so that a comma follows alpha's text
    char text[kMaxCallText];
    const std::string written(text, write_call_text(text, c, 0, kStart));
    char shortest[64];
    const std::string expected = R"("alpha":)" + std::string(shortest, std::to_chars(shortest, shortest + 64, v).ptr);
    EXPECT_NE(written.find(expected + ","), std::string::npos) << v << ": " << written;
  }
}

TEST(SessionReader, CallsFirstOrCallsLastReadTheSame) {
  const Recording r = recording_of({call(1), full_call(), call(9, 7)});
  const std::string text = session_text(r);
  // An older BLAScope wrote the header first and the calls last.
  nlohmann::json header = nlohmann::json::parse(text);
  const nlohmann::json calls = header["calls"];
  header.erase("calls");
  std::string old = header.dump();
  old.pop_back();
  old += ",\"calls\":" + calls.dump() + "}";
  // Both the fast way: a million calls read with the JSON parser take a minute and gigabytes.
  for (const std::string* layout : std::array<const std::string*, 2>{&text, &old}) {
    const std::optional<Recording> fast = read_written_session(*layout);
    ASSERT_TRUE(fast.has_value()) << layout->substr(0, 200);
    expect_same_calls(fast->calls, r.calls);
    EXPECT_EQ(fast->command, r.command);
    expect_same_calls(parse_recording_text(*layout).calls, r.calls);
  }
}

TEST(SessionReader, OnlyTheTopLevelCallsAreTheCalls) {
  // A "calls" key nested in another object, before the real one, is not the recording's.
  const std::string text =
      R"({"format":"blasscope-session","version":1,"kind":"recording","extra":{"calls":[{"routine":"sgemm"}]},)"
      R"("calls":[{"seq":0,"id":1,"routine":"dgemm","start":0,"seconds":1}],"pid":1})";
  ASSERT_TRUE(read_written_session(text).has_value());
  const Recording r = parse_recording_text(text);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].routine, Routine::Gemm);
  EXPECT_EQ(r.calls[0].precision, Precision::D);
}

TEST(SessionReader, AMissingSeparatorIsNotJoinedOver) {
  const std::string text = R"({"format":"blasscope-session","version":1,"kind":"recording","calls":[)"
                           R"({"seq":0,"id":1,"routine":"dgemm","start":0,"seconds":1}] "pid":7})";
  EXPECT_FALSE(read_written_session(text).has_value());
  // Damage after the calls is no cut: refused, not read as a session whose end is unknown.
  EXPECT_THROW(parse_recording_text(text), nlohmann::json::exception);
}

TEST(SessionReader, IntegersOutsideTheirFieldAreRefusedNamingIt) {
  // Each read the fast way and, with an escape in the routine, the JSON parser's way.
  const auto session = [](const std::string& field, const std::string& routine) {
    return R"({"format":"blasscope-session","version":1,"kind":"recording","calls":[{"id":1,"routine":")" + routine +
           R"(","start":0,"seconds":0,)" + field + "}],\"pid\":1}";
  };
  for (const char* routine : {"dgemm", "dg\\u0065mm"}) {
    EXPECT_EQ(
        parse_recording_text(session(R"("m":2147483647,"pid":4294967295,"info":-2147483648)", routine)).calls.at(0).m,
        2147483647);
    for (const char* bad : {R"("m":2147483648)", R"("pid":4294967296)", R"("id":-1)", R"("info":-2147483649)",
                            R"("lda":1.5)", R"("parent":18446744073709551616)", R"("n":1e300)"}) {
      try {
        parse_recording_text(session(bad, routine));
        ADD_FAILURE() << "accepted " << bad << " (" << routine << ")";
      } catch (const std::invalid_argument& error) {
        const std::string name = std::string(bad).substr(1, std::string(bad).find('"', 1) - 1);
        EXPECT_NE(std::string(error.what()).find('"' + name + '"'), std::string::npos) << error.what();
      } catch (const nlohmann::json::exception& error) {
        // 2^64 does not fit nlohmann's integers: its parser refuses it as a number out of range.
        EXPECT_STREQ(bad, R"("parent":18446744073709551616)") << error.what();
      }
    }
  }
}

TEST(SessionReader, ASessionCutInsideItsCallsIsReadAsFastAsAFinishedOne) {
  // A killed recorder's 250 MB session took 16 s to open: a JSON parser read all of it before
  // failing at its end, and only then were the calls read as they are in a finished one. Later
  // the calls were read twice (in parts, failing at the cut, then again in one go): 3-4 times as
  // long as a finished session on two cores. Each is timed at its best of three (a noisy machine).
  std::vector<CallRecord> calls;
  for (std::uint64_t i = 1; i <= 100000; ++i) calls.push_back(call(i));
  const std::string text = session_text(recording_of(calls));
  const std::string_view cut = std::string_view(text).substr(0, text.find("\n]") - 10);
  const auto best_seconds = [](const auto& work) {
    double best = 1e9;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      work();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
  };
  std::size_t finished_calls = 0, unfinished_calls = 0;
  const double finished = best_seconds([&] { finished_calls = parse_recording_text(text).calls.size(); });
  const double unfinished = best_seconds([&] { unfinished_calls = parse_recording_text(cut).calls.size(); });
  EXPECT_EQ(finished_calls, 100000u);
  EXPECT_EQ(unfinished_calls, 99999u);
  EXPECT_LT(unfinished, 1.6 * finished + 0.005) << "finished " << finished << " s, unfinished " << unfinished << " s";
}

TEST(SessionReader, CallsReadInPartsAreTheCallsReadInOneGo) {
  // A big session is read in parts, each from a line that starts with "{" (BLAScope writes a call
  // a line). Here every call's nested "xerbla" object starts a line too: a part that starts at
  // one does not end where its neighbour does, and the whole is read in one go instead. Blanks
  // before the calls move the cut across every place in a line; the calls are the same each time.
  std::vector<CallRecord> calls;
  for (std::uint64_t i = 1; i <= 100000; ++i) {
    CallRecord c = call(i);
    c.flags |= blasscope::record::kXerbla;
    std::memcpy(c.xerbla_routine, "DGEMV", 5);
    c.xerbla_parameter = static_cast<std::int32_t>(i % 13 + 1);
    calls.push_back(c);
  }
  const Recording r = recording_of(calls);
  const std::string written = session_text(r);
  expect_same_calls(parse_recording_text(written).calls, r.calls);
  std::string nested;
  for (std::size_t at = 0;;) {
    const std::size_t found = written.find("\"xerbla\":{", at);
    nested.append(written, at, found == std::string::npos ? std::string::npos : found + 9 - at);
    if (found == std::string::npos) break;
    nested += '\n';
    at = found + 9;
  }
  ASSERT_GT(nested.size(), written.size() + 99999);
  const std::size_t calls_at = nested.find("\"calls\":[") + 9;
  for (const std::size_t blanks : {0, 60, 120, 180, 240, 300}) {
    std::string shifted = nested;
    shifted.insert(calls_at, blanks, ' ');
    expect_same_calls(parse_recording_text(shifted).calls, r.calls);
  }
}

TEST(SessionReader, ASessionCutShortGivesTheCallsWrittenBeforeTheCut) {
  // A recorder killed (SIGKILL, the OOM killer) leaves the head and the calls streamed so far.
  const Recording r = recording_of({call(1), call(2, 1), full_call()});
  const std::string text = session_text(r);
  const std::size_t second = text.find(",\n{", text.find("\n{") + 1), third = text.find(",\n{", second + 1);
  const std::size_t tail = text.find("\n]");
  struct Cut {
    std::size_t at;
    std::size_t calls;
  };
  for (const Cut cut :
       {Cut{session_head().size(), 0}, Cut{second, 1}, Cut{second + 20, 1}, Cut{third + 1, 2}, Cut{tail, 3}}) {
    SCOPED_TRACE(cut.at);
    const Recording back = parse_recording_text(std::string_view(text).substr(0, cut.at));
    ASSERT_EQ(back.calls.size(), cut.calls);
    for (std::size_t i = 0; i < cut.calls; ++i) EXPECT_EQ(back.calls[i].id, r.calls[i].id);
    EXPECT_NE(back.problem.find("never finished"), std::string::npos) << back.problem;
    EXPECT_EQ(back.calls_total, cut.calls);
    EXPECT_EQ(back.exit_status, -1);
    std::uint64_t summed = 0;
    for (const auto& t : back.routines) summed += t.calls;
    EXPECT_EQ(summed, cut.calls) << "totals summed from the calls it has";
    EXPECT_EQ(back.pid, cut.calls ? 4242u : 0u) << "a lone process is the program's";
  }
  {
    // Calls of two processes: which was the program's is not guessed.
    Recording two = recording_of({call(1), call(2)});
    two.calls[0].pid = 77;
    const std::string cut = session_text(two);
    const Recording back = parse_recording_text(std::string_view(cut).substr(0, cut.find("\n]")));
    EXPECT_EQ(back.processes.size(), 2u);
    EXPECT_EQ(back.pid, 0u);
  }
  // A cut after the calls (in the command, the totals) keeps every call and says its end was cut;
  // damage there (a byte changed, text appended) is refused.
  const Recording cut_totals = parse_recording_text(std::string_view(text).substr(0, tail + 10));
  EXPECT_EQ(cut_totals.calls.size(), 3u);
  EXPECT_NE(cut_totals.problem.find("its end was cut off"), std::string::npos) << cut_totals.problem;
  std::string changed = text;
  changed.insert(tail + 2, "@");  // right after the calls' `]`
  EXPECT_THROW(parse_recording_text(changed), nlohmann::json::exception);
  EXPECT_THROW(parse_recording_text(text + text), nlohmann::json::exception);
  // Damage among the calls is still refused.
  std::string damaged = text.substr(0, third);
  damaged += ",\n{\"id\":9,@}";
  EXPECT_THROW(parse_recording_text(damaged), nlohmann::json::exception);
  EXPECT_THROW(parse_recording_text(std::string_view(text).substr(0, 20)), nlohmann::json::exception);
}

TEST(SessionReader, EscapedTextGoesTheCarefulWayToTheSameCalls) {
  // "dg\u0065mm" is "dgemm": the fast reader leaves escapes to the JSON parser.
  const std::string text = R"({"format":"blasscope-session","version":1,"kind":"recording","calls":[)"
                           R"({"seq":0,"id":1,"routine":"dg\u0065mm","start":0,"seconds":0.5,"m":3}],"pid":1})";
  const Recording r = parse_recording_text(text);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].routine, Routine::Gemm);
  EXPECT_EQ(r.calls[0].m, 3);
  EXPECT_EQ(r.calls[0].duration_ns, 500'000'000u);
}

TEST_F(TempDir, AStreamedSessionIsTheSessionTextWhateverTheThreadGotDone) {
  // Finishing at once races the writing thread: whichever writes a batch, the file is the same.
  std::vector<CallRecord> calls;
  for (std::uint64_t id = 1; id <= 20000; ++id) calls.push_back(call(id, id > 1 && id % 7 ? id - 1 : 0));
  calls[123] = full_call();
  const Recording r = recording_of(calls);
  const std::string expected = session_text(r);
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{777}, std::size_t{8192}, std::size_t{20000}}) {
    for (const bool wait : {false, true}) {
      const std::string file = path("streamed.json");
      {
        StreamedSession session(file);
        for (std::size_t i = 0; i < calls.size(); i += chunk) {
          session.append(std::span(calls).subspan(i, std::min(chunk, calls.size() - i)), kStart);
          // A pause lets the thread write and give its buffers back for the next calls.
          if (wait && i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (wait) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        session.finish(r);
      }
      EXPECT_EQ(file_text(file), expected) << "chunks of " << chunk << (wait ? ", after a wait" : "");
      if (chunk == 1 && !wait) expect_same_calls(read_written_session(expected).value().calls, calls);
      EXPECT_FALSE(part_files_left(m_dir));
    }
  }
}

// The calling thread and the threads it starts from here share one CPU, as beside a program
// that keeps every core busy; restored when it goes.
class OneCpu {
 public:
  OneCpu() {
    ::sched_getaffinity(0, sizeof m_all, &m_all);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(::sched_getcpu(), &one);
    m_pinned = ::sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~OneCpu() { ::sched_setaffinity(0, sizeof m_all, &m_all); }
  OneCpu(const OneCpu&) = delete;
  OneCpu& operator=(const OneCpu&) = delete;
  bool pinned() const { return m_pinned; }

 private:
  cpu_set_t m_all;
  bool m_pinned = false;
};

std::vector<CallRecord> many_calls(std::uint64_t count) {
  std::vector<CallRecord> calls;
  for (std::uint64_t id = 1; id <= count; ++id) calls.push_back(call(id));
  return calls;
}

// Hands `calls` on as the recorder drains a full ring: 16,384 at a time.
void append_as_drained(StreamedSession& session, const std::vector<CallRecord>& calls) {
  constexpr std::size_t kChunk = 16384;
  for (std::size_t i = 0; i < calls.size(); i += kChunk) {
    session.append(std::span(calls).subspan(i, std::min(kChunk, calls.size() - i)), kStart);
  }
}

TEST_F(TempDir, AStreamedSessionAsksForLittleNewMemoryWhateverTheCallsHandedToIt) {
  // Calls handed on faster than the thread writes them, with no core to spare for it: the
  // recording thread steps aside, so buffers come back and are reused instead of a new one
  // for every batch. (A long wait allowed: on a loaded machine the idle-class thread may take
  // a while even on a core left to it.)
  const std::vector<CallRecord> calls = many_calls(400000);
  const Recording r = recording_of(calls);
  const std::string file = path("many.json");
  std::size_t made = 0;
  {
    const OneCpu one;
    ASSERT_TRUE(one.pinned());
    // Its thread shares this one's CPU; eight buffers behind at most (the default would let all
    // 25 be made before the first wait).
    StreamedSession session(file, std::chrono::seconds(20), 8);
    append_as_drained(session, calls);
    made = session.buffers_made();
    session.finish(r);
  }
  EXPECT_LE(made, 12u) << "of 25 batches";
  EXPECT_EQ(file_text(file), session_text(r));
}

// Seconds `session` takes to be handed `calls` while a thread of normal priority spins on the
// same CPU (the caller pinned it there with OneCpu): the idle-class writer gets next to nothing.
double seconds_to_append_beside_a_busy_thread(StreamedSession& session, const std::vector<CallRecord>& calls) {
  std::atomic<bool> busy{true};
  std::thread spinner([&busy] {
    while (busy.load(std::memory_order_relaxed)) {
    }
  });
  const auto start = std::chrono::steady_clock::now();
  append_as_drained(session, calls);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  busy.store(false);
  spinner.join();
  return seconds;
}

TEST_F(TempDir, AStreamedSessionDoesNotWaitAgainForAThreadThatGetsNoCore) {
  // A busy thread of normal priority beside the idle-class writer, on one CPU: the writer gets
  // next to nothing, and the recording thread, after one wait in vain, goes on (buffers pile up
  // instead of the recorder waiting at every drain while the program waits on the ring).
  const std::vector<CallRecord> calls = many_calls(400000);
  const Recording r = recording_of(calls);
  const std::string file = path("starved.json");
  const OneCpu one;
  ASSERT_TRUE(one.pinned());
  StreamedSession session(file, std::chrono::milliseconds(300), 8);
  const double seconds = seconds_to_append_beside_a_busy_thread(session, calls);
  // 17 appends past the limit, 0.3 s each were they all waited: 5 s.
  EXPECT_LT(seconds, 3.0);
  session.finish(r);
  EXPECT_EQ(file_text(file), session_text(r));
}

TEST_F(TempDir, AStreamedSessionDoesNotWaitForTheWriterWhileItIsFewerThanItsLimitBehind) {
  // The writer starved as above, and a wait that would last 5 s: 25 buffers behind is within the
  // default limit, so the recording thread (and the program behind it, on a full ring) never
  // waits for the formatting; the writer catches up afterwards.
  const std::vector<CallRecord> calls = many_calls(400000);
  const Recording r = recording_of(calls);
  const std::string file = path("ahead.json");
  const OneCpu one;
  ASSERT_TRUE(one.pinned());
  StreamedSession session(file, std::chrono::seconds(5));
  ASSERT_GT(StreamedSession::kMostPendingBuffers, 25u);
  const double seconds = seconds_to_append_beside_a_busy_thread(session, calls);
  EXPECT_LT(seconds, 2.5);
  session.finish(r);
  EXPECT_EQ(file_text(file), session_text(r));
}

// The process's address space now, from /proc/self/statm (pages).
std::size_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

bool sanitized() {
  const char* value = std::getenv("BLASSCOPE_SANITIZED");
  return value && std::string(value) == "1";
}
constexpr const char* kNoAddressLimitUnderAsan =
    "ASan reserves terabytes of address space: RLIMIT_AS cannot be tested under it";

// Sets this process's address-space limit `room` bytes above what it has mapped now.
bool limit_address_space_to(std::size_t room) {
  const rlimit limit{address_space_bytes() + room, RLIM_INFINITY};
  return ::setrlimit(RLIMIT_AS, &limit) == 0;
}

// The exit code of `child()` run in a forked process (where a limit it sets is its own); -1
// for a child that did not exit.
template <typename Child>
int exit_code_in_a_child(Child&& child) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(child());
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST_F(TempDir, AStreamedSessionOutOfMemoryForBuffersWaitsForTheWriterToGiveOneBack) {
  // Under `ulimit -v` a recorder far behind cannot make the buffers its limit allows: it reuses
  // those the writer gives back instead of losing calls.
  if (sanitized()) GTEST_SKIP() << kNoAddressLimitUnderAsan;
  const std::vector<CallRecord> calls = many_calls(400000);  // 25 buffers, 50 MiB
  const Recording r = recording_of(calls);
  const std::string file = path("limited.json");
  const int code = exit_code_in_a_child([&] {
    StreamedSession session(file);
    // Room for a few more buffers (each mapped with 2 MiB to spare for its alignment).
    if (!limit_address_space_to(24u << 20)) return 3;
    append_as_drained(session, calls);
    try {
      session.finish(r);
    } catch (const std::exception&) {  // runtime_error naming the file, or bad_alloc
      return 4;
    }
    return session.buffers_made() >= 25 ? 5 : 0;
  });
  EXPECT_NE(code, 4) << "the session ran out of memory";
  EXPECT_NE(code, 5) << "a buffer for every batch: the limit was not reached";
  ASSERT_EQ(code, 0);
  EXPECT_EQ(file_text(file), session_text(r));
}

TEST_F(TempDir, AStreamedSessionFinishedWithRoomForAFewCallsTextIsWhole) {
  // The recorder took every buffer it could have (as above) and the writer got no CPU: finish()
  // has all 25 batches to write and room for no piece of 2,048 calls' text (400 KB). It writes
  // them in pieces of a few calls instead of giving up the session.
  if (sanitized()) GTEST_SKIP() << kNoAddressLimitUnderAsan;
  const std::vector<CallRecord> calls = many_calls(400000);
  const Recording r = recording_of(calls);
  const std::string file = path("little_room.json");
  const int code = exit_code_in_a_child([&] {
    const OneCpu one;  // the writer's and the spinner's, so the idle-class writer gets nothing
    if (!one.pinned()) return 3;
    std::atomic<bool> busy{true};
    std::thread spinner([&busy] {
      while (busy.load(std::memory_order_relaxed)) {
      }
    });
    int result = 0;
    {
      StreamedSession session(file);
      append_as_drained(session, calls);
      if (!limit_address_space_to(128u << 10)) result = 3;
      try {
        if (!result) session.finish(r);
      } catch (const std::exception&) {
        result = 4;
      }
    }
    busy.store(false);
    spinner.join();
    return result;
  });
  EXPECT_NE(code, 4) << "the session ran out of memory";
  ASSERT_EQ(code, 0);
  EXPECT_EQ(file_text(file), session_text(r));
}

TEST_F(TempDir, AStreamedSessionWithoutCallsIsWhole) {
  const Recording r = recording_of({});
  const std::string file = path("empty.json");
  StreamedSession(file).finish(r);
  EXPECT_EQ(file_text(file), session_text(r));
  EXPECT_TRUE(read_written_session(file_text(file)).has_value());
  EXPECT_TRUE(parse_recording_text(file_text(file)).calls.empty());
}

TEST_F(TempDir, ASessionReplacesAnOlderFileOfItsName) {
  const std::string file = path("session.json");
  { std::ofstream(file) << "an older session"; }
  const Recording r = recording_of({call(1)});
  SessionWriter writer(file);
  writer.append(r.calls, r.start_ns);
  writer.finish(r);
  EXPECT_EQ(file_text(file), session_text(r));
  EXPECT_FALSE(part_files_left(m_dir));
}

TEST_F(TempDir, TwoSessionsWrittenUnderOneNameDoNotMix) {
  const std::string file = path("shared.json");
  const Recording first = recording_of({call(1), call(2)}), second = recording_of({call(3)});
  StreamedSession a(file), b(file);
  a.append(first.calls, kStart);
  b.append(second.calls, kStart);
  a.finish(first);
  EXPECT_EQ(file_text(file), session_text(first));
  b.finish(second);
  EXPECT_EQ(file_text(file), session_text(second)) << "the last one finished is the file, whole";
  EXPECT_FALSE(part_files_left(m_dir));
}

TEST_F(TempDir, AFolderThatCannotBeWrittenIsAnErrorNamingThePath) {
  std::ofstream(path("plain-file")) << "x";  // a file where the folder should be: it cannot be made
  const std::string file = path("plain-file/session.json");
  const Recording r = recording_of({call(1)});
  StreamedSession session(file);
  session.append(r.calls, r.start_ns);
  try {
    session.finish(r);
    FAIL() << "finished a session in a folder that cannot exist";
  } catch (const std::runtime_error& error) {
    const std::string said = error.what();
    EXPECT_NE(said.find("plain-file/session.json.part"), std::string::npos) << said;
    // Written into the temporary folder instead, whole, and named.
    const std::size_t kept = said.find("; the session is kept in ");
    ASSERT_NE(kept, std::string::npos) << said;
    const std::string copy = said.substr(kept + std::strlen("; the session is kept in "));
    EXPECT_EQ(parse_recording_text(file_text(copy)).calls.size(), 1u);
    std::filesystem::remove(copy);
  }
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(TempDir, AFolderRemovedWhileTheSessionIsWrittenIsMadeAgain) {
  // The program deleted its output folder: before the first write, and after it.
  for (const bool after_first_write : {false, true}) {
    SCOPED_TRACE(after_first_write);
    const std::string file = path("gone/session.json");
    std::filesystem::create_directories(path("gone"));
    const Recording r = recording_of({call(1), call(2)});
    StreamedSession session(file);
    if (after_first_write) session.append(std::span(r.calls).first(1), r.start_ns);
    std::filesystem::remove_all(path("gone"));
    session.append(std::span(r.calls).subspan(after_first_write ? 1 : 0), r.start_ns);
    session.finish(r);
    EXPECT_EQ(parse_recording_text(file_text(file)).calls.size(), 2u);
    std::filesystem::remove_all(path("gone"));
  }
}

TEST_F(TempDir, AnUnfinishedSessionLeavesNothingBehind) {
  const std::string file = path("abandoned.json");
  {
    StreamedSession session(file);
    session.append(std::vector<CallRecord>{call(1), call(2)}, kStart);
  }
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_FALSE(part_files_left(m_dir));
}

}  // namespace
}  // namespace blasscope::record
