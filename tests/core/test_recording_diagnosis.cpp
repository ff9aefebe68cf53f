// The diagnoses of a recording, on constructed calls: each failure told apart from its
// neighbours, in the terms of the routine that failed.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>

#include "diagnose/explanation_catalogue.h"
#include "diagnose/lapack_meanings.h"
#include "diagnose/recording_diagnosis.h"
#include "record/recording_json.h"
#include "report/recording_report.h"
#include "text/format.h"

using namespace blasscope::core;
using blasscope::record::CallRecord;
using blasscope::record::Precision;
using blasscope::record::Recording;
using blasscope::record::Routine;

namespace {

CallRecord call(std::uint64_t id, Routine routine, std::int32_t m, std::int32_t n) {
  CallRecord c;
  c.id = id;
  c.routine = routine;
  c.precision = Precision::D;
  c.m = m;
  c.n = n;
  c.lda = m;
  return c;
}

void xerbla(CallRecord& c, const char* routine, int parameter) {
  std::strncpy(c.xerbla_routine, routine, sizeof c.xerbla_routine);
  c.xerbla_parameter = parameter;
}

std::vector<Diagnosis> of(const std::vector<Diagnosis>& all, const std::string& id) {
  std::vector<Diagnosis> out;
  for (const auto& d : all) {
    if (d.id == id) out.push_back(d);
  }
  return out;
}

bool contains(const std::vector<std::string>& texts, const std::string& part) {
  for (const auto& t : texts) {
    if (t.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(RecordingDiagnosis, DifferentBadArgumentsOfOneRoutineAreDifferentDiagnoses) {
  Recording r;
  CallRecord lda = call(1, Routine::Gemm, 4, 3), ldc = call(2, Routine::Gemm, 4, 3),
             again = call(3, Routine::Gemm, 4, 3);
  for (CallRecord* c : {&lda, &ldc, &again}) c->k = 5, c->ldb = 3, c->ldc = 4, c->flags = blasscope::record::kCblas;
  xerbla(lda, "DGEMM", 8);
  xerbla(ldc, "DGEMM", 13);
  ldc.ldc = 2;
  xerbla(again, "DGEMM", 8);
  r.calls = {lda, ldc, again};
  const auto found = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(found.size(), 2u) << "LDA and LDC are two mistakes";
  EXPECT_TRUE(contains(found[0].evidence, "your LDA = 4"));
  EXPECT_TRUE(contains(found[0].evidence, "and 1 more call like it"));
  EXPECT_TRUE(contains(found[1].evidence, "your LDC = 2"));
}

TEST(RecordingDiagnosis, CublasFailuresNameTheirStatusAndGemmSizes) {
  // As recorded on an H100: an SGEMM with LDA = 1 < M, a strided-batched GEMM refused, a
  // cudaMalloc of 4 PiB.
  Recording r;
  CallRecord gemm = call(1, Routine::CublasSgemm, 64, 64), batched = call(2, Routine::CublasSgemmStridedBatched, 8, 8),
             malloc = call(3, Routine::CudaMalloc, 0, 0);
  gemm.k = 64, gemm.lda = 1, gemm.info = 7;
  batched.k = 8, batched.beta = 3, batched.info = 15;
  blasscope::record::set_malloc_bytes(malloc, std::uint64_t{1} << 52), malloc.info = 2;
  for (CallRecord* c : {&gemm, &batched, &malloc}) c->flags = blasscope::record::kHasStatus;
  r.calls = {gemm, batched, malloc};
  const auto all = diagnose_recording(r);
  const auto cublas = of(all, "cublas-error");
  ASSERT_EQ(cublas.size(), 2u);
  EXPECT_NE(cublas[0].title.find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << cublas[0].title;
  EXPECT_TRUE(contains(cublas[0].evidence, "M=64, N=64, K=64, LDA=1")) << cublas[0].evidence.back();
  EXPECT_TRUE(contains(cublas[1].evidence, "M=8, N=8, K=8, batch=3, LDA=8")) << cublas[1].evidence.back();
  const auto oom = of(all, "out-of-memory");
  ASSERT_EQ(oom.size(), 1u);
  EXPECT_NE(oom[0].title.find("cudaErrorMemoryAllocation"), std::string::npos) << oom[0].title;
  EXPECT_TRUE(contains(oom[0].evidence, "cudaMalloc(4503599627370496 bytes) returned 2")) << oom[0].evidence[0];
}

TEST(RecordingDiagnosis, ALapackCallThatTurnedNanIntoAFiniteResultIsAnError) {
  Recording r;
  CallRecord swallowed = call(1, Routine::Syevr, 8, 8), told = call(2, Routine::Syevr, 8, 8),
             unchecked = call(3, Routine::Syevr, 8, 8);
  for (CallRecord* c : {&swallowed, &told, &unchecked}) c->flags = blasscope::record::kHasInfo, c->input_nan = 1;
  swallowed.flags |= blasscope::record::kValuesChecked;
  told.flags |= blasscope::record::kValuesChecked;
  told.info = 1;
  r.calls = {swallowed, told, unchecked};
  const auto found = of(diagnose_recording(r), "non-finite-input");
  // Call 1 on its own; calls 2 (INFO = 1 told it: lapack-failed says so) and 3 (its values, so
  // its output, were not checked) the warning, as one diagnosis.
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].severity, Severity::Error);
  EXPECT_TRUE(contains(found[0].evidence, "returned INFO = 0 and its result holds no NaN/Inf"));
  EXPECT_EQ(found[1].severity, Severity::Warning);
  EXPECT_TRUE(contains(found[1].evidence, "and 1 more call like it"));
  EXPECT_TRUE(blasscope::record::call_failed(swallowed));
  EXPECT_FALSE(blasscope::record::call_failed(unchecked));
}

TEST(RecordingDiagnosis, NonFiniteInputEvidenceSaysWhatWasScannedAndWhatTheCallReturned) {
  Recording r;
  CallRecord silent = call(1, Routine::Gelsy, 30, 10), refused = call(2, Routine::Gelss, 30, 10);
  for (CallRecord* c : {&silent, &refused}) {
    c->flags = blasscope::record::kHasInfo | blasscope::record::kValuesChecked, c->input_nan = 1;
  }
  silent.output_nan = 20;
  refused.info = 9;
  r.calls = {silent};
  auto found = of(diagnose_recording(r), "non-finite-input");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(contains(found[0].evidence, found[0].title)) << "evidence beyond the title";
  EXPECT_TRUE(contains(found[0].evidence, "scanned before the call ran: 1 NaN and 0 Inf"));
  EXPECT_TRUE(contains(found[0].evidence, "its output, scanned after it returned: 20 NaN and 0 Inf"));
  EXPECT_TRUE(contains(found[0].evidence, "it returned INFO = 0"));
  // INFO = 9: LAPACK's output is not its result, and was not scanned; nothing is said of it.
  r.calls = {refused};
  found = of(diagnose_recording(r), "non-finite-input");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(contains(found[0].evidence, "its output"));
  EXPECT_TRUE(contains(found[0].evidence, "it returned INFO = 9"));
}

TEST(RecordingDiagnosis, AnOverflowIsNotFoldedIntoANanInputsResult) {
  Recording r;
  CallRecord from_nan = call(1, Routine::Gemm, 8, 8), overflow = call(2, Routine::Gemm, 8, 8);
  from_nan.input_nan = 1;
  from_nan.output_nan = 8;
  overflow.output_inf = 64;
  overflow.flags = blasscope::record::kValuesChecked;
  r.calls = {from_nan, overflow};
  const auto found = of(diagnose_recording(r), "non-finite-output");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[1].title.find("finite inputs gave"), std::string::npos) << found[1].title;
}

TEST(RecordingDiagnosis, ASolveWithASingularFactorNamesTheFactorisationNotAnOverflow) {
  // Process 7 factors a singular 3x3 (INFO = 3) and solves with it; then factors a good one of
  // the same shape, whose solve overflows on its own; process 8's solve has no factorisation.
  const auto getrf = [](std::uint64_t id, std::uint32_t pid, int info) {
    CallRecord c = call(id, Routine::Getrf, 3, 3);
    c.pid = pid, c.info = info, c.flags = blasscope::record::kHasInfo | blasscope::record::kValuesChecked;
    return c;
  };
  const auto getrs = [](std::uint64_t id, std::uint32_t pid) {
    CallRecord c = call(id, Routine::Getrs, 3, 3);
    c.pid = pid, c.k = 1, c.ldb = 3, c.output_nan = 1, c.output_inf = 2;
    c.flags = blasscope::record::kHasInfo | blasscope::record::kValuesChecked;
    return c;
  };
  Recording r;
  CallRecord nan_factor = getrf(6, 9, 2);
  nan_factor.input_nan = 1;  // its NaN result may come from its input, not from the zero pivot
  r.calls = {getrf(1, 7, 3), getrs(2, 7), getrf(3, 7, 0), getrs(4, 7), getrs(5, 8), nan_factor, getrs(7, 9)};
  const auto found = of(diagnose_recording(r), "non-finite-output");
  ASSERT_EQ(found.size(), 2u) << "the singular solve, and the overflows (calls 4, 5 and 7) as one";
  EXPECT_NE(found[0].title.find("call 2 DGETRS (N=3, NRHS=1, LDA=3, LDB=3): gave 1 NaN and 2 Inf after call 1 DGETRF "
                                "(M=3, N=3, LDA=3) found the matrix singular"),
            std::string::npos)
      << found[0].title;
  EXPECT_TRUE(contains(found[0].evidence, "returned INFO = 3: U(3,3) is exactly zero"));
  EXPECT_NE(found[0].cause.find("checks none of them"), std::string::npos) << found[0].cause;
  EXPECT_NE(found[0].fix.find("LinAlgWarning"), std::string::npos) << found[0].fix;
  EXPECT_NE(found[1].title.find("call 4 DGETRS"), std::string::npos) << found[1].title;
  EXPECT_TRUE(contains(found[1].evidence, "every input was finite (overflow)"));
  EXPECT_TRUE(contains(found[1].evidence, "and 2 more calls like it"));  // calls 5 and 7
}

TEST(RecordingDiagnosis, ADriversBadLeadingDimensionIsGivenItsBound) {
  CallRecord gesv = call(1, Routine::Gesv, 3, 3), gelsd = call(2, Routine::Gelsd, 4, 2);
  gesv.lda = 2, gesv.k = 1, gesv.ldb = 3;
  xerbla(gesv, "DGESV", 4);
  gelsd.k = 1, gelsd.ldb = 3;
  xerbla(gelsd, "DGELSD", 7);
  Recording r;
  r.calls = {gesv, gelsd};
  const auto found = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(contains(found[0].evidence, "that parameter is your LDA = 2, which must be at least 3 (N: A is N x N)"));
  EXPECT_TRUE(contains(found[1].evidence, "that parameter is your LDB = 3, which must be at least 4 (max(M, N)"));
  // The solves recorded later say it too: POSV's LDB is its 7th argument, SYSV's and ZHESV's the 8th.
  CallRecord posv = call(3, Routine::Posv, 5, 5), sysv = call(4, Routine::Sysv, 5, 5),
             hesv = call(5, Routine::Hesv, 5, 5);
  hesv.precision = Precision::Z;
  for (CallRecord* c : {&posv, &sysv, &hesv}) c->k = 1, c->ldb = 4;
  xerbla(posv, "DPOSV", 7);
  xerbla(sysv, "DSYSV", 8);
  xerbla(hesv, "ZHESV", 8);
  r.calls = {posv, sysv, hesv};
  const auto solves = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(solves.size(), 3u);
  for (const Diagnosis& d : solves) {
    EXPECT_TRUE(contains(d.evidence, "that parameter is your LDB = 4, which must be at least 5 (N: B has N rows)"))
        << d.title;
  }
}

// A page shared by several failures lists the messages of this one first, by its key's
// alternatives in order, and keeps the rest as they were.
TEST(RecordingDiagnosis, SeenAsLinesFollowTheKeysAlternativesInOrder) {
  Diagnosis d;
  d.seen_as = {"none here", "Bravo failed", "alpha broke", "nothing either", "ALPHA again"};
  put_seen_as_first(d, "alpha|bravo");
  EXPECT_EQ(d.seen_as,
            (std::vector<std::string>{"alpha broke", "ALPHA again", "Bravo failed", "none here", "nothing either"}));
  put_seen_as_first(d, "");
  EXPECT_EQ(d.seen_as.front(), "alpha broke") << "no key: no change";
}

TEST(RecordingDiagnosis, RepeatsOfAFailureSayTheirOwnInfo) {
  Recording r;
  for (const int info : {3, 5, 3, 10, 7}) {
    CallRecord c = call(r.calls.size() + 1, Routine::Gesv, 8, 8);
    c.info = info, c.flags = blasscope::record::kHasInfo;
    r.calls.push_back(c);
  }
  const auto found = of(diagnose_recording(r), "lapack-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("U(3,3)"), std::string::npos) << found[0].title;
  EXPECT_TRUE(contains(found[0].evidence,
                       "and 4 more calls like it; of all 5, INFO = 3: 2 calls (the one above among them), INFO = 5: 1 "
                       "call, INFO = 7: 1 call, INFO = 10: 1 call"))
      << found[0].evidence.back();
  EXPECT_EQ(found[0].facts["calls"], nlohmann::json::array({1, 2, 3, 4, 5}));
  // Past ten values the rest are counted, not cut off with an ellipsis.
  for (int info = 11; info <= 20; ++info) {
    CallRecord c = call(r.calls.size() + 1, Routine::Gesv, 8, 8);
    c.info = info, c.flags = blasscope::record::kHasInfo;
    r.calls.push_back(c);
  }
  const auto many = of(diagnose_recording(r), "lapack-failed");
  EXPECT_NE(many[0].evidence.back().find("INFO = 16: 1 call, and 4 other values"), std::string::npos)
      << many[0].evidence.back();
}

TEST(RecordingDiagnosis, APositiveInfoSaysWhatItMeansForThatRoutine) {
  Recording r;
  CallRecord potrf = call(1, Routine::Potrf, 3, 3), getrf = call(2, Routine::Getrf, 3, 3),
             gesdd = call(3, Routine::Gesdd, 5, 4), syevd = call(4, Routine::Syevd, 4, 4);
  for (CallRecord* c : {&potrf, &getrf, &gesdd, &syevd}) c->flags = blasscope::record::kHasInfo;
  potrf.info = 2;
  getrf.info = 3;
  gesdd.info = 1;
  syevd.info = 2;
  r.calls = {potrf, getrf, gesdd, syevd};
  const auto found = of(diagnose_recording(r), "lapack-failed");
  ASSERT_EQ(found.size(), 4u);
  EXPECT_NE(found[0].title.find("DPOTRF (N=3, LDA=3): returned INFO = 2: the leading minor of order 2 is not "
                                "positive definite"),
            std::string::npos)
      << found[0].title;
  EXPECT_NE(found[0].cause.find("POTRF (Cholesky)"), std::string::npos) << found[0].cause;
  EXPECT_NE(found[0].fix.find("eigvalsh"), std::string::npos) << found[0].fix;
  EXPECT_NE(found[1].title.find("U(3,3) is exactly zero: the matrix is singular"), std::string::npos) << found[1].title;
  EXPECT_NE(found[1].fix.find("lstsq"), std::string::npos);
  EXPECT_NE(found[2].title.find("the SVD did not converge"), std::string::npos) << found[2].title;
  // The page serves every routine: each lists the messages of its own failure first, none left out.
  const Explanation* page = find_explanation("lapack-failed");
  ASSERT_NE(page, nullptr);
  ASSERT_NE(page->seen_as.front().find("SVD did not converge"), std::string::npos) << "the page's own order";
  for (const Diagnosis& d : found) EXPECT_EQ(d.seen_as.size(), page->seen_as.size()) << d.title;
  EXPECT_NE(found[0].seen_as.front().find("Matrix is not positive definite"), std::string::npos)
      << found[0].seen_as.front();
  EXPECT_NE(found[1].seen_as.front().find("Singular matrix"), std::string::npos) << found[1].seen_as.front();
  EXPECT_NE(found[1].seen_as.at(1).find("Matrix is singular."), std::string::npos) << found[1].seen_as.at(1);
  EXPECT_EQ(found[3].seen_as.front(), "numpy.linalg.LinAlgError: Eigenvalues did not converge");
}

// SYGVD's INFO above N is B's leading minor only where its POTRF failed: with eigenvectors,
// its divide-and-conquer solver encodes the submatrix it failed on as a number above N too.
TEST(RecordingDiagnosis, AGeneralizedEigenINFOAboveNIsBsMinorOnlyWhenItsCholeskyFailed) {
  Recording r;
  CallRecord minor = call(1, Routine::Sygvd, 6, 6), potrf = call(2, Routine::Potrf, 6, 6),
             solver = call(3, Routine::Sygvd, 6, 6), gv = call(4, Routine::Sygv, 6, 6);
  for (CallRecord* c : {&minor, &potrf, &solver, &gv}) c->flags = blasscope::record::kHasInfo;
  minor.info = 10;  // N + 4
  potrf.parent = 1, potrf.info = 4;
  solver.info = 15;  // 2 * (N + 1) + 1: SYEVD's "rows and columns 2 through 1"
  gv.info = 3;
  std::vector<Diagnosis> found;  // one recording each: repeats of one routine's failure are folded
  for (const auto& calls : {std::vector<CallRecord>{potrf, minor}, {solver}, {gv}}) {
    r.calls = calls;
    for (const Diagnosis& d : of(diagnose_recording(r), "lapack-failed")) found.push_back(d);
  }
  ASSERT_EQ(found.size(), 3u);
  EXPECT_NE(found[0].title.find("DSYGVD (N=6, LDA=6): returned INFO = 10: the leading minor of order 4 of B is not "
                                "positive definite"),
            std::string::npos)
      << found[0].title;
  EXPECT_NE(found[1].title.find("returned INFO = 15: the eigenvalue algorithm did not converge"), std::string::npos)
      << found[1].title;
  EXPECT_NE(found[1].cause.find("B's Cholesky factorisation succeeded"), std::string::npos) << found[1].cause;
  EXPECT_NE(found[2].title.find("DSYGV (N=6, LDA=6): returned INFO = 3: the eigenvalue algorithm"), std::string::npos)
      << found[2].title;
  // Read alone, without the call's context, an INFO above N is not taken for B's minor either.
  const auto alone = positive_info_meaning(Routine::Sygvd, 10, {6, false});
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->summary, "the eigenvalue algorithm did not converge");
}

// A driver holding a report of its own (the last one its unrecorded routines made) is
// diagnosed by it; a recorded routine's report inside it is listed. A driver that never
// returned leaves each report its own diagnosis.
TEST(RecordingDiagnosis, ADriversOwnXerblaReportIsItsDiagnosisWithTheInnerOnesListed) {
  Recording r;
  CallRecord geev = call(1, Routine::Geev, 5, 5), gehrd = call(2, Routine::Gehrd, 5, 5);
  geev.flags = gehrd.flags = blasscope::record::kHasInfo;
  gehrd.parent = 1;
  xerbla(geev, "DHSEQR", 4);
  xerbla(gehrd, "DGEHRD", 2);
  r.calls = {gehrd, geev};
  auto found = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("on entry to DHSEQR parameter number 4"), std::string::npos) << found[0].title;
  EXPECT_TRUE(contains(found[0].evidence,
                       "also call 2 DGEHRD (N=5, LDA=5), inside it: on entry to DGEHRD parameter "
                       "number 2"));
  r.calls = {gehrd};
  r.running = {geev};
  found = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("on entry to DGEHRD parameter number 2 had an illegal value (in DGEHRD, called "
                                "inside it)"),
            std::string::npos)
      << found[0].title;
}

