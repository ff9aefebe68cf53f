#include "workload/workload_parser.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "io/input_error.h"
#include "io/strict_json.h"
#include "io/text_file.h"
#include "tensor/host_tensor.h"
#include "workload/byte_size.h"

namespace blasscope::core {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxWorkloadBytes = 16 << 20;
constexpr int kMaxRepeat = 100000;

[[noreturn]] void fail_field(const std::string& field, const std::string& what) {
  fail_malformed(field + ": " + what);
}

void check_keys(const json& object, const std::string& where, std::initializer_list<const char*> allowed) {
  if (!object.is_object()) fail_field(where, "must be an object");
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* k : allowed) known = known || key == k;
    if (!known) {
      std::string list;
      for (const char* k : allowed) list += (list.empty() ? "" : ", ") + std::string(k);
      fail_field(where, "unknown key '" + key + "' (allowed: " + list + ")");
    }
  }
}

std::string get_string(const json& object, const char* key, const std::string& where) {
  if (!object.contains(key)) fail_field(where, std::string("missing required key '") + key + "'");
  if (!object[key].is_string()) fail_field(where + "." + key, "must be a string");
  return object[key].get<std::string>();
}

std::uint64_t get_uint(const json& value, const std::string& field, std::uint64_t max) {
  if (!value.is_number_integer()) fail_field(field, "must be a whole number");
  if (value.is_number_integer() && !value.is_number_unsigned()) fail_field(field, "must not be negative");
  const auto v = value.get<std::uint64_t>();
  if (v > max) fail_field(field, std::to_string(v) + " is above the limit of " + std::to_string(max));
  return v;
}

std::int64_t get_blas_int(const json& value, const std::string& field) {
  if (!value.is_number_integer()) fail_field(field, "must be an integer");
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::numeric_limits<std::int32_t>::max()) {
    fail_field(field, "does not fit a 32-bit BLAS integer");
  }
  const auto v = value.get<std::int64_t>();
  if (v < std::numeric_limits<std::int32_t>::min()) fail_field(field, "does not fit a 32-bit BLAS integer");
  return v;
}

bool get_bool(const json& value, const std::string& field) {
  if (!value.is_boolean()) fail_field(field, "must be true or false");
  return value.get<bool>();
}

// A number, or one of the strings "NaN", "Infinity", "-Infinity" (JSON has no literal for them).
double get_real(const json& value, const std::string& field) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto text = value.get<std::string>();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  fail_field(field, "must be a number (or \"NaN\", \"Infinity\", \"-Infinity\")");
}

// A time limit in seconds: a positive number, at most a day.
double get_timeout(const json& value, const std::string& field) {
  if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 86400) {
    fail_field(field, "must be a number of seconds above 0 and at most 86400");
  }
  return value.get<double>();
}

double get_finite(const json& value, const std::string& field) {
  if (!value.is_number()) fail_field(field, "must be a number");
  return value.get<double>();
}

DType get_dtype(const json& value, const std::string& field) {
  if (!value.is_string()) fail_field(field, "must be a dtype name such as \"float32\"");
  const auto dtype = dtype_from_name(value.get<std::string>());
  if (!dtype || !is_scannable(*dtype)) fail_field(field, "unknown dtype '" + value.get<std::string>() + "'");
  return *dtype;
}

FillKind get_fill(const json& value, const std::string& field, double& constant) {
  if (value.is_object()) {
    check_keys(value, field, {"constant"});
    if (!value.contains("constant")) fail_field(field, "expected {\"constant\": number}");
    constant = get_real(value["constant"], field + ".constant");
    return FillKind::Constant;
  }
  const std::pair<const char*, FillKind> kinds[] = {{"random", FillKind::Random},
                                                    {"uniform", FillKind::Uniform},
                                                    {"zeros", FillKind::Zeros},
                                                    {"ones", FillKind::Ones},
                                                    {"range", FillKind::Range}};
  if (value.is_string()) {
    for (const auto& [text, kind] : kinds) {
      if (value.get<std::string>() == text) return kind;
    }
  }
  fail_field(field, "must be \"random\", \"uniform\", \"zeros\", \"ones\", \"range\" or {\"constant\": number}");
}

