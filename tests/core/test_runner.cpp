// The runner in-process: records, findings and events for each kind of op and failure.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "diagnose/run_diagnosis.h"
#include "exec/runner.h"
#include "io/input_error.h"
#include "kernels/lapack_drivers.h"
#include "results/run_result.h"
#include "results/session_file.h"
#include "results/trace_writer.h"
#include "test_files.h"
#include "workload/workload_parser.h"

using namespace blasscope::core;

namespace {

RunResult run(const std::string& text, RunOptions options = {}) {
  RunCollector collector;
  run_workload(parse_workload_text(text, "/"), options, collector);
  return collector.finish();
}

bool has_finding(const RunResult& r, const std::string& id, std::optional<std::size_t> op = std::nullopt) {
  for (const auto& f : r.findings) {
    if (f.id == id && (!op || f.op == op)) return true;
  }
  return false;
}

template <typename Event>
std::size_t count_events(
    const RunResult& r, bool (*match)(const Event&) = [](const Event&) { return true; }) {
  std::size_t n = 0;
  for (const auto& e : r.events) n += e.template as<Event>() && match(*e.template as<Event>());
  return n;
}

}  // namespace

TEST(Runner, GemmRecordHasShapeTimingAlignmentAndThroughput) {
  const RunResult r = run(R"({"name": "g", "tensors": {
      "a": {"shape": [64, 48], "dtype": "float64", "misalign": 8},
      "b": {"shape": [48, 32], "dtype": "float64", "order": "F"}},
    "ops": [{"op": "gemm", "a": "a", "b": "b", "repeat": 3}]})");
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.ops.size(), 1u);
  const KernelRecord& g = r.ops[0];
  EXPECT_EQ(g.status, OpStatus::Ok);
  EXPECT_EQ(g.kernel, "cblas_dgemm");
  EXPECT_EQ(*g.m, 64);
  EXPECT_EQ(*g.n, 32);
  EXPECT_EQ(*g.k, 48);
  EXPECT_EQ(g.seconds_each.size(), 3u);
  EXPECT_GT(*g.gflops, 0);
  EXPECT_EQ(g.operands[0].alignment, 8u);
  EXPECT_EQ(g.operands[1].order, MemoryOrder::Fortran);
  EXPECT_EQ(g.bytes_touched, (64u * 48 + 48 * 32 + 64 * 32) * 8);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_FALSE(r.has_errors());
  EXPECT_EQ(count_events<events::KernelStarted>(r), 1u);
  EXPECT_GE(count_events<events::TensorAllocated>(r), 3u);
  EXPECT_EQ(count_events<events::TensorAllocated>(r), count_events<events::TensorFreed>(r));
  ASSERT_TRUE(r.environment.cpu.has_value());
  EXPECT_FALSE(r.environment.cpu->openblas_corename.empty());
}

TEST(Runner, AReplayedCaptureKeepsItsCallsLayoutWithoutALayoutFinding) {
  // The same Fortran-order GEMM as a workload of its own, and as a capture of a recorded call:
  // only the first reports the layout (the recording never did, nor does its replay).
  const std::string body = R"("tensors": {
      "a": {"shape": [6, 5], "dtype": "float64", "order": "F"},
      "b": {"shape": [5, 4], "dtype": "float64", "order": "F"}},
    "ops": [{"op": "gemm", "a": "a", "b": "b"}]})";
  const auto ids = [](const RunResult& r) {
    std::set<std::string> out;
    for (const Diagnosis& d : diagnose_run(r)) out.insert(d.id);
    return out;
  };
  const RunResult own = run(R"({"name": "g", )" + body);
  EXPECT_FALSE(own.recorded_call.has_value());
  EXPECT_TRUE(ids(own).count("non-contiguous-layout"));
  const RunResult replay = run(R"({"name": "call 7", "recorded_call": 7, )" + body);
  EXPECT_EQ(replay.recorded_call, std::optional<std::uint64_t>(7));
  EXPECT_FALSE(ids(replay).count("non-contiguous-layout"));
  EXPECT_THROW(run(R"({"name": "call 7", "recorded_call": "seven", )" + body), InputError);
}

TEST(Runner, RejectedOpsBecomeFindings) {
  const RunResult r = run(R"({"name": "bad", "tensors": {
      "a": {"shape": [4, 3], "dtype": "float64"}, "f": {"shape": [3, 2], "dtype": "float32"},
      "h": {"shape": [3, 3], "dtype": "float16"}, "i": {"shape": [3, 3], "dtype": "int32"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"},
            {"op": "gemm", "a": "a", "b": "f"},
            {"op": "gemm", "a": "h", "b": "h"},
            {"op": "gemm", "a": "i", "b": "i"},
            {"op": "gemm", "a": "a", "b": "f", "promote": true},
            {"op": "gemm", "a": "h", "b": "h", "promote": true, "out": "hh"}]})");
  ASSERT_EQ(r.ops.size(), 6u);
  EXPECT_TRUE(has_finding(r, "shape-mismatch", 0));
  EXPECT_TRUE(has_finding(r, "dtype-mismatch", 1));
  EXPECT_TRUE(has_finding(r, "unsupported-dtype", 2));
  EXPECT_TRUE(has_finding(r, "unsupported-dtype", 3));
  EXPECT_EQ(r.ops[4].status, OpStatus::Ok);
  EXPECT_EQ(r.ops[4].dtype, DType::Float64);
  EXPECT_EQ(r.ops[4].casts, std::vector<std::string>{"b: float32 -> float64"});
  EXPECT_EQ(r.ops[5].dtype, DType::Float32);
  EXPECT_EQ(r.ops[5].casts.size(), 2u);
  EXPECT_TRUE(r.has_errors());
}

