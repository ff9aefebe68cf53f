// Detectors and the diagnosis engine on constructed records and plans, near misses included.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "diagnose/argument_evidence.h"
#include "diagnose/explanation_catalogue.h"
#include "diagnose/run_diagnosis.h"
#include "plan/workload_plan.h"
#include "resources/embedded_resources.h"
#include "results/run_findings.h"
#include "workload/workload_parser.h"

using namespace blasscope::core;

namespace {

WorkloadPlan plan(const std::string& tensors, const std::string& ops) {
  return plan_workload(parse_workload_text(R"({"name": "p", "tensors": )" + tensors + R"(, "ops": )" + ops + "}", "/"));
}

std::set<std::string> ids(const std::vector<Detection>& findings) {
  std::set<std::string> out;
  for (const auto& f : findings) out.insert(f.id);
  return out;
}

std::set<std::string> ids(const std::vector<Diagnosis>& diagnoses) {
  std::set<std::string> out;
  for (const auto& d : diagnoses) out.insert(d.id);
  return out;
}

OperandRecord operand(const std::string& role, std::uint64_t alignment = 64) {
  OperandRecord o;
  o.role = role;
  o.tensor = role;
  o.dtype = DType::Float64;
  o.shape = {8, 8};
  o.order = MemoryOrder::C;
  o.ld = 8;
  o.alignment = alignment;
  return o;
}

KernelRecord gemm_record(std::size_t op, std::uint64_t alignment, double seconds) {
  KernelRecord r;
  r.op = op;
  r.op_kind = OpKind::Gemm;
  r.kernel = "cblas_dgemm";
  r.dtype = DType::Float64;
  r.m = r.n = r.k = 8;
  r.seconds = seconds;
  r.operands = {operand("a", alignment), operand("b", alignment), operand("out")};
  return r;
}

RunResult result_of(std::vector<KernelRecord> records) {
  RunResult r;
  r.workload = "constructed";
  for (auto& record : records) {
    for (auto& f : findings_for_record(record)) r.findings.push_back(std::move(f));
    r.ops.push_back(std::move(record));
  }
  return r;
}

}  // namespace

TEST(WorkloadPlan, BufferOverrunFiresOnlyPastTheLastElement) {
  // A is 4 x 8 (C order): with lda = L the kernel reads 3 * L + 8 elements of the 32 stored.
  const std::string tensors =
      R"({"a": {"shape": [4, 8], "dtype": "float64"}, "b": {"shape": [8, 2], "dtype": "float64"}})";
  EXPECT_FALSE(
      ids(plan(tensors, R"([{"op": "gemm", "a": "a", "b": "b", "lda": 8}])").predictions).count("buffer-overrun"));
  const auto over = plan(tensors, R"([{"op": "gemm", "a": "a", "b": "b", "lda": 9}])");
  ASSERT_TRUE(ids(over.predictions).count("buffer-overrun"));
  EXPECT_EQ(over.predictions[0].facts["elements_read"], 35);
  EXPECT_EQ(over.predictions[0].facts["elements_stored"], 32);
  // Too small is an illegal argument (BLAS rejects it), not an overrun.
  EXPECT_TRUE(plan(tensors, R"([{"op": "gemm", "a": "a", "b": "b", "lda": 7}])").predictions.empty());
  // A padded tensor owns its padding: ld up to its own ld reads inside the buffer.
  EXPECT_TRUE(
      plan(R"({"a": {"shape": [4, 8], "dtype": "float64", "ld": 12}, "b": {"shape": [8, 2], "dtype": "float64"}})",
           R"([{"op": "gemm", "a": "a", "b": "b", "lda": 12}])")
          .predictions.empty());
}