SyntheticTensorSource parse_synthetic(const json& spec, const std::string& where) {
  check_keys(spec, where, {"shape", "dtype", "order", "seed", "fill", "nan", "inf", "misalign", "ld"});
  SyntheticTensorSource s;
  if (!spec.contains("shape") || !spec["shape"].is_array()) fail_field(where + ".shape", "must be an array of sizes");
  if (spec["shape"].size() > 8) fail_field(where + ".shape", "more than 8 dimensions");
  std::uint64_t count = 1;
  for (std::size_t i = 0; i < spec["shape"].size(); ++i) {
    s.shape.push_back(get_uint(spec["shape"][i], where + ".shape[" + std::to_string(i) + "]", 1ull << 40));
    if (__builtin_mul_overflow(count, s.shape.back(), &count)) fail_field(where + ".shape", "element count overflows");
  }
  if (!spec.contains("dtype")) fail_field(where, "missing required key 'dtype'");
  s.dtype = get_dtype(spec["dtype"], where + ".dtype");
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, item_size(s.dtype), &bytes) || bytes > (1ull << 50)) {
    fail_field(where + ".shape", "byte size is absurdly large");
  }
  if (spec.contains("order")) {
    const std::string order = spec["order"].is_string() ? spec["order"].get<std::string>() : "";
    if (order != "C" && order != "F") fail_field(where + ".order", "must be \"C\" or \"F\"");
    s.order = order == "C" ? MemoryOrder::C : MemoryOrder::Fortran;
  }
  if (spec.contains("seed"))
    s.seed = get_uint(spec["seed"], where + ".seed", std::numeric_limits<std::uint64_t>::max());
  if (spec.contains("fill")) s.fill = get_fill(spec["fill"], where + ".fill", s.constant);
  const bool floating = kind(s.dtype) == DTypeKind::Float || kind(s.dtype) == DTypeKind::Complex;
  for (const char* key : {"nan", "inf"}) {
    if (!spec.contains(key)) continue;
    const auto n = get_uint(spec[key], where + "." + key, count);
    if (n > 0 && !floating) fail_field(where + "." + key, "only floating-point tensors can hold NaN/Inf");
    (std::string(key) == "nan" ? s.nan : s.inf) = n;
  }
  if (s.nan + s.inf > count)
    fail_field(where, "nan + inf is more than the tensor's " + std::to_string(count) + " values");
  if (spec.contains("misalign")) s.misalign = get_uint(spec["misalign"], where + ".misalign", 63);
  if (spec.contains("ld")) {
    if (s.shape.size() != 2) fail_field(where + ".ld", "padding applies to 2-D tensors only");
    const std::uint64_t dense = dense_leading_dim(s.shape, s.order);
    s.ld = get_uint(spec["ld"], where + ".ld", 1ull << 40);
    if (s.ld < dense) {
      fail_field(where + ".ld", std::to_string(s.ld) + " is smaller than the " +
                                    (s.order == MemoryOrder::C ? "row length " : "column length ") +
                                    std::to_string(dense));
    }
  }
  return s;
}

TensorSpec parse_tensor(const std::string& name, const json& spec, const std::string& base_dir) {
  const std::string where = "tensors." + name;
  if (!spec.is_object()) fail_field(where, "must be an object");
  if (spec.contains("file")) {
    check_keys(spec, where, {"file", "key"});
    FileTensorSource f;
    std::filesystem::path path = get_string(spec, "file", where);
    if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
    f.path = path.lexically_normal().string();
    if (spec.contains("key")) f.key = get_string(spec, "key", where);
    return {name, f};
  }
  return {name, parse_synthetic(spec, where)};
}

DeviceChoice get_device(const json& value, const std::string& field) {
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  if (text == "cpu") return DeviceChoice::Cpu;
  if (text == "gpu") return DeviceChoice::Gpu;
  if (text == "both") return DeviceChoice::Both;
  fail_field(field, "must be \"cpu\", \"gpu\" or \"both\"");
}

class OpParser {
 public:
  explicit OpParser(std::set<std::string>& names) : m_names(names) {}