TEST(RecordingDiagnosis, AnErrorInsideADriverIsTheDriversWithTheInternalRoutinesArguments) {
  Recording r;
  CallRecord gesvd = call(10, Routine::Gesvd, 6, 4), lascl = call(11, Routine::Lascl, 4, 1);
  gesvd.flags = blasscope::record::kHasInfo | blasscope::record::kValuesChecked;
  gesvd.input_nan = 1;
  gesvd.info = -5;  // as it returns after the internal error
  lascl.parent = 10;
  lascl.flags = blasscope::record::kHasInfo;
  lascl.alpha = 1;
  lascl.beta = std::numeric_limits<double>::quiet_NaN();
  xerbla(lascl, "DLASCL", 5);
  r.calls = {lascl, gesvd};
  const auto found = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(found.size(), 1u);
  const Diagnosis& d = found[0];
  EXPECT_EQ(d.facts["call"], 10) << "named by the program's own call";
  EXPECT_NE(d.title.find("call 10 DGESVD"), std::string::npos) << d.title;
  EXPECT_NE(d.title.find("(in DLASCL, called inside it)"), std::string::npos) << d.title;
  EXPECT_TRUE(contains(d.evidence, "called DLASCL internally"));
  EXPECT_TRUE(contains(d.evidence, "that parameter is CTO = nan"));
  EXPECT_TRUE(contains(d.evidence, "1 NaN and 0 Inf in its inputs"));
  EXPECT_NE(d.cause.find("4 CFROM, 5 CTO"), std::string::npos) << d.cause;
  EXPECT_EQ(d.cause.find("TRANSA"), std::string::npos) << "not GEMM's list";
}