TEST(Runner, IllegalLeadingDimensionIsCapturedWithItsMeaning) {
  const RunResult r = run(R"({"name": "ld", "tensors": {
      "a": {"shape": [4, 6], "dtype": "float64"}, "b": {"shape": [6, 5], "dtype": "float64"}},
    "ops": [{"op": "gemm", "a": "a", "b": "b", "lda": 3}]})");
  ASSERT_EQ(r.ops[0].xerbla.size(), 1u);
  EXPECT_EQ(r.ops[0].xerbla[0].routine, "DGEMM");
  EXPECT_EQ(r.ops[0].xerbla[0].parameter, 10);  // row-major: the user's lda is the swapped call's LDB
  EXPECT_NE(r.ops[0].xerbla[0].meaning.find("(lda)"), std::string::npos);
  EXPECT_EQ(r.ops[0].status, OpStatus::Failed);
  EXPECT_TRUE(has_finding(r, "illegal-argument", 0));
  EXPECT_EQ(count_events<events::Xerbla>(r), 1u);
}

TEST(Runner, GemvSyrkAndTrsmPassTheArgumentsTheyAreGiven) {
  // A replayed capture: BLAS refuses what the program passed, its parameter named.
  const RunResult r = run(R"({"name": "l23", "tensors": {
      "a": {"shape": [5, 4], "dtype": "float64", "order": "F"}, "x": {"shape": [4], "dtype": "float64"},
      "t": {"shape": [5, 5], "dtype": "float32"}, "b": {"shape": [5, 3], "dtype": "float32"},
      "s": {"shape": [5, 3], "dtype": "float64", "order": "F"}},
    "ops": [{"op": "gemv", "a": "a", "x": "x", "lda": 3},
            {"op": "gemv", "a": "a", "x": "x", "incx": 0, "out": "y0"},
            {"op": "gemv", "a": "a", "x": "x", "out": "y"},
            {"op": "trsm", "a": "t", "b": "b", "ldb": 2},
            {"op": "trsm", "a": "t", "b": "b", "uplo": "U", "diag": "U", "out": "z"},
            {"op": "syrk", "a": "s", "ldc": 4, "out": "c0"},
            {"op": "syrk", "a": "s", "trans": true, "out": "c"},
            {"op": "trsm", "a": "a", "b": "b"}]})");
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.ops.size(), 8u);
  const auto refused = [&r](std::size_t op, const char* routine, int parameter, const char* meaning) {
    SCOPED_TRACE(op);
    ASSERT_EQ(r.ops[op].xerbla.size(), 1u);
    EXPECT_EQ(r.ops[op].xerbla[0].routine, routine);
    EXPECT_EQ(r.ops[op].xerbla[0].parameter, parameter);
    EXPECT_EQ(r.ops[op].xerbla[0].meaning, meaning);
    EXPECT_TRUE(has_finding(r, "illegal-argument", op));
  };
  refused(0, "DGEMV", 6, "LDA");
  refused(1, "DGEMV", 8, "INCX");
  refused(3, "STRSM", 11, "LDB");
  refused(5, "DSYRK", 10, "LDC");
  for (const std::size_t ok : {2u, 4u, 6u}) {
    SCOPED_TRACE(ok);
    EXPECT_EQ(r.ops[ok].status, OpStatus::Ok);
    EXPECT_TRUE(r.ops[ok].xerbla.empty());
  }
  EXPECT_EQ(r.ops[2].kernel, "cblas_dgemv");
  EXPECT_EQ(r.ops[4].kernel, "cblas_strsm");
  EXPECT_EQ(*r.ops[6].n, 3);  // trans: A^T A is 3 x 3
  EXPECT_EQ(*r.ops[6].k, 5);
  // A float64 A beside a float32 B is refused before BLAS sees it.
  EXPECT_EQ(r.ops[7].status, OpStatus::Failed);
  EXPECT_EQ(r.ops[7].error_kind, ErrorKind::DtypeMismatch);
}