  OpSpec parse(const json& spec, std::size_t index) {
    m_where = "ops[" + std::to_string(index) + "]";
    if (!spec.is_object()) fail_field(m_where, "must be an object");
    OpSpec op;
    op.index = index;
    const std::string kind = get_string(spec, "op", m_where);
    if (kind == "gemm") {
      check_keys(spec, m_where,
                 {"op", "timeout", "a", "b", "c", "out", "trans_a", "trans_b", "alpha", "beta", "lda", "ldb", "ldc",
                  "promote", "tf32", "device", "repeat"});
      op.kind = OpKind::Gemm;
      op.a = input(spec, "a");
      op.b = input(spec, "b");
      if (spec.contains("c")) op.c = input(spec, "c");
      if (spec.contains("trans_a")) op.trans_a = get_bool(spec["trans_a"], m_where + ".trans_a");
      if (spec.contains("trans_b")) op.trans_b = get_bool(spec["trans_b"], m_where + ".trans_b");
      if (spec.contains("alpha")) op.alpha = get_finite(spec["alpha"], m_where + ".alpha");
      if (spec.contains("beta")) op.beta = get_finite(spec["beta"], m_where + ".beta");
      for (const char* key : {"lda", "ldb", "ldc"}) {
        if (!spec.contains(key)) continue;
        const auto v = get_blas_int(spec[key], m_where + "." + key);
        (key[2] == 'a' ? op.lda : key[2] == 'b' ? op.ldb : op.ldc) = v;
      }
      if (spec.contains("promote")) op.promote = get_bool(spec["promote"], m_where + ".promote");
      if (spec.contains("tf32")) op.tf32 = get_bool(spec["tf32"], m_where + ".tf32");
      op.out = output(spec, op.c.empty() ? default_name(op) : op.c, !op.c.empty());
    } else if (kind == "dlascl") {
      check_keys(spec, m_where, {"op", "timeout", "a", "type", "cfrom", "cto", "lda", "device", "repeat", "out"});
      op.kind = OpKind::Dlascl;
      op.a = input(spec, "a");
      if (spec.contains("type")) {
        const std::string t = spec["type"].is_string() ? spec["type"].get<std::string>() : "";
        if (t != "G" && t != "L" && t != "U" && t != "H")
          fail_field(m_where + ".type", "must be \"G\", \"L\", \"U\" or \"H\"");
        op.scale_type = t[0];
      }
      if (!spec.contains("cfrom")) fail_field(m_where, "missing required key 'cfrom'");
      if (spec["cfrom"].is_string() && spec["cfrom"].get<std::string>() == "norm") {
        op.cfrom_norm = true;
      } else {
        op.cfrom = get_real(spec["cfrom"], m_where + ".cfrom");
      }
      if (!spec.contains("cto")) fail_field(m_where, "missing required key 'cto'");
      op.cto = get_real(spec["cto"], m_where + ".cto");
      if (spec.contains("lda")) op.lda = get_blas_int(spec["lda"], m_where + ".lda");
      op.out = output(spec, op.a, true);
    } else if (kind == "svd") {
      check_keys(spec, m_where, {"op", "timeout", "a", "device", "out", "driver", "compute_uv"});
      op.kind = OpKind::Svd;
      op.a = input(spec, "a");
      op.driver = driver(spec, {"gesdd", "gesvd"});
      if (spec.contains("compute_uv")) op.compute_uv = get_bool(spec["compute_uv"], m_where + ".compute_uv");
      op.out = output(spec, default_name(op), false);
      if (op.compute_uv) {
        for (const char* suffix : {"_u", "_vt"}) reserve(op.out + suffix);
      }
    } else if (kind == "lstsq") {
      check_keys(spec, m_where, {"op", "timeout", "a", "b", "device", "out", "driver"});
      op.kind = OpKind::Lstsq;
      op.a = input(spec, "a");
      op.b = input(spec, "b");
      op.driver = driver(spec, {"gelsd", "gelsy", "gelss", "gels"});
      op.out = output(spec, default_name(op), false);
    } else if (kind == "cholesky" || kind == "lu" || kind == "eigh") {
      // NumPy's cholesky (POTRF), det/lu_factor (GETRF) and eigh/eigvalsh (SYEVD)
      if (kind == "eigh") {
        check_keys(spec, m_where, {"op", "timeout", "a", "device", "out", "driver", "uplo", "vectors"});
      } else if (kind == "cholesky") {
        check_keys(spec, m_where, {"op", "timeout", "a", "device", "out", "uplo"});
      } else {
        check_keys(spec, m_where, {"op", "timeout", "a", "device", "out"});
      }
      op.kind = kind == "cholesky" ? OpKind::Cholesky : kind == "lu" ? OpKind::Lu : OpKind::Eigh;
      op.a = input(spec, "a");
      op.driver = kind == "eigh" ? driver(spec, {"syevd", "syev", "syevr"}) : kind == "lu" ? "getrf" : "potrf";
      if (spec.contains("uplo")) {
        const std::string u = spec["uplo"].is_string() ? spec["uplo"].get<std::string>() : "";
        if (u != "L" && u != "U") fail_field(m_where + ".uplo", "must be \"L\" or \"U\"");
        op.uplo = u[0];
      }
      if (spec.contains("vectors")) op.compute_uv = get_bool(spec["vectors"], m_where + ".vectors");
      op.out = output(spec, default_name(op), false);
      if (op.compute_uv) reserve(op.out + "_v");
    } else if (kind == "solve") {
      check_keys(spec, m_where, {"op", "timeout", "a", "b", "device", "out"});
      op.kind = OpKind::Solve;  // NumPy's solve and inv (GESV)
      op.a = input(spec, "a");
      op.b = input(spec, "b");
      op.driver = "gesv";
      op.out = output(spec, default_name(op), false);
    } else if (kind == "lu_solve") {
      check_keys(spec, m_where, {"op", "timeout", "a", "pivots", "b", "trans", "device", "out"});
      op.kind = OpKind::LuSolve;  // SciPy's lu_solve, torch's solve and inv after lu_factor (GETRS)
      op.a = input(spec, "a");
      op.pivots = input(spec, "pivots");
      op.b = input(spec, "b");
      op.driver = "getrs";
      if (spec.contains("trans")) {
        // 'C' solves with A^H: A^T for a real A, as LAPACK's real GETRS takes it.
        const std::string t = spec["trans"].is_string() ? spec["trans"].get<std::string>() : "";
        if (t != "N" && t != "T" && t != "C") fail_field(m_where + ".trans", "must be \"N\", \"T\" or \"C\"");
        op.trans_a = t != "N";
        op.conjugate = t == "C";
      }
      op.out = output(spec, default_name(op), false);
    } else if (kind == "gemv" || kind == "syrk" || kind == "trsm") {
      parse_blas_call(spec, kind, op);
    } else if (kind == "cast") {
      check_keys(spec, m_where, {"op", "timeout", "a", "dtype", "out"});
      op.kind = OpKind::Cast;
      op.a = input(spec, "a");
      if (!spec.contains("dtype")) fail_field(m_where, "missing required key 'dtype'");
      op.cast_to = get_dtype(spec["dtype"], m_where + ".dtype");
      if (!spec.contains("out")) fail_field(m_where, "missing required key 'out'");
      op.out = output(spec, default_name(op), false);
    } else {
      fail_field(m_where + ".op",
                 "unknown op '" + kind +
                     "' (gemm, dlascl, svd, lstsq, cholesky, lu, solve, lu_solve, eigh, gemv, syrk, trsm, cast)");
    }
    if (spec.contains("device")) op.device = get_device(spec["device"], m_where + ".device");
    if (spec.contains("timeout")) op.timeout = get_timeout(spec["timeout"], m_where + ".timeout");
    if (spec.contains("repeat"))
      op.repeat = static_cast<int>(get_uint(spec["repeat"], m_where + ".repeat", kMaxRepeat));
    if (op.repeat < 1) fail_field(m_where + ".repeat", "must be at least 1");
    return op;
  }