TEST(WorkloadPlan, BlasCallsAreCheckedForOverrunsOfEveryMatrixTheyWalk) {
  const std::string tensors =
      R"({"a": {"shape": [4, 3], "dtype": "float64"}, "b": {"shape": [4, 2], "dtype": "float64"},
      "t": {"shape": [4, 4], "dtype": "float64"}, "x": {"shape": [3], "dtype": "float64"}})";
  // SYRK's new C is 4 x 4: LDC 5 walks past it, LDC 4 and an illegal 3 do not.
  EXPECT_TRUE(ids(plan(tensors, R"([{"op": "syrk", "a": "a", "ldc": 5}])").predictions).count("buffer-overrun"));
  EXPECT_TRUE(plan(tensors, R"([{"op": "syrk", "a": "a", "ldc": 4}, {"op": "syrk", "a": "a", "ldc": 3, "out": "c"}])")
                  .predictions.empty());
  EXPECT_TRUE(
      ids(plan(tensors, R"([{"op": "trsm", "a": "t", "b": "b", "ldb": 3}])").predictions).count("buffer-overrun"));
  EXPECT_TRUE(
      ids(plan(tensors, R"([{"op": "gemv", "a": "a", "x": "x", "lda": 4}])").predictions).count("buffer-overrun"));
  // Out of place the result is a dense copy: B's own padding does not make room for LDB.
  const std::string padded = R"({"t": {"shape": [4, 4], "dtype": "float64", "order": "F"},
      "b": {"shape": [4, 4], "dtype": "float64", "order": "F", "ld": 64}})";
  EXPECT_TRUE(plan(padded, R"([{"op": "trsm", "a": "t", "b": "b", "ldb": 64}])").predictions.empty());
  EXPECT_TRUE(ids(plan(padded, R"([{"op": "trsm", "a": "t", "b": "b", "ldb": 64, "out": "x"}])").predictions)
                  .count("buffer-overrun"));
  EXPECT_TRUE(ids(plan(padded, R"([{"op": "gemm", "a": "t", "b": "t", "c": "b", "ldc": 64, "out": "y"}])").predictions)
                  .count("buffer-overrun"));
  const auto planned = plan(tensors, R"([{"op": "gemv", "a": "a", "x": "x", "incy": -3}])");
  EXPECT_EQ(planned.tensors.at("op0_gemv").shape, (std::vector<std::uint64_t>{10}));  // 1 + (4 - 1) * 3
}

TEST(WorkloadPlan, IndexOverflowAtExactlyTwoToTheThirtyOne) {
  const auto fits = plan(R"({"a": {"shape": [1, 2147483647], "dtype": "float32"}})", R"([{"op": "svd", "a": "a"}])");
  EXPECT_TRUE(fits.skip_ops.empty());
  EXPECT_FALSE(ids(fits.predictions).count("index-overflow"));
  const auto over = plan(R"({"a": {"shape": [2, 1073741824], "dtype": "float32"}})", R"([{"op": "svd", "a": "a"}])");
  EXPECT_TRUE(over.skip_ops.count(0));
  EXPECT_TRUE(ids(over.predictions).count("index-overflow"));
}

TEST(WorkloadPlan, AliasingNeedsA4096ByteMultipleAndEnoughRows) {
  const auto gemm = R"([{"op": "gemm", "a": "a", "b": "b"}])";
  EXPECT_TRUE(
      ids(plan(R"({"a": {"shape": [64, 1024], "dtype": "float32"}, "b": {"shape": [1024, 3], "dtype": "float32"}})",
               gemm)
              .predictions)
          .count("ld-cache-aliasing"));
  EXPECT_FALSE(
      ids(plan(R"({"a": {"shape": [63, 1024], "dtype": "float32"}, "b": {"shape": [1024, 3], "dtype": "float32"}})",
               gemm)
              .predictions)
          .count("ld-cache-aliasing"));
  EXPECT_FALSE(
      ids(plan(R"({"a": {"shape": [64, 1025], "dtype": "float32"}, "b": {"shape": [1025, 3], "dtype": "float32"}})",
               gemm)
              .predictions)
          .count("ld-cache-aliasing"));
}

TEST(RecordFindings, DlasclInvalidCfromNeedsTheNonFiniteInput) {
  KernelRecord svd;
  svd.op_kind = OpKind::Svd;
  svd.kernel = "dgesdd";
  svd.info = -4;
  svd.status = OpStatus::Failed;
  svd.error_kind = ErrorKind::IllegalArgument;
  svd.error = "dgesdd returned INFO=-4";
  svd.operands = {operand("a")};
  EXPECT_EQ(ids(findings_for_record(svd)), std::set<std::string>{"illegal-argument"});
  svd.operands[0].nan = 1;
  EXPECT_EQ(ids(findings_for_record(svd)), (std::set<std::string>{"dlascl-invalid-cfrom", "non-finite-input"}));
}