TEST(RecordingDiagnosis, ANegativeInfoWithoutAReportIsTheArgumentItNames) {
  // A program with its own xerbla_ leaves no report: DGETRF's INFO = -4 still names LDA.
  Recording r;
  CallRecord getrf = call(3, Routine::Getrf, 5, 5);
  getrf.flags = blasscope::record::kHasInfo;
  getrf.lda = 2;
  getrf.info = -4;
  r.calls = {getrf};
  const auto found = of(diagnose_recording(r), "illegal-argument");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("on entry to DGETRF parameter number 4"), std::string::npos) << found[0].title;
  EXPECT_TRUE(contains(found[0].evidence, "DGETRF returned INFO = -4: parameter 4 is your LDA = 2"));
  EXPECT_TRUE(contains(found[0].evidence, "an xerbla_ of its own"));
  EXPECT_FALSE(contains(found[0].evidence, "xerbla reported"));
}

TEST(RecordingDiagnosis, AZeroCfromIsNotCalledANanNorm) {
  Recording r;
  CallRecord lascl = call(1, Routine::Lascl, 3, 3);
  lascl.flags = blasscope::record::kHasInfo;
  lascl.info = -4;
  lascl.alpha = 0;
  lascl.beta = 1;
  xerbla(lascl, "DLASCL", 4);
  r.calls = {lascl};
  const auto found = of(diagnose_recording(r), "dlascl-invalid-cfrom");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("rejected its CFROM (parameter 4), CFROM = 0"), std::string::npos) << found[0].title;
  EXPECT_EQ(found[0].title.find("NaN/Inf"), std::string::npos) << found[0].title;
}

