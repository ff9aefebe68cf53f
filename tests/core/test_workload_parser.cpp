#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "document/document.h"
#include "exec/runner.h"
#include "io/input_error.h"
#include "results/session_file.h"
#include "test_files.h"
#include "workload/byte_size.h"
#include "workload/workload_parser.h"

using namespace blasscope::core;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_workload_text(text, "/base");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

const char* kTensors =
    R"("tensors": {"a": {"shape": [4, 3], "dtype": "float64"}, "b": {"shape": [3, 2], "dtype": "float64"}})";

std::string with_ops(const std::string& ops) {
  return std::string(R"({"name": "t", )") + kTensors + R"(, "ops": )" + ops + "}";
}

}  // namespace

TEST(WorkloadParser, ReadsEveryFieldOfTheSchema) {
  const Workload w = parse_workload_text(R"({
    "name": "demo", "description": "all fields", "memory_limit": "512MiB",
    "tensors": {
      "w": {"file": "weights.npz", "key": "layer0"},
      "x": {"shape": [8, 4], "dtype": "float32", "order": "F", "seed": 7, "fill": {"constant": 2.5},
            "nan": 2, "inf": 1, "misalign": 8, "ld": 10}
    },
    "ops": [
      {"op": "gemm", "a": "x", "b": "x", "trans_a": true, "alpha": 0.1, "beta": 0, "lda": 10, "ldb": 10, "ldc": 4,
       "promote": true, "device": "both", "repeat": 3, "out": "y"},
      {"op": "dlascl", "a": "y", "type": "U", "cfrom": "norm", "cto": "Infinity"},
      {"op": "dlascl", "a": "y", "cfrom": "NaN", "cto": 1e-300, "lda": -1, "out": "z"},
      {"op": "svd", "a": "z"},
      {"op": "lstsq", "a": "z", "b": "x"},
      {"op": "cast", "a": "op3_svd", "dtype": "float16", "out": "s16"}
    ]})",
                                         "/data");
  EXPECT_EQ(w.name, "demo");
  EXPECT_EQ(*w.memory_limit, 512ull << 20);
  ASSERT_EQ(w.tensors.size(), 2u);
  const auto& file = std::get<FileTensorSource>(w.tensors[0].source);
  EXPECT_EQ(file.path, "/data/weights.npz");
  EXPECT_EQ(file.key, "layer0");
  const auto& x = std::get<SyntheticTensorSource>(w.tensors[1].source);
  EXPECT_EQ(x.order, MemoryOrder::Fortran);
  EXPECT_EQ(x.fill, FillKind::Constant);
  EXPECT_EQ(x.constant, 2.5);
  EXPECT_EQ(x.nan, 2u);
  EXPECT_EQ(x.ld, 10u);
  ASSERT_EQ(w.ops.size(), 6u);
  EXPECT_TRUE(w.ops[0].trans_a);
  EXPECT_EQ(w.ops[0].alpha, 0.1);  // parsed exactly, as strtod rounds it
  EXPECT_EQ(w.ops[0].device, DeviceChoice::Both);
  EXPECT_EQ(*w.ops[0].ldc, 4);
  EXPECT_TRUE(w.ops[1].cfrom_norm);
  EXPECT_TRUE(std::isinf(w.ops[1].cto));
  EXPECT_EQ(w.ops[1].out, "y");  // in place
  EXPECT_TRUE(std::isnan(w.ops[2].cfrom));
  EXPECT_EQ(*w.ops[2].lda, -1);  // illegal on purpose: allowed
  EXPECT_EQ(w.ops[3].out, "op3_svd");
  EXPECT_EQ(w.ops[5].cast_to, DType::Float16);
}