 private:
  // Results without an "out" are named after their op: op3_svd.
  static std::string default_name(const OpSpec& op) {
    return "op" + std::to_string(op.index) + "_" + std::string(core::name(op.kind));
  }

  // gemv (y = alpha op(A) x + beta y), syrk (C = alpha op(A) op(A)^T + beta C) and trsm
  // (B = alpha op(A)^-1 B, or B op(A)^-1): one CBLAS call each, in A's memory order, arguments
  // as given (an illegal leading dimension or stride is passed on, as the program passed it).
  void parse_blas_call(const json& spec, const std::string& kind, OpSpec& op) {
    if (kind == "gemv") {
      check_keys(spec, m_where,
                 {"op", "timeout", "a", "x", "y", "out", "trans", "alpha", "beta", "lda", "incx", "incy", "repeat"});
      op.kind = OpKind::Gemv;
      op.a = input(spec, "a");
      op.b = input(spec, "x");
      if (spec.contains("y")) op.c = input(spec, "y");
      for (const char* key : {"incx", "incy"}) {
        if (spec.contains(key)) (key[3] == 'x' ? op.incx : op.incy) = get_blas_int(spec[key], m_where + "." + key);
      }
    } else if (kind == "syrk") {
      check_keys(spec, m_where,
                 {"op", "timeout", "a", "c", "out", "uplo", "trans", "alpha", "beta", "lda", "ldc", "repeat"});
      op.kind = OpKind::Syrk;
      op.a = input(spec, "a");
      if (spec.contains("c")) op.c = input(spec, "c");
    } else {
      check_keys(spec, m_where,
                 {"op", "timeout", "a", "b", "out", "side", "uplo", "trans", "diag", "alpha", "lda", "ldb", "repeat"});
      op.kind = OpKind::Trsm;
      op.a = input(spec, "a");
      op.b = input(spec, "b");
      if (spec.contains("side")) op.side = letter(spec, "side", "LR");
      if (spec.contains("diag")) op.unit_diagonal = letter(spec, "diag", "NU") == 'U';
    }
    if (spec.contains("uplo")) op.uplo = letter(spec, "uplo", "LU");
    if (spec.contains("trans")) op.trans_a = get_bool(spec["trans"], m_where + ".trans");
    if (spec.contains("alpha")) op.alpha = get_finite(spec["alpha"], m_where + ".alpha");
    if (spec.contains("beta")) op.beta = get_finite(spec["beta"], m_where + ".beta");
    for (const char* key : {"lda", "ldb", "ldc"}) {
      if (spec.contains(key))
        (key[2] == 'a' ? op.lda : key[2] == 'b' ? op.ldb : op.ldc) = get_blas_int(spec[key], m_where + "." + key);
    }
    // The result overwrites y, C or B where given, as BLAS does; else a new tensor.
    const std::string& overwritten = op.kind == OpKind::Trsm ? op.b : op.c;
    op.out = output(spec, overwritten.empty() ? default_name(op) : overwritten, !overwritten.empty());
  }