TEST(RecordingDiagnosis, ADriverWhoseDlasclRefusedTwiceSaysSo) {
  // DGELSD scales A and then B: two refusals inside one call are one finding, said twice.
  CallRecord gelsd = call(1, Routine::Gelsd, 30, 9);
  gelsd.flags = blasscope::record::kHasInfo;
  Recording r;
  for (std::uint64_t id : {2, 3}) {
    CallRecord lascl = call(id, Routine::Lascl, 30, 9);
    lascl.parent = 1, lascl.info = -4, lascl.alpha = std::numeric_limits<double>::quiet_NaN();
    xerbla(lascl, "DLASCL", 4);
    r.calls.push_back(lascl);
  }
  r.calls.push_back(gelsd);
  const auto found = of(diagnose_recording(r), "dlascl-invalid-cfrom");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(contains(found[0].evidence, "parameter 4 (2 times in this call)"));
}

TEST(RecordingDiagnosis, AComplexDriverIsNamedAfterTheScalingItsProgramSawRefused) {
  // ZGELSD of an Inf: its DLASCLs (of the real bidiagonal) refuse a NaN CFROM, then its ZLASCLs
  // (of B); SciPy raises the last report, "On entry to ZLASCL parameter number 4".
  CallRecord gelsd = call(1, Routine::Gelsd, 8, 3);
  gelsd.precision = Precision::Z;
  gelsd.flags = blasscope::record::kHasInfo;
  gelsd.info = -4;
  Recording r;
  for (std::uint64_t id : {2, 3, 4, 5, 6}) {
    CallRecord lascl = call(id, Routine::Lascl, 3, 1);
    const bool complex_scaling = id > 3;
    lascl.precision = complex_scaling ? Precision::Z : Precision::D;
    lascl.parent = 1, lascl.info = -4, lascl.alpha = std::numeric_limits<double>::quiet_NaN();
    xerbla(lascl, complex_scaling ? "ZLASCL" : "DLASCL", 4);
    r.calls.push_back(lascl);
  }
  r.calls.push_back(gelsd);
  const auto found = of(diagnose_recording(r), "dlascl-invalid-cfrom");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("ZLASCL rejected its CFROM"), std::string::npos) << found[0].title;
  EXPECT_TRUE(contains(found[0].evidence,
                       "xerbla reported ZLASCL parameter 4 (3 times in this call), and DLASCL "
                       "parameter 4 (2 times)"));
}