TEST(Runner, BlasCallsCountOnlyWhatTheyWriteAndRepeatFromTheSameValues) {
  // SYRK leaves the other triangle of C alone, GEMV the elements between y's strided ones: their
  // NaN are not the call's output.
  const RunResult r = run(R"({"name": "written", "tensors": {
      "a": {"shape": [4, 3], "dtype": "float64", "order": "F"}, "x": {"shape": [3], "dtype": "float64"},
      "c": {"shape": [4, 4], "dtype": "float64", "order": "F", "nan": 16},
      "y": {"shape": [7], "dtype": "float64", "nan": 7},
      "t": {"shape": [3, 3], "dtype": "float64", "fill": "ones"}, "b": {"shape": [3, 2], "dtype": "float64"},
      "p": {"shape": [1, 3], "dtype": "float64", "order": "F", "ld": 2}},
    "ops": [{"op": "syrk", "a": "a", "c": "c", "beta": 0},
            {"op": "gemv", "a": "a", "x": "x", "y": "y", "incy": 2, "beta": 0},
            {"op": "trsm", "a": "t", "b": "b", "out": "once"},
            {"op": "trsm", "a": "t", "b": "b", "out": "thrice", "repeat": 3},
            {"op": "gemv", "a": "a", "x": "p", "out": "padded"}]})");
  ASSERT_EQ(r.ops.size(), 5u);
  EXPECT_EQ(r.ops[0].status, OpStatus::Ok);
  EXPECT_EQ(r.ops[0].output_nan, 0u) << "the upper triangle's NaN are not SYRK's";
  EXPECT_EQ(r.ops[1].output_nan, 0u) << "y[1], y[3], y[5] are not GEMV's";
  EXPECT_FALSE(has_finding(r, "non-finite-output"));
  // Each repetition solves from B as it was: the result is the same as one solve's.
  EXPECT_EQ(r.ops[3].seconds_each.size(), 3u);
  EXPECT_EQ(r.ops[2].operands.back().max_abs, r.ops[3].operands.back().max_abs);
  // A padded 1 x 3 x would have BLAS read its padding: refused.
  EXPECT_EQ(r.ops[4].error_kind, ErrorKind::ShapeMismatch);
}

TEST(Runner, NaNReachesLapackAsItDoesInNumPy) {
  const RunResult r = run(R"({"name": "svd", "tensors": {"x": {"shape": [10, 5], "dtype": "float64", "nan": 1}},
    "ops": [{"op": "svd", "a": "x"}, {"op": "dlascl", "a": "x", "cfrom": "norm", "cto": 1},
            {"op": "lstsq", "a": "x", "b": "x"}]})");
  ASSERT_EQ(r.ops.size(), 3u);
  // gesdd refuses a NaN norm with INFO=-4 (or, in LAPACK builds without that check, DLASCL's xerbla).
  EXPECT_TRUE(r.ops[0].info.value_or(0) < 0 || !r.ops[0].xerbla.empty());
  EXPECT_EQ(r.ops[1].info, -4);
  ASSERT_EQ(r.ops[1].xerbla.size(), 1u);
  EXPECT_EQ(r.ops[1].xerbla[0].routine, "DLASCL");
  EXPECT_EQ(r.ops[1].xerbla[0].parameter, 4);
  EXPECT_TRUE(has_finding(r, "non-finite-input", 0));
  EXPECT_TRUE(has_finding(r, "dlascl-invalid-cfrom", 0));  // the NaN norm, through gesdd
  EXPECT_TRUE(has_finding(r, "dlascl-invalid-cfrom", 1));  // DLASCL itself
}

// The values themselves are compared with NumPy's in the end-to-end suite.
TEST(Runner, LapackDriversRunInBothPrecisions) {
  const std::string text = R"({"name": "la", "tensors": {
      "a": {"shape": [3, 2], "dtype": "float64", "fill": "zeros"},
      "b": {"shape": [3], "dtype": "float64", "fill": "zeros"}},
    "ops": [{"op": "svd", "a": "a"}]})";
  const RunResult zeros = run(text);
  EXPECT_EQ(zeros.ops[0].status, OpStatus::Ok);
  EXPECT_EQ(zeros.ops[0].info, 0);
  const RunResult r = run(R"({"name": "la", "tensors": {"a": {"shape": [40, 30], "dtype": "float32", "seed": 3},
      "b": {"shape": [40, 2], "dtype": "float32", "seed": 4}},
    "ops": [{"op": "svd", "a": "a"}, {"op": "lstsq", "a": "a", "b": "b", "out": "x"}]})");
  EXPECT_EQ(r.ops[0].kernel, "sgesdd");
  EXPECT_EQ(r.ops[1].kernel, "sgelsd");
  EXPECT_EQ(r.ops[1].info, 0);
  EXPECT_EQ(r.ops[1].status, OpStatus::Ok);
  // Each driver's real and integer workspaces are reported, with the sizes LAPACK asked for.
  EXPECT_EQ(count_events<events::Workspace>(r, [](const events::Workspace& w) { return w.allocated; }), 4u);
  EXPECT_EQ(count_events<events::Workspace>(r, [](const events::Workspace& w) { return !w.allocated; }), 4u);
  const auto sizes = svd_workspace<float>(SvdDriver::Gesdd, false, 40, 30);
  bool found = false;
  for (const auto& e : r.events) {
    const auto* w = e.as<events::Workspace>();
    if (w && w->allocated && w->workspace == "gesdd workspace") {
      EXPECT_EQ(w->op, 0u);
      EXPECT_EQ(w->bytes, static_cast<std::uint64_t>(sizes.work) * sizeof(float));
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(Runner, ComplexSvdsRunAsNumPyAndSciPyCallThem) {
  // Shapes where OpenBLAS 0.3.21's complex SVDs read past the end of A and of V^H (30 x 9, 9 x 30):
  // against the guard pages after each tensor they would crash without the room the op gives them.
  const RunResult r = run(R"({"name": "csvd", "tensors": {
      "a": {"shape": [30, 9], "dtype": "complex128", "seed": 1}, "w": {"shape": [9, 30], "dtype": "complex64", "seed": 2},
      "n": {"shape": [6, 4], "dtype": "complex128", "nan": 1}},
    "ops": [{"op": "svd", "a": "a", "driver": "gesdd", "compute_uv": true, "out": "s1"},
            {"op": "svd", "a": "w", "driver": "gesvd", "compute_uv": true, "out": "s2"},
            {"op": "svd", "a": "a", "driver": "gesvd", "out": "s3"},
            {"op": "svd", "a": "n", "out": "s4"}]})");
  ASSERT_EQ(r.ops.size(), 4u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.ops[i].status, OpStatus::Ok) << r.ops[i].error.value_or("");
    EXPECT_EQ(r.ops[i].info, 0);
  }
  EXPECT_EQ(r.ops[0].kernel, "zgesdd");
  EXPECT_EQ(r.ops[1].kernel, "cgesvd");
  // The singular values are real; U and V^H have A's dtype.
  const auto output = [&r](std::size_t op, const std::string& role) {
    for (const auto& o : r.ops[op].operands) {
      if (o.role == role) return o;
    }
    return OperandRecord{};
  };
  EXPECT_EQ(output(0, "out").dtype, DType::Float64);
  EXPECT_EQ(output(1, "out").dtype, DType::Float32);
  EXPECT_EQ(output(1, "vt").dtype, DType::Complex64);
  EXPECT_EQ(output(0, "out").nan + output(0, "vt").nan, 0u);
  // Both drivers find the same singular values.
  ASSERT_TRUE(output(0, "out").max_abs && output(2, "out").max_abs);
  EXPECT_NEAR(*output(0, "out").max_abs, *output(2, "out").max_abs, 1e-9 * *output(0, "out").max_abs);
  // A NaN: ZGESDD's INFO = -4, the NaN norm it refuses, as NumPy's svd of it.
  EXPECT_EQ(r.ops[3].kernel, "zgesdd");
  EXPECT_EQ(r.ops[3].info, -4);
  EXPECT_TRUE(has_finding(r, "dlascl-invalid-cfrom", 3));
  EXPECT_TRUE(has_finding(r, "non-finite-input", 3));
}