TEST(WorkloadParser, ErrorsNameTheField) {
  const std::pair<std::string, const char*> cases[] = {
      {R"({"name": "t", "tensors": {}, "ops": [], "extra": 1})", "workload: unknown key 'extra'"},
      {R"({"tensors": {}, "ops": []})", "missing required key 'name'"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "q"}])"), "ops[0].b: unknown tensor 'q'"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "alpah": 1}])"), "ops[0]: unknown key 'alpah'"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "lda": 2.5}])"), "ops[0].lda: must be an integer"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "lda": 9999999999}])"), "32-bit BLAS integer"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "repeat": 0}])"), "ops[0].repeat: must be at least 1"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "device": "tpu"}])"), "ops[0].device"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "out": "a"}])"), "ops[0].out: 'a' already names a tensor"},
      {with_ops(R"([{"op": "dlascl", "a": "a", "cto": 1}])"), "missing required key 'cfrom'"},
      {with_ops(R"([{"op": "dlascl", "a": "a", "cfrom": "big", "cto": 1}])"), "ops[0].cfrom: must be a number"},
      {with_ops(R"([{"op": "dlascl", "a": "a", "cfrom": 1, "cto": 1, "type": "B"}])"), "ops[0].type"},
      {with_ops(R"([{"op": "fft", "a": "a"}])"), "ops[0].op: unknown op 'fft'"},
      {with_ops(R"([{"op": "svd", "a": "a", "driver": "gelsd"}])"),
       R"(ops[0].driver: must be one of "gesdd", "gesvd")"},
      {with_ops(R"([{"op": "lstsq", "a": "a", "b": "b", "driver": 3}])"), "ops[0].driver: must be one of"},
      {with_ops(R"([{"op": "svd", "a": "a", "compute_uv": "yes"}])"), "ops[0].compute_uv"},
      {with_ops(R"([{"op": "cholesky", "a": "a", "uplo": "X"}])"), R"(ops[0].uplo: must be "L" or "U")"},
      {with_ops(R"([{"op": "cholesky", "a": "a", "driver": "getrf"}])"), "ops[0]: unknown key 'driver'"},
      {with_ops(R"([{"op": "eigh", "a": "a", "driver": "heevr"}])"),
       R"(ops[0].driver: must be one of "syevd", "syev", "syevr")"},
      {with_ops(R"([{"op": "eigh", "a": "a", "vectors": 1}])"), "ops[0].vectors"},
      {with_ops(R"([{"op": "solve", "a": "a"}])"), "missing required key 'b'"},
      {with_ops(R"([{"op": "lu_solve", "a": "a", "b": "b"}])"), "missing required key 'pivots'"},
      {with_ops(R"([{"op": "lu_solve", "a": "a", "pivots": "p", "b": "b"}])"), "ops[0].pivots: unknown tensor 'p'"},
      {with_ops(R"([{"op": "lu_solve", "a": "a", "pivots": "b", "b": "b", "trans": "X"}])"),
       R"(ops[0].trans: must be "N", "T" or "C")"},
      {with_ops(R"([{"op": "lu", "a": "a", "uplo": "L"}])"), "ops[0]: unknown key 'uplo'"},
      {with_ops(R"([{"op": "eigh", "a": "a", "out": "w", "vectors": true}, {"op": "svd", "a": "a", "out": "w_v"}])"),
       "ops[1].out: 'w_v' already names a tensor"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "timeout": 0}])"),
       "ops[0].timeout: must be a number of seconds"},
      {with_ops(R"([{"op": "gemm", "a": "a", "b": "b", "timeout": "1m"}])"), "ops[0].timeout"},
      {R"({"name": "t", "tensors": {}, "ops": [], "timeout": 1e300})", "timeout: must be a number of seconds"},
      {with_ops(R"([{"op": "svd", "a": "a", "out": "s", "compute_uv": true}, {"op": "svd", "a": "a", "out": "s_u"}])"),
       "ops[1].out: 's_u' already names a tensor"},
      {R"({"name": "t", "tensors": {"a": {"shape": [2, 2], "dtype": "float128"}}, "ops": []})",
       "unknown dtype 'float128'"},
      {R"({"name": "t", "tensors": {"a": {"shape": [2, 3], "dtype": "float32", "ld": 2}}, "ops": []})",
       "tensors.a.ld: 2 is smaller than the row length 3"},
      {R"({"name": "t", "tensors": {"a": {"shape": [2, 2], "dtype": "float32", "nan": 5}}, "ops": []})",
       "tensors.a.nan: 5 is above the limit of 4"},
      {R"({"name": "t", "tensors": {"a": {"shape": [2, 2], "dtype": "int32", "nan": 1}}, "ops": []})",
       "only floating-point tensors"},
      {R"({"name": "t", "tensors": {"a": {"shape": [-2], "dtype": "float32"}}, "ops": []})", "must not be negative"},
      {R"({"name": "t", "tensors": {"a": {"shape": [2], "dtype": "float32", "misalign": 64}}, "ops": []})",
       "tensors.a.misalign"},
      {R"({"name": "t", "tensors": {"a": {"shape": [2], "dtype": "float32", "fill": "gaussian"}}, "ops": []})",
       "tensors.a.fill"},
      {R"({"name": "t", "memory_limit": "lots", "tensors": {}, "ops": []})", "memory_limit"},
      {R"({"name": "t", "name": "u", "tensors": {}, "ops": []})", "duplicate key 'name'"},
      {R"({"name": "t", "tensors": {}, "ops": [})", "not valid JSON"},
      {with_ops(R"([{"op": "trsm", "a": "a", "b": "b", "side": "X"}])"), R"(ops[0].side: must be "L" or "R")"},
      {with_ops(R"([{"op": "trsm", "a": "a", "b": "b", "diag": "Y"}])"), R"(ops[0].diag: must be "N" or "U")"},
      {with_ops(R"([{"op": "gemv", "a": "a", "x": "b", "incx": 0.5}])"), "ops[0].incx: must be an integer"},
      {with_ops(R"([{"op": "gemv", "a": "a", "b": "b"}])"), "ops[0]: unknown key 'b'"},
      {with_ops(R"([{"op": "syrk", "a": "a", "side": "L"}])"), "ops[0]: unknown key 'side'"},
  };
  for (const auto& [text, expected] : cases) {
    EXPECT_NE(error_of(text).find(expected), std::string::npos)
        << "expected: " << expected << "\n got: " << error_of(text);
  }
}