TEST(RecordingDiagnosis, ACallStoppedWhileRunningIsAHangAndNeverSaidToHaveReturned) {
  for (const bool timed_out : {true, false}) {
    SCOPED_TRACE(timed_out ? "--timeout" : "stopped by a signal to the recorder");
    Recording r;
    r.timed_out = timed_out;
    r.stopped = !timed_out;
    r.signal = "SIGTERM";
    r.problem = "the recorder received SIGTERM and stopped the program; what it had recorded is kept";
    r.start_ns = 1'000'000'000;
    r.wall_seconds = 5;
    CallRecord gelsd = call(7, Routine::Gelsd, 30, 9), lascl = call(8, Routine::Lascl, 30, 9);
    gelsd.start_ns = 2'000'000'000;
    gelsd.flags = blasscope::record::kHasInfo | blasscope::record::kValuesChecked;
    gelsd.input_inf = 1;
    lascl.parent = 7;
    lascl.alpha = std::numeric_limits<double>::infinity();
    xerbla(lascl, "DLASCL", 4);
    r.calls = {lascl};
    r.running = {gelsd};
    const auto all = diagnose_recording(r);
    const auto hang = of(all, "kernel-hang");
    ASSERT_EQ(hang.size(), 1u);
    EXPECT_NE(hang[0].title.find("call 7 DGELSD"), std::string::npos) << hang[0].title;
    EXPECT_TRUE(contains(hang[0].evidence, timed_out ? "stopped by --timeout" : "the recorder received SIGTERM"));
    EXPECT_TRUE(of(all, "program-crashed").empty());
    const auto cfrom = of(all, "dlascl-invalid-cfrom");
    ASSERT_EQ(cfrom.size(), 1u);
    EXPECT_FALSE(contains(cfrom[0].evidence, "returned INFO")) << "it never returned";
    EXPECT_TRUE(contains(cfrom[0].evidence, "DGELSD never returned"));
  }
}

TEST(RecordingDiagnosis, AHangIsTheProgramsOwnCallWithTheCallItWasInside) {
  Recording r;
  r.timed_out = true;
  r.wall_seconds = 3;
  CallRecord gesdd = call(2, Routine::Gesdd, 2500, 2500), gemm = call(4501, Routine::Gemm, 2500, 2500);
  gemm.parent = 2;
  gesdd.tid = gemm.tid = 9;
  r.running = {gesdd, gemm};
  auto hang = of(diagnose_recording(r), "kernel-hang");
  ASSERT_EQ(hang.size(), 1u) << "one hang, not one per running call";
  EXPECT_EQ(hang[0].severity, Severity::Error);
  EXPECT_NE(hang[0].title.find("call 2 DGESDD"), std::string::npos) << hang[0].title;
  EXPECT_TRUE(contains(hang[0].evidence, "inside it, call 4501 DGEMM"));
  // Stopped on request rather than by --timeout: the same hang.
  r.timed_out = false;
  r.stopped = true;
  hang = of(diagnose_recording(r), "kernel-hang");
  ASSERT_EQ(hang.size(), 1u);
  EXPECT_EQ(hang[0].severity, Severity::Error);
  EXPECT_NE(hang[0].title.find("when the program was stopped"), std::string::npos) << hang[0].title;
}

TEST(RecordingDiagnosis, TheCallInProgressWhenTimeRanOutIsNoHang) {
  Recording r;
  r.timed_out = true;
  r.wall_seconds = 3;
  r.start_ns = 0;
  CallRecord gemm = call(77, Routine::Gemm, 200, 200);
  gemm.start_ns = 2'900'000'000;  // had run 0.1 s when the program was stopped
  r.running = {gemm};
  blasscope::record::RoutineTotal done;
  done.routine = Routine::Gemm;
  done.calls = 1000;
  done.seconds = 2;             // 2 ms each on average (LAPACK's small internal GEMMs among them)
  done.longest_seconds = 0.02;  // the program's own took 20 ms
  r.routines = {done};
  auto hang = of(diagnose_recording(r), "kernel-hang");
  ASSERT_EQ(hang.size(), 1u);
  EXPECT_EQ(hang[0].severity, Severity::Warning) << "a loop of GEMMs stopped in one of them";
  EXPECT_NE(hang[0].title.find("busy, not hung"), std::string::npos) << hang[0].title;
  EXPECT_TRUE(contains(hang[0].evidence, "the longest DGEMM call that returned took 0.02 s"));
  // Running for over a second and ten times the longest: hung, even with calls of its routine done.
  r.running[0].start_ns = 1'000'000'000;
  hang = of(diagnose_recording(r), "kernel-hang");
  ASSERT_EQ(hang.size(), 1u);
  EXPECT_EQ(hang[0].severity, Severity::Error);
  // Under ten times the longest: in progress, though a hundred times the mean.
  r.routines[0].longest_seconds = 0.3;
  EXPECT_EQ(of(diagnose_recording(r), "kernel-hang")[0].severity, Severity::Warning);
  // Under a second: in progress, however long its routine usually takes.
  r.routines.clear();
  r.running[0].start_ns = 2'500'000'000;
  EXPECT_EQ(of(diagnose_recording(r), "kernel-hang")[0].severity, Severity::Warning);
}