TEST(Runner, ComplexEigenAndSolveOpsRunTheHermitianAndComplexRoutines) {
  // eigh reads A's lower triangle as a Hermitian matrix: its three drivers agree, with real
  // eigenvalues; a NaN in the triangle fails ZHEEVD and ZHEEV (INFO > 0), and ZHEEVR returns
  // INFO = 0 with no eigenvalue computed (counted as NaN).
  const RunResult r = run(R"({"name": "cfactor", "tensors": {
      "a": {"shape": [12, 12], "dtype": "complex128", "seed": 3}, "f": {"shape": [12, 12], "dtype": "complex64", "seed": 4},
      "b": {"shape": [12, 2], "dtype": "complex128", "seed": 5}, "n": {"shape": [5, 5], "dtype": "complex128", "nan": 1},
      "ones": {"shape": [4, 4], "dtype": "complex128", "fill": "ones"}},
    "ops": [{"op": "eigh", "a": "a", "driver": "syevd", "vectors": true, "out": "w1"},
            {"op": "eigh", "a": "a", "driver": "syev", "out": "w2"},
            {"op": "eigh", "a": "a", "driver": "syevr", "vectors": true, "out": "w3"},
            {"op": "eigh", "a": "f", "uplo": "U", "out": "w4"},
            {"op": "solve", "a": "a", "b": "b", "out": "x"},
            {"op": "cholesky", "a": "ones", "out": "l"},
            {"op": "lu", "a": "ones", "out": "lu"},
            {"op": "eigh", "a": "n", "driver": "syevr", "vectors": true, "out": "w5"}]})");
  ASSERT_EQ(r.ops.size(), 8u);
  const std::vector<std::string> kernels{"zheevd", "zheev", "zheevr", "cheevd", "zgesv", "zpotrf", "zgetrf", "zheevr"};
  for (std::size_t i = 0; i < kernels.size(); ++i) EXPECT_EQ(r.ops[i].kernel, kernels[i]) << i;
  for (std::size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.ops[i].status, OpStatus::Ok) << r.ops[i].error.value_or("");
    EXPECT_EQ(r.ops[i].output_nan, 0u);
  }
  const auto output = [&r](std::size_t op, const std::string& role) {
    for (const auto& o : r.ops[op].operands) {
      if (o.role == role) return o;
    }
    return OperandRecord{};
  };
  EXPECT_EQ(output(0, "out").dtype, DType::Float64);
  EXPECT_EQ(output(0, "v").dtype, DType::Complex128);
  EXPECT_EQ(output(3, "out").dtype, DType::Float32);
  ASSERT_TRUE(output(0, "out").max_abs && output(1, "out").max_abs && output(2, "out").max_abs);
  EXPECT_NEAR(*output(1, "out").max_abs, *output(0, "out").max_abs, 1e-9 * *output(0, "out").max_abs);
  EXPECT_NEAR(*output(2, "out").max_abs, *output(0, "out").max_abs, 1e-9 * *output(0, "out").max_abs);
  // A matrix of ones is singular from its second column on: not positive definite at order 2.
  EXPECT_EQ(r.ops[5].info, 2);
  EXPECT_EQ(r.ops[6].info, 2);
  EXPECT_EQ(r.ops[7].info, 0);
  EXPECT_EQ(r.ops[7].output_nan, 5u + 2 * 25u);  // the eigenvalues, then both parts of each eigenvector entry
  EXPECT_TRUE(has_finding(r, "non-finite-output", 7));
  // The plan counts the complex workspaces and the real RWORK.
  std::uint64_t predicted = 0;
  for (const auto& e : r.events) {
    if (const auto* started = e.as<events::RunStarted>()) predicted = started->predicted_peak_bytes;
  }
  EXPECT_GE(predicted, r.peak_host_bytes);
}