  // One of `letters` ("LR"), as a one-letter string.
  char letter(const json& spec, const char* key, const std::string& letters) {
    const std::string text = spec[key].is_string() ? spec[key].get<std::string>() : "";
    if (text.size() != 1 || letters.find(text[0]) == std::string::npos) {
      std::string choices;
      for (const char c : letters) choices += std::string(choices.empty() ? "" : " or ") + "\"" + c + "\"";
      fail_field(m_where + "." + key, "must be " + choices);
    }
    return text[0];
  }

  // The LAPACK driver an op names, one of those the op runs (the first is its default).
  std::string driver(const json& spec, std::initializer_list<const char*> drivers) {
    if (!spec.contains("driver")) return *drivers.begin();
    const std::string name = spec["driver"].is_string() ? spec["driver"].get<std::string>() : "";
    std::string choices;
    for (const char* d : drivers) {
      if (name == d) return name;
      choices += std::string(choices.empty() ? "" : ", ") + "\"" + d + "\"";
    }
    fail_field(m_where + ".driver", "must be one of " + choices);
  }

  // A further result's name (svd's OUT_u, OUT_vt, eigh's OUT_v): new, like "out".
  void reserve(const std::string& name) {
    if (!m_names.insert(name).second) {
      fail_field(m_where + ".out", "'" + name + "' (a further result of this op) already names a tensor");
    }
  }