TEST(RecordFindings, ALapackOpThatTurnedNanIntoAFiniteResultIsAnError) {
  KernelRecord eigh;
  eigh.op_kind = OpKind::Eigh;
  eigh.kernel = "dsyevd";
  eigh.status = OpStatus::Ok;
  eigh.info = 0;
  eigh.operands = {operand("a")};
  eigh.operands[0].nan = 1;
  const auto severity = [](const std::vector<Detection>& found) {
    for (const auto& f : found) {
      if (f.id == "non-finite-input") return f.severity;
    }
    return Severity::Info;
  };
  EXPECT_EQ(severity(findings_for_record(eigh)), Severity::Error) << "INFO = 0, a finite result: nothing said it";
  eigh.output_nan = 3;  // the NaN reached the result: non-finite-output is the error
  EXPECT_EQ(severity(findings_for_record(eigh)), Severity::Warning);
  eigh.output_nan = 0;
  eigh.info = 2;  // INFO said it
  EXPECT_EQ(severity(findings_for_record(eigh)), Severity::Warning);
  eigh.info = 0;
  eigh.op_kind = OpKind::Gemm;  // not LAPACK: BLAS need not read all it is given (alpha = 0)
  EXPECT_EQ(severity(findings_for_record(eigh)), Severity::Warning);
}

TEST(RecordFindings, AnotherArgumentRefusedBesideCfromIsAFindingOfItsOwn) {
  // NumPy's svd of a matrix with an Inf: DGESDD's DLASCL refuses CFROM twice, then CTO (5).
  KernelRecord svd;
  svd.op_kind = OpKind::Svd;
  svd.kernel = "dgesdd";
  svd.status = OpStatus::Failed;
  svd.error_kind = ErrorKind::IllegalArgument;
  svd.xerbla = {{"DLASCL", 4, "CFROM"}, {"DLASCL", 4, "CFROM"}, {"DLASCL", 5, "CTO"}};
  const auto findings = findings_for_record(svd);
  EXPECT_EQ(ids(findings), (std::set<std::string>{"dlascl-invalid-cfrom", "illegal-argument"}));
  const auto other =
      std::find_if(findings.begin(), findings.end(), [](const Detection& d) { return d.id == "illegal-argument"; });
  EXPECT_NE(other->message.find("DLASCL parameter number 5"), std::string::npos) << other->message;
  svd.xerbla.pop_back();
  EXPECT_EQ(ids(findings_for_record(svd)), std::set<std::string>{"dlascl-invalid-cfrom"});
}

TEST(RecordFindings, ASilentNonFiniteResultIsAnErrorWhateverTheInputsAndCastsReportTheirOwn) {
  KernelRecord r = gemm_record(0, 64, 1e-3);
  EXPECT_TRUE(findings_for_record(r).empty());
  r.output_inf = 3;
  auto findings = findings_for_record(r);
  EXPECT_EQ(ids(findings), std::set<std::string>{"non-finite-output"});
  EXPECT_EQ(findings[0].severity, Severity::Error);
  EXPECT_NE(findings[0].message.find("every input was finite"), std::string::npos) << findings[0].message;
  r.operands[0].nan = 1;  // now the input brought it: still nothing was reported
  findings = findings_for_record(r);
  EXPECT_EQ(ids(findings), (std::set<std::string>{"non-finite-input", "non-finite-output"}));
  const auto output =
      std::find_if(findings.begin(), findings.end(), [](const Detection& d) { return d.id == "non-finite-output"; });
  EXPECT_NE(output->message.find("come from the NaN/Inf in '" + r.operands[0].tensor + "'"), std::string::npos)
      << output->message;
  r.status = OpStatus::Failed;  // the library said so (INFO, xerbla): not silent
  EXPECT_FALSE(ids(findings_for_record(r)).count("non-finite-output"));
  KernelRecord cast;
  cast.op_kind = OpKind::Cast;
  cast.dtype = DType::Float16;
  cast.output_inf = 2;
  cast.cast_overflow = 2;
  EXPECT_EQ(ids(findings_for_record(cast)), std::set<std::string>{"cast-overflow"});
  cast.cast_overflow = 0;
  cast.output_inf = 0;
  EXPECT_TRUE(findings_for_record(cast).empty());  // values that exactly fit
}