TEST(Runner, ComplexLeastSquaresRunEachDriverAsTheProgramsCallThem) {
  // 30 x 9: ZGELSS and ZGELSD reduce A with the complex GEMVs that read past a matrix's end, and
  // the op gives A and B the room; every driver finds the same solution.
  const RunResult r = run(R"({"name": "clstsq", "tensors": {
      "a": {"shape": [30, 9], "dtype": "complex128", "seed": 6}, "b": {"shape": [30, 2], "dtype": "complex128", "seed": 7},
      "f": {"shape": [30, 9], "dtype": "complex64", "seed": 8}, "g": {"shape": [30], "dtype": "complex64", "seed": 9},
      "n": {"shape": [30, 9], "dtype": "complex128", "nan": 1}},
    "ops": [{"op": "lstsq", "a": "a", "b": "b", "driver": "gelsd", "out": "x1"},
            {"op": "lstsq", "a": "a", "b": "b", "driver": "gelsy", "out": "x2"},
            {"op": "lstsq", "a": "a", "b": "b", "driver": "gelss", "out": "x3"},
            {"op": "lstsq", "a": "a", "b": "b", "driver": "gels", "out": "x4"},
            {"op": "lstsq", "a": "f", "b": "g", "out": "x5"},
            {"op": "lstsq", "a": "n", "b": "b", "out": "x6"}]})");
  ASSERT_EQ(r.ops.size(), 6u);
  const std::vector<std::string> kernels{"zgelsd", "zgelsy", "zgelss", "zgels", "cgelsd", "zgelsd"};
  for (std::size_t i = 0; i < kernels.size(); ++i) EXPECT_EQ(r.ops[i].kernel, kernels[i]) << i;
  const auto output = [&r](std::size_t op) {
    for (const auto& o : r.ops[op].operands) {
      if (o.role == "out") return o;
    }
    return OperandRecord{};
  };
  for (std::size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.ops[i].status, OpStatus::Ok) << r.ops[i].error.value_or("");
    ASSERT_TRUE(output(i).max_abs);
  }
  EXPECT_EQ(output(0).dtype, DType::Complex128);
  EXPECT_EQ(output(4).dtype, DType::Complex64);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_NEAR(*output(i).max_abs, *output(0).max_abs, 1e-9 * *output(0).max_abs);
  // A NaN: the norm ZGELSD scales by is NaN, and DLASCL refuses it, as NumPy's lstsq shows.
  EXPECT_TRUE(has_finding(r, "dlascl-invalid-cfrom", 5));
  // The plan counts the room after A and B, and the real RWORK.
  std::uint64_t predicted = 0;
  for (const auto& e : r.events) {
    if (const auto* started = e.as<events::RunStarted>()) predicted = started->predicted_peak_bytes;
  }
  EXPECT_GE(predicted, r.peak_host_bytes);
  EXPECT_LE(static_cast<double>(predicted), 1.25 * static_cast<double>(r.peak_host_bytes));
}

TEST(Runner, PredictedPeakCoversWhatLapackOpsReallyHold) {
  // Copies, workspaces and guard pages included: the plan is an upper bound, and a close one.
  const RunResult r = run(R"({"name": "peak", "tensors": {"a": {"shape": [300, 200], "dtype": "float64"},
      "b": {"shape": [300, 4], "dtype": "float64"}},
    "ops": [{"op": "svd", "a": "a"}, {"op": "lstsq", "a": "a", "b": "b", "out": "x"}]})");
  std::uint64_t predicted = 0;
  for (const auto& e : r.events) {
    if (const auto* started = e.as<events::RunStarted>()) predicted = started->predicted_peak_bytes;
  }
  ASSERT_GT(r.peak_host_bytes, 0u);
  EXPECT_GE(predicted, r.peak_host_bytes);
  EXPECT_LE(static_cast<double>(predicted), 1.25 * static_cast<double>(r.peak_host_bytes));
}