TEST(WorkloadParser, LapackDriversAndTheirDefaults) {
  const Workload w = parse_workload_text(with_ops(R"([{"op": "svd", "a": "a"},
      {"op": "svd", "a": "a", "driver": "gesvd", "compute_uv": true, "out": "s"},
      {"op": "lstsq", "a": "a", "b": "b"}, {"op": "lstsq", "a": "a", "b": "b", "driver": "gelsy", "out": "x"}])"),
                                         "/");
  ASSERT_EQ(w.ops.size(), 4u);
  EXPECT_EQ(w.ops[0].driver, "gesdd");
  EXPECT_FALSE(w.ops[0].compute_uv);
  EXPECT_EQ(w.ops[1].driver, "gesvd");
  EXPECT_TRUE(w.ops[1].compute_uv);
  EXPECT_EQ(w.ops[2].driver, "gelsd");
  EXPECT_EQ(w.ops[3].driver, "gelsy");
  const Workload factors = parse_workload_text(with_ops(R"([{"op": "cholesky", "a": "a"}, {"op": "lu", "a": "a"},
      {"op": "solve", "a": "a", "b": "b"}, {"op": "eigh", "a": "a", "uplo": "U", "vectors": true, "driver": "syev"}])"),
                                               "/");
  ASSERT_EQ(factors.ops.size(), 4u);
  EXPECT_EQ(factors.ops[0].driver, "potrf");
  EXPECT_EQ(factors.ops[0].uplo, 'L') << "NumPy's default triangle";
  EXPECT_EQ(factors.ops[1].driver, "getrf");
  EXPECT_EQ(factors.ops[2].driver, "gesv");
  EXPECT_EQ(factors.ops[3].driver, "syev");
  EXPECT_EQ(factors.ops[3].uplo, 'U');
  EXPECT_TRUE(factors.ops[3].compute_uv);
  EXPECT_EQ(factors.ops[3].out, "op3_eigh");
  const Workload solves = parse_workload_text(with_ops(R"([{"op": "lu_solve", "a": "a", "pivots": "b", "b": "b"},
                   {"op": "lu_solve", "a": "a", "pivots": "b", "b": "b", "trans": "C", "out": "x"}])"),
                                              "/");
  ASSERT_EQ(solves.ops.size(), 2u);
  EXPECT_EQ(solves.ops[0].kind, OpKind::LuSolve);
  EXPECT_EQ(solves.ops[0].driver, "getrs");
  EXPECT_EQ(solves.ops[0].pivots, "b");
  EXPECT_FALSE(solves.ops[0].trans_a);
  EXPECT_TRUE(solves.ops[1].trans_a) << "'C' is A^T for a real matrix";
  EXPECT_EQ(solves.ops[1].out, "x");
  const Workload timed = parse_workload_text(
      R"({"name": "t", "timeout": 30, "tensors": {"a": {"shape": [2, 2], "dtype": "float64"}},
          "ops": [{"op": "svd", "a": "a", "timeout": 2.5}, {"op": "svd", "a": "a", "out": "s2"}]})",
      "/");
  EXPECT_EQ(timed.timeout, 30);
  EXPECT_EQ(timed.ops[0].timeout, 2.5);
  EXPECT_FALSE(timed.ops[1].timeout.has_value());
}