TEST(RecordingDiagnosis, ABigCallStoppedEarlyIsNoHangButASmallOneStuckIs) {
  // No finished call to compare with: the least work its sizes take at the machine's peak.
  Recording r;
  r.timed_out = true;
  r.wall_seconds = 3;
  r.peak_gflops_fp64 = 100;
  CallRecord svd = call(6, Routine::Gesdd, 2500, 2500);
  svd.flags |= blasscope::record::kHasInfo;
  svd.start_ns = 400'000'000;  // ran 2.6 s: at least 41.7 GFLOP, 0.42 s at 100 GFLOP/s
  r.running = {svd};
  auto hang = of(diagnose_recording(r), "kernel-hang");
  ASSERT_EQ(hang.size(), 1u);
  EXPECT_EQ(hang[0].severity, Severity::Warning) << hang[0].title;
  EXPECT_TRUE(contains(hang[0].evidence, "at least 41.67 GFLOP: 0.4167 s at this machine's peak of 100 GFLOP/s"));
  // The same time in a 30 x 9 least-squares (microseconds of work): hung.
  r.running[0] = call(2, Routine::Gelsd, 30, 9);
  r.running[0].start_ns = 400'000'000;
  hang = of(diagnose_recording(r), "kernel-hang");
  ASSERT_EQ(hang.size(), 1u);
  EXPECT_EQ(hang[0].severity, Severity::Error) << hang[0].title;
  // Single precision is bounded by the fp32 peak; an unknown peak bounds nothing.
  r.running[0] = svd;
  r.running[0].precision = Precision::S;
  r.peak_gflops_fp32 = 2000;  // 0.021 s: 2.6 s is over a hundred times that
  EXPECT_EQ(of(diagnose_recording(r), "kernel-hang")[0].severity, Severity::Error);
  r.peak_gflops_fp32 = 0;
  EXPECT_EQ(of(diagnose_recording(r), "kernel-hang")[0].severity, Severity::Error);
}

TEST(RecordingDiagnosis, TheProgramsCrashIsNamedWhileAChildIsInsideACall) {
  Recording r;
  r.pid = 1;
  r.signal = "SIGSEGV";
  r.exit_status = 128 + SIGSEGV;
  CallRecord gemm = call(5, Routine::Gemm, 64, 64);
  gemm.pid = 2;
  r.running = {gemm};
  blasscope::record::ProcessInfo program, child;
  program.pid = 1, child.pid = 2;
  program.alive = child.alive = false;
  r.processes = {program, child};
  const auto crashed = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(crashed.size(), 2u);
  EXPECT_NE(crashed[0].title.find("process 2 ended inside"), std::string::npos) << crashed[0].title;
  EXPECT_NE(crashed[1].title.find("the program died with SIGSEGV outside any recorded"), std::string::npos)
      << crashed[1].title;
}

TEST(RecordingDiagnosis, ATerminationSignalIsNotACrash) {
  Recording r;
  r.signal = "SIGTERM";
  auto found = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Warning);
  EXPECT_NE(found[0].title.find("terminated by SIGTERM outside"), std::string::npos) << found[0].title;
  EXPECT_NE(found[0].cause.find("a request to stop"), std::string::npos) << found[0].cause;
  r.signal = "SIGSEGV";
  r.running = {call(3, Routine::Gemm, 4, 4)};
  found = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Error);
  EXPECT_NE(found[0].title.find("died with SIGSEGV inside call 3 DGEMM"), std::string::npos) << found[0].title;
  EXPECT_EQ(found[0].cause.find("a request to stop"), std::string::npos);
}

TEST(LapackMeanings, XerblaParametersAreNamedFromTheRoutinesOwnList) {
  EXPECT_EQ(xerbla_parameter_name("DLASCL", 4), "CFROM");
  EXPECT_EQ(xerbla_parameter_name("SPOTRF", 1), "UPLO");
  EXPECT_EQ(xerbla_parameter_name("ZGEMM ", 13), "LDC");  // XERBLA may pad the name
  EXPECT_EQ(xerbla_parameter_name("DGESDD", 12), "LWORK");
  EXPECT_EQ(xerbla_parameter_name("DGESDD", 14), "");  // past what is named
  EXPECT_EQ(xerbla_parameter_name("DORMBR", 1), "");   // a routine not in the table
  EXPECT_EQ(xerbla_parameter_name("XPOTRF", 1), "");   // not a precision letter
  EXPECT_EQ(xerbla_parameter_list("DPOTRF"), "1 UPLO, 2 N, 3 A, 4 LDA, 5 INFO");
}

}  // namespace