TEST(Runner, PredictedPeakCoversTheEigenDriversWorkspace) {
  // SYEVD with eigenvectors asks for about 2n^2 elements of workspace, twice A: charged to the
  // budget like the matrices, and in the plan as LAPACK's query gives it.
  const RunResult r =
      run(R"({"name": "peak", "tensors": {"s": {"shape": [300, 300], "dtype": "float64", "fill": "ones"}},
    "ops": [{"op": "eigh", "a": "s", "vectors": true, "out": "w"}]})");
  std::uint64_t predicted = 0, workspace = 0;
  for (const auto& e : r.events) {
    if (const auto* started = e.as<events::RunStarted>()) predicted = started->predicted_peak_bytes;
    if (const auto* taken = e.as<events::Workspace>(); taken && taken->allocated) workspace += taken->bytes;
  }
  EXPECT_GE(workspace, 2u * 300 * 300 * sizeof(double));
  EXPECT_GE(r.peak_host_bytes, workspace);
  EXPECT_GE(predicted, r.peak_host_bytes);
  EXPECT_LE(static_cast<double>(predicted), 1.25 * static_cast<double>(r.peak_host_bytes));
}

TEST(Runner, OutOfMemoryIsReportedNotFatal) {
  const RunResult r = run(R"({"name": "oom", "memory_limit": "1MiB", "tensors": {
      "big": {"shape": [1000, 1000], "dtype": "float64"}, "s": {"shape": [100, 100], "dtype": "float64"}},
    "ops": [{"op": "gemm", "a": "big", "b": "big"}, {"op": "gemm", "a": "s", "b": "s"},
            {"op": "svd", "a": "s"}]})");
  EXPECT_TRUE(r.completed);
  EXPECT_TRUE(has_finding(r, "out-of-memory"));
  EXPECT_EQ(r.ops[0].status, OpStatus::Skipped);
  EXPECT_EQ(r.ops[1].status, OpStatus::Ok);
  EXPECT_EQ(count_events<events::OutOfMemory>(r), 1u);
  EXPECT_LE(r.peak_host_bytes, 1u << 20);
}

TEST(Runner, OverflowAndCastFindings) {
  const RunResult r = run(R"({"name": "ov", "tensors": {
      "a": {"shape": [8, 8], "dtype": "float32", "fill": {"constant": 1e20}},
      "w": {"shape": [4], "dtype": "float32", "fill": {"constant": 70000}}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"}, {"op": "cast", "a": "w", "dtype": "float16", "out": "w16"}]})");
  EXPECT_TRUE(has_finding(r, "non-finite-output", 0));
  EXPECT_EQ(r.ops[0].output_inf, 64u);
  EXPECT_EQ(r.ops[1].cast_overflow, 4u);
  EXPECT_TRUE(has_finding(r, "cast-overflow", 1));
}

TEST(Runner, GpuRequestsAreSkippedWithTheReason) {
  RunOptions options;
  options.device = DeviceChoice::Both;
  const RunResult r = run(R"({"name": "g", "tensors": {"a": {"shape": [4, 4], "dtype": "float32"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"}]})",
                          options);
  ASSERT_EQ(r.ops.size(), 2u);
  if (r.environment.gpu.available) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(r.ops[0].device, Device::Gpu);  // the GPU runs first: it works on copies
  EXPECT_EQ(r.ops[0].status, OpStatus::Skipped);
  EXPECT_EQ(r.ops[0].error, r.environment.gpu.reason);
  EXPECT_EQ(r.ops[1].device, Device::Cpu);
  EXPECT_EQ(r.ops[1].status, OpStatus::Ok);
  EXPECT_TRUE(has_finding(r, "no-gpu"));
  EXPECT_FALSE(r.has_errors());
}

TEST(Runner, SessionRoundTripAndTrace) {
  const RunResult r = run(R"({"name": "s", "tensors": {"a": {"shape": [16, 16], "dtype": "float64", "nan": 1}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"}, {"op": "gemm", "a": "a", "b": "a", "ldb": 2}]})");
  blasscope::test::TempDir dir;
  write_session(dir.file("s.json"), "/w.json", r);
  const RunResult back = read_session(dir.file("s.json"));
  EXPECT_EQ(back.workload, "s");
  ASSERT_EQ(back.ops.size(), r.ops.size());
  EXPECT_EQ(back.findings.size(), r.findings.size());
  EXPECT_EQ(to_json(back), to_json(r));
  const auto trace = chrome_trace(r);
  std::size_t complete = 0, counters = 0;
  for (const auto& e : trace["traceEvents"]) {
    complete += e["ph"] == "X";
    counters += e["ph"] == "C";
  }
  EXPECT_EQ(complete, 2u);
  EXPECT_GT(counters, 0u);
  blasscope::test::write_file(dir.file("bad.json"), R"({"format": "blasscope-session", "version": 99, "events": []})");
  EXPECT_THROW(read_session(dir.file("bad.json")), InputError);
}