TEST(WorkloadParser, BlasCallsOverwriteTheirOperandUnlessGivenAnOut) {
  const Workload w = parse_workload_text(with_ops(R"([{"op": "gemv", "a": "a", "x": "b", "incx": -2, "incy": 0},
      {"op": "trsm", "a": "a", "b": "b", "side": "R", "uplo": "U", "diag": "U", "trans": true},
      {"op": "syrk", "a": "a", "out": "c"}, {"op": "gemv", "a": "a", "x": "b", "y": "c"}])"),
                                         "/");
  ASSERT_EQ(w.ops.size(), 4u);
  EXPECT_EQ(w.ops[0].kind, OpKind::Gemv);
  EXPECT_EQ(w.ops[0].b, "b");
  EXPECT_EQ(w.ops[0].incx, -2);
  EXPECT_EQ(w.ops[0].incy, 0);
  EXPECT_EQ(w.ops[0].out, "op0_gemv");
  EXPECT_EQ(w.ops[1].out, "b") << "TRSM overwrites B";
  EXPECT_EQ(w.ops[1].side, 'R');
  EXPECT_EQ(w.ops[1].uplo, 'U');
  EXPECT_TRUE(w.ops[1].unit_diagonal);
  EXPECT_TRUE(w.ops[1].trans_a);
  EXPECT_EQ(w.ops[2].out, "c");
  EXPECT_EQ(w.ops[3].out, "c") << "GEMV overwrites y";
}

TEST(ByteSize, UnitsAndErrors) {
  EXPECT_EQ(*parse_byte_size("4GiB"), 4ull << 30);
  EXPECT_EQ(*parse_byte_size("512 MiB"), 512ull << 20);
  EXPECT_EQ(*parse_byte_size("1.5GB"), 1500000000ull);
  EXPECT_EQ(*parse_byte_size("100"), 100ull);
  EXPECT_FALSE(parse_byte_size("4 GB please").has_value());
  EXPECT_FALSE(parse_byte_size("-1MiB").has_value());
  EXPECT_FALSE(parse_byte_size("1e30TiB").has_value());
}

TEST(OpenDocument, TellsTensorFilesWorkloadsAndSessionsApartAndReopensASessionWithItsWorkload) {
  blasscope::test::TempDir dir;
  const std::string workload = dir.file("w.json"), session = dir.file("s.json"), tensor = dir.file("t.npy");
  blasscope::test::write_file(workload, R"({"name": "w", "tensors": {"a": {"shape": [4, 4], "dtype": "float64"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"}]})");
  blasscope::test::write_file(tensor, std::string("\x93NUMPY\x01\x00", 8) + "{'descr': '<f8'}");
  EXPECT_EQ(open_document(tensor).kind, DocumentKind::TensorFile);
  EXPECT_EQ(open_document(workload).kind, DocumentKind::Workload);
  RunCollector collector;
  run_workload(parse_workload_file(workload), {}, collector);
  write_session(session, workload, collector.finish());
  EXPECT_EQ(open_document(session).kind, DocumentKind::Session);

  const Document opened = open_document(session);
  EXPECT_EQ(opened.kind, DocumentKind::Session);
  ASSERT_TRUE(opened.run && opened.workload && opened.plan);
  EXPECT_EQ(opened.workload->name, "w");  // from the file, though no scenario has that name
  EXPECT_TRUE(opened.note.empty()) << opened.note;
  std::filesystem::remove(workload);
  const Document orphan = open_document(session);
  EXPECT_FALSE(orphan.workload.has_value());
  EXPECT_NE(orphan.note.find("could not be reopened"), std::string::npos) << orphan.note;
  EXPECT_TRUE(orphan.rerun_source.empty());
  EXPECT_EQ(opened.rerun_source, workload);
  // A user's workload that shares a scenario's name does not come back as the scenario.
  const std::string named = dir.file("nan-svd.json"), named_session = dir.file("named.json");
  blasscope::test::write_file(named, R"({"name": "nan-svd", "tensors": {"a": {"shape": [3, 3], "dtype": "float64"}},
    "ops": [{"op": "gemm", "a": "a", "b": "a"}]})");
  RunCollector named_run;
  run_workload(parse_workload_file(named), {}, named_run);
  write_session(named_session, named, named_run.finish());
  std::filesystem::remove(named);
  EXPECT_FALSE(open_document(named_session).workload.has_value());
  // A malformed "format" or "version" is an error that names it, never a crash.
  const std::string odd = dir.file("odd.json");
  blasscope::test::write_file(odd, R"({"format": 1, "events": []})");
  EXPECT_THROW(open_document(odd), InputError);
  blasscope::test::write_file(odd, R"({"format": "blasscope-session", "version": "1", "events": []})");
  EXPECT_THROW(open_document(odd), InputError);
  EXPECT_FALSE(open_document(tensor).workload.has_value());
  EXPECT_EQ(open_document("scenario:nan-svd").workload->name, "nan-svd");
}