namespace {

// A child's end as its session says it; a session that does not (older, or a word a later
// build wrote) says the status is unknown, and writes no end back.
// A child whose call never returned crashed in it, unless the child exited by itself (another
// of its threads called exit()): then the call was simply cut short.
TEST(RecordingDiagnosis, AChildThatExitedByItselfDidNotCrashInItsRunningCall) {
  Recording r;
  r.pid = 1;
  r.exit_status = 0;
  CallRecord gemm = call(5, Routine::Gemm, 64, 64);
  gemm.pid = 2;
  r.running = {gemm};
  blasscope::record::ProcessInfo child;
  child.pid = 2;
  child.alive = false;
  r.processes = {child};
  EXPECT_EQ(of(diagnose_recording(r), "program-crashed").size(), 1u);  // gone without exiting
  r.processes[0].end = blasscope::record::ProcessEnd::Exited;
  r.processes[0].exit_status = 0;
  EXPECT_TRUE(of(diagnose_recording(r), "program-crashed").empty());
}

TEST(RecordingDiagnosis, AChildThatCrashedOutsideEveryCallIsNamedButAPoolsStopIsNot) {
  Recording r;
  r.pid = 1;
  r.exit_status = 0;
  blasscope::record::ProcessInfo program, child;
  program.pid = 1;
  program.end = blasscope::record::ProcessEnd::Exited;
  program.alive = false;
  child.pid = 2;
  child.command = "python3 worker.py";
  child.alive = false;
  r.processes = {program, child};
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, 0}) {
    r.processes[1].end_signal = sig;
    EXPECT_TRUE(of(diagnose_recording(r), "program-crashed").empty()) << sig;
  }
  r.processes[1].end_signal = SIGSEGV;
  auto crashed = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(crashed.size(), 1u);
  EXPECT_EQ(crashed[0].severity, Severity::Error);
  EXPECT_NE(crashed[0].title.find("child process 2 (python3 worker.py) died with SIGSEGV"), std::string::npos)
      << crashed[0].title;
  r.processes[1].end_signal = SIGKILL;  // the OOM killer, or a parent's deliberate kill
  crashed = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(crashed.size(), 1u);
  EXPECT_EQ(crashed[0].severity, Severity::Warning);
  // Killed by the recorder stopping the program: not a crash.
  r.processes[1].stopped = true;
  EXPECT_TRUE(of(diagnose_recording(r), "program-crashed").empty());
  // Inside a call: that call's diagnosis names it, once.
  r.processes[1].stopped = false;
  r.processes[1].end_signal = SIGSEGV;
  CallRecord gemm = call(5, Routine::Gemm, 64, 64);
  gemm.pid = 2;
  r.running = {gemm};
  crashed = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(crashed.size(), 1u);
  EXPECT_NE(crashed[0].title.find("ended inside"), std::string::npos) << crashed[0].title;
}

// Two children ended inside the same routine, one by a crash and one by a kill: counted apart,
// so that the kill's warning does not absorb the crash's error (or the other way round).
TEST(RecordingDiagnosis, ChildrenEndedInOneRoutineByACrashAndByAKillAreToldApart) {
  Recording r;
  r.pid = 1;
  r.exit_status = 0;
  r.processes.resize(3);
  r.processes[0].pid = 1, r.processes[0].end = blasscope::record::ProcessEnd::Exited;
  r.processes[1].pid = 7, r.processes[1].alive = false, r.processes[1].end_signal = SIGKILL;
  r.processes[2].pid = 9, r.processes[2].alive = false, r.processes[2].end_signal = SIGSEGV;
  for (std::uint32_t pid : {7u, 9u}) {
    CallRecord gemm = call(pid, Routine::Gemm, 64, 64);
    gemm.pid = pid;
    r.running.push_back(gemm);
  }
  const auto ended = of(diagnose_recording(r), "program-crashed");
  ASSERT_EQ(ended.size(), 2u);
  const auto killed = ended[0].facts.value("pid", 0u) == 7 ? ended[0] : ended[1];
  const auto crashed = ended[0].facts.value("pid", 0u) == 9 ? ended[0] : ended[1];
  EXPECT_EQ(killed.severity, Severity::Warning);
  EXPECT_EQ(crashed.severity, Severity::Error);
  EXPECT_EQ(crashed.facts.value("repeats", 1u), 0u);
  EXPECT_NE(killed.cause, crashed.cause);  // the kill's own cause, the crash page's for the crash
  EXPECT_EQ(crashed.cause.rfind("The program ended on a signal", 0), 0u) << crashed.cause;
}