TEST(Runner, EveryLapackDriverRunsAndASilentNaNResultIsAnError) {
  // NaN only in B: no least-squares driver reports anything, and the solution holds NaN.
  for (const char* driver : {"gelsd", "gelsy", "gelss", "gels"}) {
    const RunResult r = run(std::string(R"({"name": "l", "tensors": {
        "a": {"shape": [8, 3], "dtype": "float64", "seed": 1},
        "b": {"shape": [8], "dtype": "float64", "seed": 2, "nan": 1}},
      "ops": [{"op": "lstsq", "a": "a", "b": "b", "driver": ")") +
                            driver + R"("}]})");
    ASSERT_EQ(r.ops.size(), 1u) << driver;
    EXPECT_EQ(r.ops[0].kernel, std::string("d") + driver);
    EXPECT_EQ(r.ops[0].info.value_or(-99), 0) << driver;
    EXPECT_GT(r.ops[0].output_nan, 0u) << driver;
    EXPECT_TRUE(has_finding(r, "non-finite-output", 0)) << driver;
    EXPECT_TRUE(r.has_errors()) << driver;
  }
  // gesvd with U and V^T: three results, all finite for a finite input.
  const RunResult r = run(R"({"name": "s", "tensors": {"a": {"shape": [7, 5], "dtype": "float32", "seed": 3}},
      "ops": [{"op": "svd", "a": "a", "driver": "gesvd", "compute_uv": true, "out": "s"}]})");
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].kernel, "sgesvd");
  EXPECT_EQ(r.ops[0].status, OpStatus::Ok);
  std::vector<std::string> outputs;
  for (const auto& o : r.ops[0].operands) {
    if (o.is_output())
      outputs.push_back(o.tensor + " " + std::to_string(o.shape.front()) + "x" + std::to_string(o.shape.back()));
  }
  EXPECT_EQ(outputs, (std::vector<std::string>{"s 5x5", "s_u 7x5", "s_vt 5x5"}));
  EXPECT_FALSE(r.has_errors());
}

TEST(Runner, FactorisationsReportTheirInfoAsNumPysCallsOfThemDo) {
  // ones(3, 3): not positive definite (the minor of order 2 is 0), singular (U(2,2) = 0), with
  // eigenvalues 0, 0, 3. [[0, 1], [2, 3]] x = [1, 1] has the solution [-1, 1].
  const RunResult r = run(R"({"name": "factor", "tensors": {
      "ones": {"shape": [3, 3], "dtype": "float64", "fill": "ones"},
      "a": {"shape": [2, 2], "dtype": "float32", "fill": "range"}, "b": {"shape": [2], "dtype": "float32", "fill": "ones"},
      "nan": {"shape": [4, 4], "dtype": "float64", "nan": 16}},
    "ops": [{"op": "cholesky", "a": "ones"}, {"op": "lu", "a": "ones"}, {"op": "solve", "a": "ones", "b": "ones"},
            {"op": "solve", "a": "a", "b": "b", "out": "x"}, {"op": "eigh", "a": "ones", "vectors": true, "out": "w"},
            {"op": "eigh", "a": "ones", "driver": "syev", "uplo": "U", "out": "w2"}, {"op": "cholesky", "a": "nan", "uplo": "U"},
            {"op": "solve", "a": "ones", "b": "a"}, {"op": "lu", "a": "nan", "out": "lu_nan"},
            {"op": "solve", "a": "nan", "b": "nan", "out": "x_nan"}]})");
  ASSERT_EQ(r.ops.size(), 10u);
  const std::vector<std::pair<std::string, int>> expected{{"dpotrf", 2}, {"dgetrf", 2}, {"dgesv", 2}, {"sgesv", 0},
                                                          {"dsyevd", 0}, {"dsyev", 0},  {"dpotrf", 0}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.ops[i].kernel, expected[i].first) << i;
    EXPECT_EQ(r.ops[i].info, expected[i].second) << i;
    EXPECT_EQ(r.ops[i].status, expected[i].second ? OpStatus::Failed : OpStatus::Ok) << i;
    EXPECT_EQ(has_finding(r, "lapack-failed", i), expected[i].second > 0) << i;
  }
  EXPECT_NE(r.ops[0].error->find("the leading minor of order 2 is not positive definite"), std::string::npos);
  EXPECT_NE(r.ops[1].error->find("U(2,2) is exactly zero"), std::string::npos);
  const auto result = [](const KernelRecord& k, const std::string& role) -> const OperandRecord* {
    for (const auto& o : k.operands) {
      if (o.role == role) return &o;
    }
    return nullptr;
  };
  ASSERT_TRUE(result(r.ops[3], "out"));
  EXPECT_EQ(result(r.ops[3], "out")->shape, (std::vector<std::uint64_t>{2})) << "a vector, as b is (NumPy too)";
  EXPECT_FLOAT_EQ(*result(r.ops[3], "out")->max_abs, 1.0f);
  EXPECT_FALSE(result(r.ops[2], "out")) << "no solution from a singular matrix";
  ASSERT_TRUE(result(r.ops[4], "out") && result(r.ops[4], "v"));
  EXPECT_NEAR(*result(r.ops[4], "out")->max_abs, 3.0, 1e-12);
  EXPECT_EQ(result(r.ops[4], "v")->shape, (std::vector<std::uint64_t>{3, 3}));
  EXPECT_NEAR(*result(r.ops[5], "out")->max_abs, 3.0, 1e-12);
  // This LAPACK's POTRF takes NaN through to a NaN factor with INFO = 0 (NumPy's cholesky of an
  // all-NaN matrix returns NaN, no LinAlgError): the silent failure is the finding.
  EXPECT_TRUE(has_finding(r, "non-finite-input", 6));
  EXPECT_TRUE(has_finding(r, "non-finite-output", 6));
  for (std::size_t i : {8, 9}) {  // GETRF and GESV likewise
    EXPECT_EQ(r.ops[i].info, 0) << i;
    EXPECT_TRUE(has_finding(r, "non-finite-output", i)) << i;
  }
  // B's dtype must be A's.
  EXPECT_EQ(r.ops[7].status, OpStatus::Failed);
  EXPECT_EQ(r.ops[7].error_kind, ErrorKind::DtypeMismatch);
}