TEST(RunDiagnosis, MisalignmentReportsTheMeasuredCostAgainstItsTwin) {
  EXPECT_FALSE(ids(diagnose_run(result_of({gemm_record(0, 64, 1e-3)}))).count("misaligned-buffer"));
  const auto slow = diagnose_run(result_of({gemm_record(0, 32, 2e-3), gemm_record(1, 64, 1e-3)}));
  const auto it =
      std::find_if(slow.begin(), slow.end(), [](const Diagnosis& d) { return d.id == "misaligned-buffer"; });
  ASSERT_NE(it, slow.end());
  EXPECT_EQ(it->op, 0u);
  EXPECT_EQ(it->severity, Severity::Warning);  // measurably slower
  EXPECT_NE(it->evidence.back().find("ratio 2"), std::string::npos);
  const auto same = diagnose_run(result_of({gemm_record(0, 32, 1e-3), gemm_record(1, 64, 1e-3)}));
  EXPECT_EQ(same[0].severity, Severity::Info);
  EXPECT_FALSE(same[0].cause.empty());
  EXPECT_FALSE(same[0].seen_as.empty());
}

TEST(RunDiagnosis, ALapackOpsFailureIsTitledInItsOwnTerms) {
  // A shape error of a factorisation is not about multiplying operands; a positive INFO says
  // what it means for that routine (as the recording of the same call does).
  KernelRecord square;
  square.op = 0, square.op_kind = OpKind::Cholesky, square.status = OpStatus::Failed;
  square.error_kind = ErrorKind::ShapeMismatch;
  square.error = "cholesky needs a square matrix; 'r' has shape (3, 2)";
  KernelRecord singular;
  singular.op = 1, singular.op_kind = OpKind::Lu, singular.kernel = "dgetrf", singular.status = OpStatus::Failed;
  singular.info = 2, singular.error_kind = ErrorKind::LapackFailed;
  singular.error = "dgetrf returned INFO=2: U(2,2) is exactly zero: the matrix is singular";
  const auto all = diagnose_run(result_of({square, singular}));
  const auto of = [&all](const std::string& id) {
    return *std::find_if(all.begin(), all.end(), [&id](const Diagnosis& d) { return d.id == id; });
  };
  EXPECT_NE(of("shape-mismatch").title.find("cholesky needs a square matrix"), std::string::npos);
  const Diagnosis lu = of("lapack-failed");
  EXPECT_EQ(lu.title, "op 1 (lu, dgetrf) returned INFO = 2: U(2,2) is exactly zero: the matrix is singular");
  EXPECT_EQ(lu.severity, Severity::Warning) << "the factorisation is complete; a solve with it fails";
  EXPECT_NE(lu.cause.find("GETRF's factorisation is complete"), std::string::npos);
}

TEST(ArgumentEvidence, NamesTheBoundAndTheRowMajorMixUp) {
  KernelRecord r = gemm_record(0, 64, 1e-3);
  r.call = BlasCallRecord{true, false, false, 32, 16, 64, 32, 16, 16};
  const auto mixed_up = gemm_argument_evidence(r, {"DGEMM", 10, ""});
  ASSERT_GE(mixed_up.size(), 4u);
  EXPECT_NE(mixed_up[2].find("lda = 32, but A is stored row-major as 32 x 64"), std::string::npos);
  EXPECT_NE(mixed_up[2].find("at least 64"), std::string::npos);
  EXPECT_NE(mixed_up[3].find("mix-up"), std::string::npos);
  r.call->lda = 40;  // wrong, but not the row count
  EXPECT_EQ(gemm_argument_evidence(r, {"DGEMM", 10, ""}).size(), 3u);
  r.call = BlasCallRecord{false, false, false, 32, 16, 64, 16, 64, 32};  // column-major: lda must be >= m = 32
  const auto col = gemm_argument_evidence(r, {"DGEMM", 8, ""});
  EXPECT_NE(col[1].find("your lda"), std::string::npos);
  EXPECT_NE(col[2].find("at least 32"), std::string::npos);
}