TEST(RecordingDiagnosis, FailuresCountedTogetherSayWhichProcessesTheyRanIn) {
  // A pool's workers fail alike: counted as one diagnosis, each child named once.
  Recording r;
  r.pid = 1;
  r.exit_status = 0;
  r.processes.resize(3);
  r.processes[0].pid = 1, r.processes[1].pid = 7, r.processes[2].pid = 9;
  for (std::uint32_t pid : {1u, 7u, 9u, 7u}) {
    CallRecord c = call(r.calls.size() + 1, Routine::Gesv, 8, 8);
    c.info = 3, c.flags = blasscope::record::kHasInfo, c.pid = pid;
    r.calls.push_back(c);
  }
  auto found = of(diagnose_recording(r), "lapack-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].title.find("child process"), std::string::npos) << found[0].title;  // the first is the program's
  EXPECT_TRUE(contains(found[0].evidence, "such calls ran in child processes 7, 9 as well as in the program"));
  // The first in a child: the title names it, the evidence the others only where there are others.
  r.calls.erase(r.calls.begin());
  found = of(diagnose_recording(r), "lapack-failed");
  EXPECT_NE(found[0].title.find("(in child process 7)"), std::string::npos) << found[0].title;
  EXPECT_TRUE(contains(found[0].evidence, "such calls ran in child processes 7, 9"));
  r.calls.erase(r.calls.begin() + 1);
  found = of(diagnose_recording(r), "lapack-failed");
  EXPECT_FALSE(contains(found[0].evidence, "such calls ran"));
  // The first in a child, a repeat in the program: the program is named too.
  CallRecord own = r.calls.front();
  own.id = 99, own.pid = 1;
  r.calls.push_back(own);
  found = of(diagnose_recording(r), "lapack-failed");
  EXPECT_TRUE(contains(found[0].evidence, "such calls ran in child process 7 as well as in the program"));
  // A message that names the process already is not told it again.
  Recording crashed;
  crashed.pid = 1;
  crashed.exit_status = 0;
  CallRecord gemm = call(5, Routine::Gemm, 64, 64);
  gemm.pid = 2;
  crashed.running = {gemm};
  crashed.processes.resize(2);
  crashed.processes[0].pid = 1;
  crashed.processes[1].pid = 2;
  const auto died = of(diagnose_recording(crashed), "program-crashed");
  ASSERT_EQ(died.size(), 1u);
  EXPECT_NE(died[0].title.find("process 2 ended inside"), std::string::npos) << died[0].title;
  EXPECT_EQ(died[0].title.find("child process"), std::string::npos) << died[0].title;
}

TEST(RecordingReport, AChildsEndIsReadFromItsSessionOrLeftUnknown) {
  const auto child_session = [](const std::string& process) {
    return R"({"format": "blasscope-session", "version": 1, "kind": "recording", "command": ["python3", "w.py"],
               "pid": 7, "parent_pid": 6, "exit_status": -1, "wall_seconds": 1, "processes": [)" +
           process + "]}";
  };
  const auto status_of = [&](const std::string& process) {
    const Recording r = blasscope::record::parse_recording_text(child_session(process));
    return recording_summary(r, {});
  };
  EXPECT_NE(status_of(R"({"pid": 7, "ended": "exit", "exit_status": 3})").find("exit status 3"), std::string::npos);
  EXPECT_NE(status_of(R"({"pid": 7, "ended": "signal"})").find("gone without exiting: a signal"), std::string::npos);
  // Where the kernel said which signal, the session keeps it and the summary names it.
  const std::string terminated = R"({"pid": 7, "ended": "signal", "signal": "SIGTERM"})";
  EXPECT_NE(status_of(terminated).find("ended by SIGTERM (a request to stop, not a crash"), std::string::npos);
  EXPECT_EQ(blasscope::record::to_json(blasscope::record::parse_recording_text(child_session(terminated)),
                                       false)["processes"][0]["signal"],
            "SIGTERM");
  EXPECT_NE(status_of(R"({"pid": 7, "ended": "signal", "signal": "SIGSEGV"})").find("crashed: SIGSEGV"),
            std::string::npos);
  EXPECT_NE(status_of(R"({"pid": 7, "ended": "signal", "signal": "SIGNOTHING"})").find("gone without exiting"),
            std::string::npos);
  for (const std::string unknown : {R"({"pid": 7})", R"({"pid": 7, "ended": "vanished"})"}) {
    EXPECT_NE(status_of(unknown).find("exit status unknown (a child process)"), std::string::npos) << unknown;
    const Recording r = blasscope::record::parse_recording_text(child_session(unknown));
    EXPECT_FALSE(blasscope::record::to_json(r, false)["processes"][0].contains("ended")) << unknown;
  }
}

TEST(RecordingReport, NotesSayWhyCallsWereNotKeptAndWhatFailuresCount) {
  Recording r;
  r.command = {"prog"};
  r.processes.resize(1);
  r.max_calls = 100, r.calls_total = 1;
  EXPECT_NE(recording_summary(r, {}).find("recorded 1 BLAS/LAPACK call in 1 process"), std::string::npos);
  r.calls_total = 150, r.calls_not_kept = 50;
  EXPECT_NE(recording_summary(r, {}).find("50 calls are counted in the totals but not kept one by one (past the cap "
                                          "of 100 calls; record with --max-calls to keep more)"),
            std::string::npos)
      << recording_summary(r, {});
  r.calls_total = 90, r.calls_not_kept = 1;
  EXPECT_NE(recording_summary(r, {}).find("1 call is counted in the totals but not kept one by one (the recording "
                                          "buffer was full"),
            std::string::npos)
      << recording_summary(r, {});
  r.parent_pid = 3;  // a child's session: the cap was all the processes'
  EXPECT_NE(recording_summary(r, {}).find("is the whole recording's"), std::string::npos);
  // A silent NaN result counts as a failure: the note says so and which calls were such.
  CallRecord silent = call(1, Routine::Gelsy, 30, 10);
  silent.flags |= blasscope::record::kHasInfo;
  silent.output_nan = 20;
  CallRecord refused = call(2, Routine::Gelss, 30, 10);
  refused.flags |= blasscope::record::kHasInfo;
  refused.info = 9, refused.output_nan = 4;
  r.calls = {silent, refused};
  const std::string summary = recording_summary(r, {});
  EXPECT_NE(summary.find("returned INFO = 0 with a NaN/Inf result, which nothing reported: 1 dgelsy\n"),
            std::string::npos)
      << summary;
  r.calls = {refused};
  EXPECT_EQ(recording_summary(r, {}).find("FAILURES counts"), std::string::npos);
  // Four threads' calls at once: three seconds of calls in one of wall time.
  blasscope::record::RoutineTotal gemm;
  gemm.calls = 4, gemm.seconds = gemm.self_seconds = 3;
  r.routines = {gemm};
  r.wall_seconds = 1;
  EXPECT_NE(recording_summary(r, {}).find("note: TOTAL and SELF add up calls made at the same time on several threads"),
            std::string::npos)
      << recording_summary(r, {});
  r.wall_seconds = 4;
  EXPECT_EQ(recording_summary(r, {}).find("add up calls made at the same time"), std::string::npos);
}

TEST(RecordingReport, TheCommandLineIsShellQuotedInEveryFormat) {
  Recording r;
  r.command = {"printf", "%s|\\n", "a b", "", "x\ny", "it's"};
  r.exit_status = 0;
  const std::string expected = R"(printf '%s|\n' 'a b' '' $'x\ny' 'it'\''s')";
  const std::string markdown = recording_markdown(r, {});
  EXPECT_EQ(markdown.substr(0, markdown.find('\n')), "# BLAScope recording: `" + expected + "`");
  EXPECT_NE(recording_summary(r, {}).find("of `" + expected + "`"), std::string::npos);
  EXPECT_NE(recording_html(r, {}).find("<h1>BLAScope recording: " + escape_html(expected) + "</h1>"),
            std::string::npos);
}

TEST(RecordingReport, MarkdownKeepsBackticksInsideTheCodeAndEachNoteAParagraph) {
  Recording r;
  r.command = {"echo", "a`b"};
  r.problem = "something to note";
  const std::string markdown = recording_markdown(r, {});
  EXPECT_EQ(markdown.substr(0, markdown.find('\n')), "# BLAScope recording: ``echo 'a`b'``");
  // The note is a paragraph of its own, not joined to the header line before it.
  EXPECT_NE(markdown.find("s\n\nnote: something to note\n\n"), std::string::npos) << markdown;
}

}  // namespace