  std::string input(const json& spec, const char* key) {
    const std::string name = get_string(spec, key, m_where);
    if (!m_names.count(name)) fail_field(m_where + "." + key, "unknown tensor '" + name + "'");
    return name;
  }

  // The result's name: "out" when given (a new name), else `fallback` (in place, or ops[i]).
  std::string output(const json& spec, const std::string& fallback, bool in_place_ok) {
    if (!spec.contains("out")) {
      if (!in_place_ok && !m_names.insert(fallback).second)
        fail_field(m_where, "'" + fallback + "' already names a tensor; give \"out\"");
      return fallback;
    }
    const std::string name = get_string(spec, "out", m_where);
    if (m_names.count(name)) fail_field(m_where + ".out", "'" + name + "' already names a tensor");
    m_names.insert(name);
    return name;
  }

  std::set<std::string>& m_names;
  std::string m_where;
};

ScenarioInfo parse_scenario(const json& spec) {
  check_keys(spec, "scenario", {"id", "title", "story", "seed", "expected"});
  ScenarioInfo s;
  s.id = get_string(spec, "id", "scenario");
  s.title = get_string(spec, "title", "scenario");
  s.story = get_string(spec, "story", "scenario");
  if (spec.contains("seed")) s.seed = get_string(spec, "seed", "scenario");
  if (!spec.contains("expected") || !spec["expected"].is_array())
    fail_field("scenario.expected", "must be a list of ids");
  for (const json& id : spec["expected"]) {
    if (!id.is_string()) fail_field("scenario.expected", "must be a list of ids");
    s.expected.push_back(id.get<std::string>());
  }
  return s;
}

}  // namespace

Workload parse_workload_text(std::string_view text, const std::string& base_dir) {
  const json doc = parse_strict_json(text, "workload", 16);
  check_keys(doc, "workload",
             {"name", "description", "memory_limit", "timeout", "tensors", "ops", "scenario", "recorded_call"});
  Workload w;
  w.name = get_string(doc, "name", "workload");
  if (doc.contains("description")) w.description = get_string(doc, "description", "workload");
  if (doc.contains("memory_limit")) {
    const json& limit = doc["memory_limit"];
    std::optional<std::uint64_t> bytes;
    if (limit.is_string()) bytes = parse_byte_size(limit.get<std::string>());
    if (limit.is_number_unsigned()) bytes = limit.get<std::uint64_t>();
    if (!bytes || *bytes == 0) fail_field("memory_limit", "must be a size such as \"4GiB\" or \"512MiB\"");
    w.memory_limit = bytes;
  }
  if (doc.contains("timeout")) w.timeout = get_timeout(doc["timeout"], "timeout");
  if (doc.contains("scenario")) w.scenario = parse_scenario(doc["scenario"]);
  if (doc.contains("recorded_call")) {
    if (!doc["recorded_call"].is_number_unsigned()) fail_field("recorded_call", "must be a call's id, a whole number");
    w.recorded_call = doc["recorded_call"].get<std::uint64_t>();
  }
  if (!doc.contains("tensors") || !doc["tensors"].is_object()) fail_field("tensors", "must be an object of tensors");
  std::set<std::string> names;
  for (const auto& [name, spec] : doc["tensors"].items()) {
    if (name.empty()) fail_field("tensors", "a tensor name is empty");
    w.tensors.push_back(parse_tensor(name, spec, base_dir));
    names.insert(name);
  }
  if (!doc.contains("ops") || !doc["ops"].is_array()) fail_field("ops", "must be an array of operations");
  OpParser ops(names);
  for (std::size_t i = 0; i < doc["ops"].size(); ++i) w.ops.push_back(ops.parse(doc["ops"][i], i));
  return w;
}

Workload parse_workload_file(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) throw InputError(InputError::Kind::Unreadable, "cannot read workload: " + error.message());
  if (size > kMaxWorkloadBytes) fail_malformed("workload file is larger than 16 MiB");
  Workload w = parse_workload_text(read_text_file(path), std::filesystem::absolute(path).parent_path().string());
  w.source_path = std::filesystem::absolute(path).string();
  return w;
}

}  // namespace blasscope::core