TEST(Catalogue, EveryIdHasAnExplanationAndEveryExplanationAnId) {
  const auto& known = diagnosis_ids();
  std::set<std::string> explained;
  for (const auto& e : explanation_catalogue()) {
    EXPECT_TRUE(explained.insert(e.id).second) << "duplicate " << e.id;
    EXPECT_NE(std::find(known.begin(), known.end(), e.id), known.end()) << "text without an id: " << e.id;
    EXPECT_FALSE(e.seen_as.empty()) << e.id;
  }
  for (const auto& id : known) EXPECT_TRUE(explained.count(id)) << "id without a text: " << id;
  for (const auto& r : embedded_resources()) {
    if (r.path.rfind("explanations/", 0) != 0) continue;
    const std::string file = std::filesystem::path(std::string(r.path)).stem().string();
    EXPECT_NE(std::string(r.text).find("id: " + file + "\n"), std::string::npos) << r.path << " names another id";
  }
}

TEST(Catalogue, ExplanationsQuoteTheRealErrorTexts) {
  auto quotes = [](const std::string& id, const std::string& text) {
    const Explanation* e = find_explanation(id);
    return e && std::find(e->seen_as.begin(), e->seen_as.end(), text) != e->seen_as.end();
  };
  EXPECT_TRUE(quotes("dlascl-invalid-cfrom", "MKL ERROR: Parameter 4 was incorrect on entry to DLASCL"));
  EXPECT_TRUE(quotes("dlascl-invalid-cfrom", " ** On entry to DLASCL parameter number  4 had an illegal value"));
  EXPECT_TRUE(quotes("illegal-argument", " ** On entry to DGEMM parameter number  8 had an illegal value"));
  EXPECT_TRUE(quotes("shape-mismatch", "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x2 and 3x2)"));
  EXPECT_TRUE(find_explanation("cublas-error")->seen_as.front().rfind("InternalError: Blas GEMM launch failed", 0) ==
              0);
}

TEST(Catalogue, MalformedExplanationsAreRefused) {
  EXPECT_THROW(parse_explanation("id: x\n"), std::runtime_error);
  EXPECT_THROW(parse_explanation("---\nid: x\nseverity: loud\n---\n"), std::runtime_error);
  EXPECT_THROW(parse_explanation("---\nid: x\nseverity: info\ntitle: t\n---\n## Cause\nc\n"), std::runtime_error);
}

TEST(RunDiagnosis, KernelMismatchEvidenceWeighsCpuGemmsAgainstTheirOwnPrecisionsPeak) {
  RunResult result;
  result.environment.cpu = CpuEnvironment{};
  result.environment.cpu->kernel_mismatch = "OpenBLAS runs Prescott kernels (SSE) on a CPU with AVX-512";
  result.environment.cpu->peak_gflops_fp32 = 100.0;
  result.environment.cpu->peak_gflops_fp64 = 50.0;
  KernelRecord cpu, gpu;
  cpu.op_kind = gpu.op_kind = OpKind::Gemm;
  cpu.dtype = gpu.dtype = DType::Float32;
  cpu.gflops = 40;
  gpu.device = Device::Gpu;
  gpu.gflops = 20000;  // an H100's sgemm must not count as the CPU's
  result.ops = {cpu, gpu};
  bool found = false;
  for (const auto& d : diagnose_run(result)) {
    if (d.id != "blas-kernel-mismatch") continue;
    found = true;
    ASSERT_EQ(d.evidence.size(), 2u);
    EXPECT_NE(d.evidence[1].find("40 GFLOP/s = 40% of the 100 GFLOP/s float32 peak"), std::string::npos)
        << d.evidence[1];
  }
  EXPECT_TRUE(found);
}

TEST(RunDiagnosis, AMissingGpuIsSaidOncePerRunWithTheOpsItKeptOnTheCpu) {
  std::vector<KernelRecord> records;
  for (std::size_t op : {0, 2}) {
    KernelRecord r = gemm_record(op, 64, 1e-3);
    r.device = Device::Gpu;
    r.status = OpStatus::Skipped;
    r.error_kind = ErrorKind::NoGpu;
    r.error = "no usable NVIDIA driver";
    records.push_back(r);
  }
  const auto diagnoses = diagnose_run(result_of(records));
  const auto count =
      std::count_if(diagnoses.begin(), diagnoses.end(), [](const Diagnosis& d) { return d.id == "no-gpu"; });
  EXPECT_EQ(count, 1);
  const auto it = std::find_if(diagnoses.begin(), diagnoses.end(), [](const Diagnosis& d) { return d.id == "no-gpu"; });
  ASSERT_NE(it, diagnoses.end());
  EXPECT_FALSE(it->op.has_value());
  EXPECT_EQ(it->evidence.back(), "ops run on the CPU only: 0, 2");
}