TEST(Runner, AnEigenWorkspaceBeyondLapacksIntIsRefusedBeforeAnythingIsAllocated) {
  // SYEVD with vectors of 33000 x 33000 wants 1 + 6n + 2n^2 > 2^31 - 1 elements, which this
  // LAPACK's query cannot say (it answers 34n): refused by the plan, nothing allocated.
  const RunResult r = run(R"({"name": "big", "tensors": {"a": {"shape": [33000, 33000], "dtype": "float32",
    "fill": "zeros"}}, "ops": [{"op": "eigh", "a": "a", "vectors": true}]})");
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].status, OpStatus::Skipped);
  EXPECT_TRUE(has_finding(r, "index-overflow", 0));
  EXPECT_EQ(r.peak_host_bytes, 0u);
}

TEST(Runner, LuSolveRunsGetrsWithTheGivenPivotsAndRefusesPivotsItWouldMisuse) {
  // Any square matrix is a valid store of LU factors (unit L below, U on and above the diagonal).
  const RunResult r = run(R"({"name": "lu_solve", "tensors": {
      "lu": {"shape": [4, 4], "dtype": "float64", "seed": 3},
      "b": {"shape": [4, 2], "dtype": "float64", "seed": 4},
      "bad": {"shape": [4], "dtype": "float64", "nan": 1, "seed": 5},
      "p": {"shape": [4], "dtype": "int32", "fill": {"constant": 4}},
      "p0": {"shape": [4], "dtype": "int32", "fill": "range"},
      "p3": {"shape": [3], "dtype": "int32", "fill": "ones"},
      "pf": {"shape": [4], "dtype": "float64", "fill": "ones"},
      "lu32": {"shape": [4, 4], "dtype": "float32", "seed": 6},
      "b32": {"shape": [4], "dtype": "float32", "seed": 7}},
    "ops": [{"op": "lu_solve", "a": "lu", "pivots": "p", "b": "b", "out": "x"},
            {"op": "lu_solve", "a": "lu", "pivots": "p", "b": "bad", "trans": "T", "out": "y"},
            {"op": "lu_solve", "a": "lu", "pivots": "p0", "b": "b", "out": "z0"},
            {"op": "lu_solve", "a": "lu", "pivots": "p3", "b": "b", "out": "z3"},
            {"op": "lu_solve", "a": "lu", "pivots": "pf", "b": "b", "out": "zf"},
            {"op": "lu_solve", "a": "lu32", "pivots": "p", "b": "b32", "out": "x32"}]})");
  ASSERT_EQ(r.ops.size(), 6u);
  EXPECT_EQ(r.ops[0].status, OpStatus::Ok);
  EXPECT_EQ(r.ops[0].kernel, "dgetrs");
  EXPECT_EQ(r.ops[0].k, 2) << "NRHS";
  // This LAPACK's GETRS takes a NaN in B through to NaN in X with INFO = 0.
  EXPECT_EQ(r.ops[1].info, 0);
  EXPECT_TRUE(has_finding(r, "non-finite-input", 1));
  EXPECT_TRUE(has_finding(r, "non-finite-output", 1));
  EXPECT_EQ(r.ops[2].error_kind, ErrorKind::IllegalArgument);
  EXPECT_NE(r.ops[2].error->find("pivots[0] = 0 is outside 1..4"), std::string::npos) << *r.ops[2].error;
  EXPECT_EQ(r.ops[3].error_kind, ErrorKind::ShapeMismatch);
  EXPECT_EQ(r.ops[4].error_kind, ErrorKind::DtypeMismatch);
  EXPECT_EQ(r.ops[5].status, OpStatus::Ok);
  EXPECT_EQ(r.ops[5].kernel, "sgetrs");
}

TEST(Runner, FactorisationsRefuseWhatLapackCannotTake) {
  const RunResult r = run(R"({"name": "refused", "tensors": {"r": {"shape": [3, 2], "dtype": "float64"},
      "v": {"shape": [3], "dtype": "float64"}, "i": {"shape": [2, 2], "dtype": "int32"}},
    "ops": [{"op": "cholesky", "a": "r"}, {"op": "eigh", "a": "v"}, {"op": "lu", "a": "i"},
            {"op": "solve", "a": "r", "b": "v"}, {"op": "lu", "a": "r", "out": "lu"}]})");
  ASSERT_EQ(r.ops.size(), 5u);
  EXPECT_EQ(r.ops[0].error_kind, ErrorKind::ShapeMismatch);
  EXPECT_NE(r.ops[0].error->find("cholesky needs a square matrix"), std::string::npos);
  EXPECT_EQ(r.ops[1].error_kind, ErrorKind::ShapeMismatch);
  EXPECT_EQ(r.ops[2].error_kind, ErrorKind::UnsupportedDtype);
  EXPECT_EQ(r.ops[3].error_kind, ErrorKind::ShapeMismatch);
  EXPECT_EQ(r.ops[4].status, OpStatus::Ok) << "LU takes a rectangular matrix";
  EXPECT_EQ(r.ops[4].kernel, "dgetrf");
}
