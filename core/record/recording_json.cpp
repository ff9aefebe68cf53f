#include "record/recording_json.h"

#include <string.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "record/routine_names.h"
#include "record/session_writer.h"
#include "record/usable_cores.h"

namespace blasscope::record {

using nlohmann::json;

namespace {

constexpr int kRecordingFormatVersion = 1;

std::uint64_t ns_of(double s) {
  // Up to about 580 years; anything longer (or NaN) is damage, kept as 0.
  return s > 0 && s < 1.8e10 ? static_cast<std::uint64_t>(s * 1e9 + 0.5) : 0;
}

// The value a non-finite number was written as ("NaN", "Infinity", "-Infinity").
double non_finite_value(const std::string& name, std::string_view key) {
  if (name == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (name == "Infinity") return std::numeric_limits<double>::infinity();
  if (name == "-Infinity") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("field \"" + std::string(key) + "\" must be a number, \"NaN\" or \"Infinity\"");
}

// An integer field from a JSON number, refused (not wrapped, not undefined) when it is
// fractional or out of the field's range: `"m": 1e300` is damage, not a size.
// (long double holds every 64-bit integer exactly on x86-64, so the bounds are exact too.)
template <typename T>
T checked_integer(long double v, std::string_view key) {
  static const long double end = std::ldexp(1.0L, std::numeric_limits<T>::digits);  // 2^63, 2^64, 2^31, 2^32
  static const long double lowest = std::numeric_limits<T>::is_signed ? -end : 0.0L;
  if (!(v >= lowest && v < end) || static_cast<long double>(static_cast<T>(v)) != v) {
    throw std::invalid_argument("field \"" + std::string(key) + "\" is not an integer in range");
  }
  return static_cast<T>(v);
}

// The same for an integer as parsed (in integers: long double arithmetic is x87 code, and took
// a tenth of opening a million-call session).
template <typename T, typename V>
requires std::is_integral_v<V> T checked_integer(V v, std::string_view key) {
  if (!std::in_range<T>(v))
    throw std::invalid_argument("field \"" + std::string(key) + "\" is not an integer in range");
  return static_cast<T>(v);
}

template <typename T>
T field(const json& j, const char* key, T fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const json& v = j[key];
    if (v.is_number_float()) return checked_integer<T>(v.get<double>(), key);
    if (v.is_number_unsigned()) return checked_integer<T>(static_cast<long double>(v.get<std::uint64_t>()), key);
    if (v.is_number_integer()) return checked_integer<T>(static_cast<long double>(v.get<std::int64_t>()), key);
  }
  try {
    return j[key].get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument(std::string("field \"") + key + "\" has the wrong type");
  }
}

// A process's "ended" and "exit_status" (end_name's words). A session without them (older, or
// unfinished), or with a word this build does not know, leaves the end unknown.
void read_end(const json& p, ProcessInfo& process) {
  const std::string ended = field<std::string>(p, "ended", "");
  static const std::pair<const char*, ProcessEnd> kEnds[] = {
      {"exit", ProcessEnd::Exited}, {"returned", ProcessEnd::Returned}, {"exec", ProcessEnd::Execed},
      {"signal", ProcessEnd::None}, {"stopped", ProcessEnd::None},      {"running", ProcessEnd::None}};
  process.end_known = false;
  for (const auto& [word, end] : kEnds) {
    if (ended == word) process.end = end, process.end_known = true;
  }
  process.alive = ended == "running";
  process.stopped = ended == "stopped";
  if (process.end == ProcessEnd::Exited) process.exit_status = field<int>(p, "exit_status", -1);
  // "SIGTERM": the signal that ended it, where the kernel said (a name this system knows).
  const std::string signal = field<std::string>(p, "signal", "");
  for (int sig = 1; sig < 65 && signal.size() > 3 && !process.alive; ++sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    if (abbrev && signal.compare(3, std::string::npos, abbrev) == 0 && signal.starts_with("SIG")) {
      process.end_signal = sig;
      break;
    }
  }
}

}  // namespace

json running_call_to_json(const Recording& r, const CallRecord& c) {
  json call = call_to_json(c, 0, r.start_ns);
  call.erase("seconds");
  call.erase("info");
  call["ran_seconds"] = running_seconds(r, c);
  return call;
}

json call_to_json(const CallRecord& c, std::uint64_t seq, std::uint64_t start_ns) {
  // One writer of the format: the tree is parsed from what the session writer writes.
  char text[kMaxCallText];
  return json::parse(text, write_call_text(text, c, seq, start_ns));
}

json to_json(const Recording& r) {
  return to_json(r, true);
}

json routines_to_json(std::span<const RoutineTotal> totals) {
  json routines = json::array();
  for (const auto& t : totals) {
    routines.push_back({{"routine", routine_name(t.routine, t.precision)},
                        {"dtype", total_dtype(t)},
                        {"calls", t.calls},
                        {"seconds", t.seconds},
                        {"self_seconds", t.self_seconds},
                        {"failures", t.failures},
                        {"gflop", t.gflop}});
    if (t.unfinished) routines.back()["unfinished"] = t.unfinished;
    if (t.unfinished_seconds > 0) routines.back()["unfinished_seconds"] = t.unfinished_seconds;
    if (t.queries) routines.back()["workspace_queries"] = t.queries;
    if (t.query_seconds > 0) routines.back()["workspace_query_seconds"] = t.query_seconds;
    if (t.longest_seconds > 0) routines.back()["longest_seconds"] = t.longest_seconds;
  }
  return routines;
}

json to_json(const Recording& r, bool with_calls) {
  json processes = json::array();
  for (const auto& p : r.processes) {
    processes.push_back(
        {{"pid", p.pid}, {"parent_pid", p.parent_pid}, {"command", p.command}, {"blas_found", p.blas_found}});
    // Loaded but none of the routines BLAScope records called (NumPy's dot of two vectors is DDOT).
    if (p.blas_loaded && !p.blas_found) processes.back()["blas_loaded"] = true;
    if (const std::string ended = end_name(p); !ended.empty()) processes.back()["ended"] = ended;
    if (p.end_known && p.end == ProcessEnd::Exited) processes.back()["exit_status"] = p.exit_status;
    if (p.end_known && !p.alive && p.end_signal) {
      const char* abbrev = ::sigabbrev_np(p.end_signal);
      if (abbrev) processes.back()["signal"] = std::string("SIG") + abbrev;
    }
    if (!p.blas_library.empty()) processes.back()["blas_library"] = p.blas_library;
    if (!p.openblas_corename.empty()) processes.back()["openblas_corename"] = p.openblas_corename;
    // What the kernel mismatch was judged from, kept with the process that said it.
    if (!p.openblas_config.empty()) processes.back()["openblas_config"] = p.openblas_config;
    if (!p.openblas_coretype.empty()) processes.back()["openblas_coretype"] = p.openblas_coretype;
  }
  const json routines = routines_to_json(r.routines);
  json calls = json::array();
  if (with_calls) {
    for (std::size_t i = 0; i < r.calls.size(); ++i) calls.push_back(call_to_json(r.calls[i], i, r.start_ns));
  }
  json running = json::array();
  for (const auto& c : r.running) running.push_back(running_call_to_json(r, c));
  json children = json::array();
  for (const auto& c : r.children) {
    children.push_back({{"pid", c.pid}, {"command", c.command}, {"session", c.session}});
  }
  json captures = json::array();
  for (const auto& c : r.captures) {
    captures.push_back({{"call", c.call}, {"routine", c.routine}, {"workload", c.workload}});
  }
  return {{"format", "blasscope-session"},
          {"version", kRecordingFormatVersion},
          {"kind", "recording"},
          {"command", r.command},
          {"host", r.host},
          {"pid", r.pid},
          {"exit_status", r.exit_status >= 0 ? json(r.exit_status) : json()},  // null: not known (a child)
          {"signal", r.signal.empty() ? json() : json(r.signal)},
          {"timed_out", r.timed_out},
          {"stopped", r.stopped},
          {"timeout_seconds", r.timeout_seconds},
          {"wall_seconds", r.wall_seconds},
          {"check_values", r.check_values},
          {"max_calls", r.max_calls},
          {"calls_total", r.calls_total},
          {"calls_not_kept", r.calls_not_kept},
          {"nested_limit", r.nested_limit == kAllNested ? json() : json(r.nested_limit)},
          {"calls_unlisted", r.calls_unlisted},
          {"problem", r.problem.empty() ? json() : json(r.problem)},
          {"processes", processes},
          {"captures", captures},
          {"children", children},
          {"machine",
           {{"blas_library", r.blas_library.empty() ? json() : json(r.blas_library)},
            {"openblas_corename", r.openblas_corename},
            {"kernel_mismatch", r.kernel_mismatch},
            {"peak_gflops_fp32", r.peak_gflops_fp32},
            {"peak_gflops_fp64", r.peak_gflops_fp64}}},
          {"parent_pid", r.parent_pid ? json(r.parent_pid) : json()},
          {"captures_skipped", r.captures_skipped},
          {"capture", r.capture_mode.empty() ? json() : json(r.capture_mode)},
          {"routines", routines},
          {"calls", calls},
          {"running", running}};
}

namespace {

// The fields of a call, looked up once per key (a million calls make tens of millions of keys).
enum class Field {
  Other,
  Id,
  Parent,
  Pid,
  Thread,
  M,
  Bytes,  // cudaMalloc's size
  N,
  K,
  Lda,
  Ldb,
  Ldc,
  Alpha,
  Beta,
  Start,
  Seconds,
  Info,
  Status,
  InputNan,
  InputInf,
  OutputNan,
  OutputInf,
  Routine,
  DType,
  Char,
  Xerbla,
  Parameter,
  Cblas,
  RowMajor,
  TransA,
  TransB,
  ValuesChecked,
  Captured,
  WorkspaceQuery,
  SomeEigenvalues,
  Incomplete,
  Lapacke,
  ConjA,
  ConjB,
  AlignA,
  AlignB,
  AlignC,
  Unlisted
};

// By length first: a hash of every key took a tenth of opening a million-call session.
Field field_of(std::string_view key) {
  struct Name {
    std::string_view text;
    Field field;
  };
  static constexpr Name kByLength[][8] = {
      {},
      {{"m", Field::M}, {"n", Field::N}, {"k", Field::K}},
      {{"id", Field::Id}},
      {{"pid", Field::Pid}, {"lda", Field::Lda}, {"ldb", Field::Ldb}, {"ldc", Field::Ldc}},
      {{"beta", Field::Beta}, {"info", Field::Info}, {"char", Field::Char}},
      {{"alpha", Field::Alpha},
       {"start", Field::Start},
       {"cblas", Field::Cblas},
       {"bytes", Field::Bytes},
       {"dtype", Field::DType}},
      {{"parent", Field::Parent},
       {"thread", Field::Thread},
       {"status", Field::Status},
       {"xerbla", Field::Xerbla},
       {"conj_a", Field::ConjA},
       {"conj_b", Field::ConjB}},
      {{"seconds", Field::Seconds},
       {"routine", Field::Routine},
       {"trans_a", Field::TransA},
       {"trans_b", Field::TransB},
       {"align_a", Field::AlignA},
       {"align_b", Field::AlignB},
       {"align_c", Field::AlignC},
       {"lapacke", Field::Lapacke}},
      {{"captured", Field::Captured}, {"unlisted", Field::Unlisted}},
      {{"input_nan", Field::InputNan},
       {"input_inf", Field::InputInf},
       {"row_major", Field::RowMajor},
       {"parameter", Field::Parameter}},
      {{"output_nan", Field::OutputNan}, {"output_inf", Field::OutputInf}, {"incomplete", Field::Incomplete}},
      {},
      {},
      {},
      {{"values_checked", Field::ValuesChecked}},
      {{"workspace_query", Field::WorkspaceQuery}},
      {{"some_eigenvalues", Field::SomeEigenvalues}},
  };
  static_assert(
      [] {
        for (std::size_t length = 0; length < std::size(kByLength); ++length) {
          for (const Name& name : kByLength[length]) {
            if (!name.text.empty() && name.text.size() != length) return false;
          }
        }
        return true;
      }(),
      "a name is looked up in the row of its length only");
  if (key.size() >= std::size(kByLength)) return Field::Other;
  for (const Name& name : kByLength[key.size()]) {
    if (name.text.empty()) break;
    // Byte by byte, most differ at once: string_view's == called memcmp for every key of every
    // call, a twentieth of opening a million-call session.
    std::size_t i = 0;
    while (i < key.size() && name.text[i] == key[i]) ++i;
    if (i == key.size()) return name.field;
  }
  return Field::Other;
}

// An alignment in bytes as CallRecord holds it: a power of two up to 4096.
std::uint8_t alignment_code(std::uint32_t bytes, std::string_view key) {
  if (bytes == 0 || bytes > 4096 || (bytes & (bytes - 1)) != 0) {
    throw std::invalid_argument("field \"" + std::string(key) + "\" must be a power of two from 1 to 4096");
  }
  return static_cast<std::uint8_t>(1 + std::countr_zero(bytes));
}

// Reads one call object's events into a CallRecord: the one reader of the format (the fast path,
// the SAX reader and call_from_json all feed it).
class CallBuilder {
 public:
  void begin() {
    m_call = CallRecord{};
    m_data_type = -1;
    m_has_routine = false;
    m_in_xerbla = false;
    m_expect_object = false;
  }
  void key(std::string_view k) {
    m_key_storage.assign(k);
    key_in_place(m_key_storage);
  }
  // `k` lives as long as the call is read (the fast reader's text): not copied.
  void key_in_place(std::string_view k) {
    m_key = k;
    m_field = field_of(k);
    m_expect_object = !m_in_xerbla && m_field == Field::Xerbla;
  }
  // A nested object: only a call's "xerbla" is one.
  void begin_nested() {
    if (!m_expect_object)
      throw std::invalid_argument("field \"" + std::string(m_key) + "\" of a call must not be an object");
    m_expect_object = false;
    m_in_xerbla = true;
    m_call.flags |= kXerbla;  // a report, whatever parameter it names (OpenBLAS's CBLAS says 0)
  }
  void end_nested() { m_in_xerbla = false; }
  void check_value() const {
    if (m_expect_object) throw std::invalid_argument("field \"" + std::string(m_key) + "\" must be an object");
  }
  // `exact`: an integer as parsed, or any number as a long double (exact for every integer).
  template <typename V>
  void number(V exact) {
    if (m_expect_object) throw std::invalid_argument("field \"" + std::string(m_key) + "\" must be an object");
    const auto v = static_cast<double>(exact);
    const std::string_view k = m_key;
    if (m_in_xerbla) {
      if (m_field == Field::Parameter) m_call.xerbla_parameter = checked_integer<std::int32_t>(exact, k);
      return;
    }
    switch (m_field) {
      case Field::Id: m_call.id = checked_integer<std::uint64_t>(exact, k); break;
      case Field::Parent: m_call.parent = checked_integer<std::uint64_t>(exact, k); break;
      case Field::Pid: m_call.pid = checked_integer<std::uint32_t>(exact, k); break;
      case Field::Thread: m_call.tid = checked_integer<std::uint32_t>(exact, k); break;
      case Field::M: m_call.m = checked_integer<std::int32_t>(exact, k); break;
      case Field::Bytes: set_malloc_bytes(m_call, checked_integer<std::uint64_t>(exact, k)); break;
      case Field::N: m_call.n = checked_integer<std::int32_t>(exact, k); break;
      case Field::K: m_call.k = checked_integer<std::int32_t>(exact, k); break;
      case Field::Lda: m_call.lda = checked_integer<std::int32_t>(exact, k); break;
      case Field::Ldb: m_call.ldb = checked_integer<std::int32_t>(exact, k); break;
      case Field::Ldc: m_call.ldc = checked_integer<std::int32_t>(exact, k); break;
      case Field::Alpha: m_call.alpha = v; break;
      case Field::Beta: m_call.beta = v; break;
      case Field::Start: m_start = v; break;
      case Field::Seconds: m_call.duration_ns = ns_of(v); break;
      case Field::Info:
        m_call.info = checked_integer<std::int32_t>(exact, k);
        m_call.flags |= kHasInfo;
        break;
      case Field::Status:
        m_call.info = checked_integer<std::int32_t>(exact, k);
        m_call.flags |= kHasStatus;
        break;
      case Field::InputNan: m_call.input_nan = checked_integer<std::uint32_t>(exact, k); break;
      case Field::InputInf: m_call.input_inf = checked_integer<std::uint32_t>(exact, k); break;
      case Field::OutputNan: m_call.output_nan = checked_integer<std::uint32_t>(exact, k); break;
      case Field::OutputInf: m_call.output_inf = checked_integer<std::uint32_t>(exact, k); break;
      case Field::AlignA: m_call.align_a = alignment_code(checked_integer<std::uint32_t>(exact, k), k); break;
      case Field::AlignB: m_call.align_b = alignment_code(checked_integer<std::uint32_t>(exact, k), k); break;
      case Field::AlignC: m_call.align_c = alignment_code(checked_integer<std::uint32_t>(exact, k), k); break;
      case Field::Unlisted: m_call.unlisted = checked_integer<std::uint32_t>(exact, k); break;
      default: break;  // fields this BLAScope does not read ("seq")
    }
  }
  void text(const std::string& v) {
    check_value();
    if (m_in_xerbla) {
      if (m_field == Field::Routine) {
        std::snprintf(m_call.xerbla_routine, sizeof m_call.xerbla_routine, "%.7s", v.c_str());
      }
      return;
    }
    if (m_field == Field::Routine) {
      const auto routine = parse_routine_name(v);
      if (!routine) throw std::invalid_argument("unknown routine \"" + v + "\"");
      m_call.routine = routine->first;
      m_call.precision = routine->second;
      m_has_routine = true;
    } else if (m_field == Field::Char) {
      m_call.side_uplo = v.empty() ? 0 : static_cast<std::uint8_t>(v[0]);
    } else if (m_field == Field::DType) {
      // Only a *Ex GEMM's is its own (the writer puts "routine" first: other calls skip it).
      if (!m_has_routine || has_data_type_argument(m_call.routine)) m_data_type = cuda_data_type_of(v);
    } else if (m_field == Field::Alpha || m_field == Field::Beta) {
      (m_field == Field::Alpha ? m_call.alpha : m_call.beta) = non_finite_value(v, m_key);
    }
  }
  void boolean(bool v) {
    check_value();
    if (!v) return;
    switch (m_field) {
      case Field::Cblas: m_call.flags |= kCblas; break;
      case Field::RowMajor: m_call.flags |= kRowMajor; break;
      case Field::TransA: m_call.flags |= kTransA; break;
      case Field::TransB: m_call.flags |= kTransB; break;
      case Field::ConjA: m_call.flags |= kConjA; break;
      case Field::ConjB: m_call.flags |= kConjB; break;
      case Field::ValuesChecked: m_call.flags |= kValuesChecked; break;
      case Field::Captured: m_call.flags |= kCaptured; break;
      case Field::WorkspaceQuery: m_call.flags |= kWorkspaceQuery; break;
      case Field::SomeEigenvalues: m_call.flags |= kSomeEigenvalues; break;
      case Field::Incomplete: m_call.flags |= kIncomplete; break;
      case Field::Lapacke: m_call.flags |= kLapacke; break;
      default: break;
    }
  }
  CallRecord finish(std::uint64_t start_ns) {
    if (!m_has_routine) throw std::invalid_argument("a call has no \"routine\"");
    if (has_data_type_argument(m_call.routine)) m_call.side_uplo = static_cast<std::uint8_t>(m_data_type + 1);
    m_call.start_ns = start_ns + ns_of(m_start);
    m_start = 0;
    return m_call;
  }

 private:
  CallRecord m_call;
  std::string m_key_storage;  // the key when it is not read in place
  std::string_view m_key;
  Field m_field = Field::Other;
  double m_start = 0;
  int m_data_type = -1;  // a *Ex GEMM's cudaDataType, from its "dtype"
  bool m_has_routine = false, m_in_xerbla = false, m_expect_object = false;
};

// A call already parsed into a JSON tree (the "running" calls), read by the same builder.
void feed(CallBuilder& builder, const json& object) {
  for (const auto& [key, value] : object.items()) {
    builder.key(key);
    if (value.is_object()) {
      builder.begin_nested();
      for (const auto& [inner_key, inner] : value.items()) {
        builder.key(inner_key);
        if (inner.is_object() || inner.is_array()) throw std::invalid_argument("a call nests too deep");
        if (inner.is_number()) builder.number(inner.get<double>());
        if (inner.is_string()) builder.text(inner.get<std::string>());
      }
      builder.end_nested();
    } else if (value.is_array()) {
      throw std::invalid_argument("a call holds an array");
    } else if (value.is_number_unsigned()) {
      builder.number(value.get<std::uint64_t>());
    } else if (value.is_number_integer()) {
      builder.number(value.get<std::int64_t>());
    } else if (value.is_number()) {
      builder.number(value.get<double>());
    } else if (value.is_string()) {
      builder.text(value.get<std::string>());
    } else if (value.is_boolean()) {
      builder.boolean(value.get<bool>());
    } else {
      builder.check_value();
    }
  }
}

CallRecord call_from_json(const json& j, std::uint64_t start_ns) {
  if (!j.is_object()) throw std::invalid_argument("a call must be an object");
  CallBuilder builder;
  builder.begin();
  feed(builder, j);
  return builder.finish(start_ns);
}

// Everything but the top-level "calls" array goes to nlohmann's own tree builder; the calls
// (thousands to millions of small objects) become records directly.
class SessionSax {
 public:
  using dom = nlohmann::detail::json_sax_dom_parser<json>;
  explicit SessionSax(json& root) : m_dom(root) {}
  std::vector<CallRecord> calls;
  std::size_t error_position = 0;  // where a syntax error was found (1 past the end: the text ended)

  bool null() {
    if (!value_in_calls()) return m_dom.null();
    m_builder.check_value();
    return true;
  }
  bool boolean(bool v) { return value_in_calls() ? (m_builder.boolean(v), true) : m_dom.boolean(v); }
  bool number_integer(json::number_integer_t v) {
    return value_in_calls() ? (m_builder.number(v), true) : m_dom.number_integer(v);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return value_in_calls() ? (m_builder.number(v), true) : m_dom.number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const std::string& s) {
    return value_in_calls() ? (m_builder.number(v), true) : m_dom.number_float(v, s);
  }
  bool string(std::string& v) { return value_in_calls() ? (m_builder.text(v), true) : m_dom.string(v); }
  bool binary(json::binary_t&) { throw std::invalid_argument("binary values are not part of a session"); }
  bool start_object(std::size_t n) {
    if (m_pending_calls) throw std::invalid_argument("\"calls\" must be an array");
    if (m_calls_depth) {
      if (++m_calls_depth == 2) m_builder.begin();
      if (m_calls_depth == 3) m_builder.begin_nested();
      if (m_calls_depth > 3) throw std::invalid_argument("a call nests too deep");
      return true;
    }
    nest();
    return m_dom.start_object(n);
  }
  bool key(std::string& k) {
    if (m_calls_depth) {
      m_builder.key(k);
      return true;
    }
    if (m_depth == 1 && k == "calls") m_pending_calls = true;
    return m_dom.key(k);
  }
  bool end_object() {
    if (m_calls_depth) {
      if (m_calls_depth == 2) calls.push_back(m_builder.finish(0));
      if (m_calls_depth == 3) m_builder.end_nested();
      --m_calls_depth;
      return true;
    }
    --m_depth;
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) {
    if (m_calls_depth) throw std::invalid_argument("a call holds an array");
    if (m_pending_calls) {
      m_pending_calls = false;
      m_calls_depth = 1;
      // The tree gets an empty "calls"; the records hold them.
      return m_dom.start_array(0) && m_dom.end_array();
    }
    nest();
    return m_dom.start_array(n);
  }
  bool end_array() {
    if (m_calls_depth == 1) {
      m_calls_depth = 0;
      return true;
    }
    --m_depth;
    return m_dom.end_array();
  }
  bool parse_error(std::size_t position, const std::string& last, const nlohmann::detail::exception& e) {
    error_position = position;  // the DOM parser rethrows `e` as a plain json::exception
    return m_dom.parse_error(position, last, e);
  }

 private:
  // A value event inside "calls": a call's field (a call itself must be an object).
  bool value_in_calls() {
    if (m_pending_calls) throw std::invalid_argument("\"calls\" must be an array");
    if (m_calls_depth == 1) throw std::invalid_argument("a call must be an object");
    return m_calls_depth > 0;
  }
  // Sessions are shallow; a deep document is damage (and would be copied recursively later).
  void nest() {
    if (++m_depth > 64) throw std::invalid_argument("the session nests deeper than 64 levels");
  }

  dom m_dom;
  CallBuilder m_builder;
  int m_depth = 0;        // nesting outside the calls
  int m_calls_depth = 0;  // 1 inside "calls", 2 inside a call, 3 inside its xerbla
  bool m_pending_calls = false;
};

}  // namespace

namespace {

// How a calls array read by FastCallReader ended: with its ']', with the text (cut inside the
// calls), or with something BLAScope does not write there.
enum class CallsEnd { kClosed, kCut, kOther };

// The calls as session_text writes them: flat objects of numbers, plain strings and `true`,
// with one nested "xerbla" object. Anything else (escapes, nulls, other shapes) ends the read
// (kOther), and the caller reads the whole file with the JSON parser instead.
class FastCallReader {
 public:
  FastCallReader(const char* p, const char* end) : m_p(p), m_end(end) {}

  // The calls up to the end of the array, or of the text where that ends inside them (a session
  // whose writer was killed): every complete call is read either way.
  CallsEnd read(std::vector<CallRecord>& out) {
    skip();
    if (peek() == ']') return ++m_p, CallsEnd::kClosed;
    while (true) {
      skip();
      if (m_p >= m_end) return CallsEnd::kCut;
      m_builder.begin();
      if (!object(false)) return m_p >= m_end ? CallsEnd::kCut : CallsEnd::kOther;
      out.push_back(m_builder.finish(0));
      skip();
      if (m_p >= m_end) return CallsEnd::kCut;
      if (*m_p == ']') return ++m_p, CallsEnd::kClosed;
      if (*m_p++ != ',') return CallsEnd::kOther;
    }
  }
  const char* position() const { return m_p; }

  // The calls from here to `stop`, where another reader starts (read_calls): true where they
  // end with the comma before it, so that `stop` is where a call begins.
  bool read_until(const char* stop, std::vector<CallRecord>& out) {
    skip();
    while (m_p < stop) {
      m_builder.begin();
      if (!object(false)) return false;
      out.push_back(m_builder.finish(0));
      skip();
      if (peek() != ',') return false;
      ++m_p;
      skip();
    }
    return m_p == stop;
  }

 private:
  char peek() const { return m_p < m_end ? *m_p : '\0'; }
  void skip() {
    while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t')) ++m_p;
  }
  // A string without escapes, as the text holds it (valid as long as the text).
  bool string(std::string_view& out) {
    if (peek() != '"') return false;
    const char* start = ++m_p;
    while (m_p < m_end && *m_p != '"') {
      if (*m_p == '\\' || static_cast<unsigned char>(*m_p) < 0x20) return false;
      ++m_p;
    }
    if (m_p >= m_end) return false;
    out = std::string_view(start, static_cast<std::size_t>(m_p++ - start));
    return true;
  }
  bool object(bool nested) {
    if (peek() != '{') return false;
    ++m_p;
    skip();
    if (peek() == '}') return ++m_p, true;
    std::string_view key, text;
    while (true) {
      skip();
      if (!string(key)) return false;
      skip();
      if (peek() != ':') return false;
      ++m_p;
      skip();
      m_builder.key_in_place(key);
      const char c = peek();
      if (c == '"') {
        if (!string(text)) return false;
        m_text.assign(text);
        m_builder.text(m_text);
      } else if (c == '{') {
        if (nested) return false;
        m_builder.begin_nested();
        if (!object(true)) return false;
        m_builder.end_nested();
      } else if (c == 't' && m_end - m_p >= 4 && std::string_view(m_p, 4) == "true") {
        m_p += 4;
        m_builder.boolean(true);
      } else if (c == 'f' && m_end - m_p >= 5 && std::string_view(m_p, 5) == "false") {
        m_p += 5;
        m_builder.boolean(false);
      } else if (!number()) {
        return false;
      }
      skip();
      if (peek() == ',') {
        ++m_p;
        continue;
      }
      if (peek() != '}') return false;
      ++m_p;
      return true;
    }
  }
  bool number() {
    const char* start = m_p;
    bool integral = true;
    while (m_p < m_end && (std::isdigit(static_cast<unsigned char>(*m_p)) || *m_p == '-' || *m_p == '+' ||
                           *m_p == '.' || *m_p == 'e' || *m_p == 'E')) {
      if (*m_p == '.' || *m_p == 'e' || *m_p == 'E') integral = false;
      ++m_p;
    }
    if (m_p == start) return false;
    if (integral && *start != '-') {
      std::uint64_t v = 0;
      const auto [end, error] = std::from_chars(start, m_p, v);
      if (error != std::errc() || end != m_p) return false;
      m_builder.number(v);
    } else if (integral) {
      std::int64_t v = 0;
      const auto [end, error] = std::from_chars(start, m_p, v);
      if (error != std::errc() || end != m_p) return false;
      m_builder.number(v);
    } else {
      double v = 0;
      const auto [end, error] = std::from_chars(start, m_p, v);
      if (error != std::errc() || end != m_p) return false;
      m_builder.number(v);
    }
    return true;
  }

  const char* m_p;
  const char* m_end;
  CallBuilder m_builder;
  std::string m_text;  // a text value (its buffer reused from call to call)
};

// Where the top-level "calls":[ begins, found by scanning the header before it (the calls come
// first in sessions this BLAScope writes, last in older ones); npos for a document of another
// shape: nested too deep, or "calls" not a key of the top-level object.
constexpr std::string_view kCallsKey = "\"calls\":[";

std::size_t top_level_calls(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  char last = '\0';  // the last character outside strings that is not white space
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      if (depth == 1 && (last == '{' || last == ',') && text.substr(i, kCallsKey.size()) == kCallsKey) {
        return i;
      }
      in_string = true;
    } else if ((c == '{' || c == '[') && ++depth > 64) {
      return std::string::npos;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) last = c;
  }
  return std::string::npos;
}

// Reads the calls array from `begin` (after its '[') into `calls`, and sets `after` past its
// ']' where it has one. A big one is read on every core, in parts starting where a line starts a
// call (BLAScope writes a call a line); a part must end right where the next begins, else (a
// session written otherwise, or a part that is not what BLAScope writes) the whole is read again
// in one go, as reading in one go is what decides. A session cut inside its calls (its recorder
// was killed) is read in parts too: it opens as fast as a finished one.
CallsEnd read_calls(const char* begin, const char* end, std::vector<CallRecord>& calls, const char*& after) {
  constexpr std::size_t kLeastPart = std::size_t{8} << 20;  // 40,000 calls: below, one thread is as quick
  const std::size_t size = static_cast<std::size_t>(end - begin);
  const std::size_t parts = std::min<std::size_t>({usable_cores(), 8, size / kLeastPart});
  if (parts > 1) {
    const std::string_view text(begin, size);
    std::vector<const char*> starts = {begin};
    for (std::size_t k = 1; k < parts; ++k) {
      const std::size_t at = text.find("\n{", std::max<std::size_t>(k * size / parts, starts.back() - begin + 1));
      if (at == std::string_view::npos) break;
      starts.push_back(begin + at + 1);
    }
    std::vector<std::vector<CallRecord>> read(starts.size());
    std::vector<char> whole(starts.size(), 0), threw(starts.size(), 0);
    CallsEnd last = CallsEnd::kOther;
    const char* last_end = nullptr;
    const auto read_part = [&](std::size_t k) noexcept {
      try {
        read[k].reserve(static_cast<std::size_t>((k + 1 < starts.size() ? starts[k + 1] : end) - starts[k]) / 128);
        FastCallReader reader(starts[k], end);
        if (k + 1 < starts.size()) {
          whole[k] = reader.read_until(starts[k + 1], read[k]);
        } else {
          last = reader.read(read[k]);
          last_end = reader.position();
        }
      } catch (const std::exception&) {  // read again in one go, which says what was wrong
        threw[k] = 1;
      }
    };
    std::vector<std::thread> threads;
    try {
      threads.reserve(starts.size());
      for (std::size_t k = 1; k < starts.size(); ++k) threads.emplace_back(read_part, k);
    } catch (const std::exception&) {  // no thread (or no memory) for the rest: read in one go below
    }
    read_part(0);
    for (std::thread& t : threads) t.join();
    // Every part whole, each thread's own (a part no thread was started for is not).
    const bool all_read = threads.size() + 1 == starts.size();
    const bool before_last = std::all_of(whole.begin(), whole.end() - 1, [](char w) { return w; });
    if (all_read && before_last && !threw.back()) {
      // The last not as BLAScope writes calls: read in one go, it would end just there too.
      if (last == CallsEnd::kOther) return last;
      std::size_t count = 0;
      for (const auto& part : read) count += part.size();
      calls = std::move(read[0]);
      calls.reserve(count);
      for (std::size_t k = 1; k < read.size(); ++k) calls.insert(calls.end(), read[k].begin(), read[k].end());
      after = last_end;
      return last;
    }
  }
  // Room for as many calls as the text can hold at the size BLAScope writes them (about 190
  // bytes; reserved, not touched): a vector doubling its way to a million calls copied 0.2 GB.
  calls.clear();
  try {
    calls.reserve(size / 128);
  } catch (const std::bad_alloc&) {  // then it grows as it goes
  }
  FastCallReader reader(begin, end);
  const CallsEnd how = reader.read(calls);
  after = reader.position();
  return how;
}

// A session whose writer stopped inside its calls, from the calls it wrote.
Recording unfinished_recording(std::vector<CallRecord> calls) {
  Recording r;
  r.calls = std::move(calls);
  r.calls_total = r.calls.size();
  r.exit_status = -1;
  r.routines = totals_of(r.calls);
  name_single_dtypes(r);
  for (const CallRecord& c : r.calls) {
    r.calls_unlisted += c.unlisted;
    if (std::none_of(r.processes.begin(), r.processes.end(), [&c](const ProcessInfo& p) { return p.pid == c.pid; })) {
      ProcessInfo& process = r.processes.emplace_back();
      process.pid = c.pid;
      process.blas_found = true;
      process.end_known = false;  // an unfinished session does not say
    }
    const double end = static_cast<double>(c.start_ns + c.duration_ns) * 1e-9;
    r.wall_seconds = std::max(r.wall_seconds, end);
  }
  // Which process was the program's is in the part never written: only a lone one is surely it.
  if (r.processes.size() == 1) r.pid = r.processes.front().pid;
  r.problem =
      "this session was never finished, or its end was cut off (its recorder was killed before it wrote "
      "the rest, e.g. by SIGKILL or when memory ran out; or the file was truncated): the " +
      std::to_string(r.calls.size()) +
      " calls written before are shown, with totals summed from them; the command, the exit status "
      "and what was running are unknown";
  return r;
}

// A session as BLAScope writes it, read the fast way: whole or, with `take_unfinished`, one that
// ends inside its calls; nullopt for a text of another shape.
std::optional<Recording> read_fast(std::string_view text, bool take_unfinished) {
  const std::size_t at = top_level_calls(text);
  if (at == std::string::npos) return std::nullopt;
  std::vector<CallRecord> calls;
  const char* calls_end = nullptr;
  const CallsEnd how = read_calls(text.data() + at + kCallsKey.size(), text.data() + text.size(), calls, calls_end);
  if (how == CallsEnd::kOther) return std::nullopt;
  if (how == CallsEnd::kCut) {
    // Only the head BLAScope writes, with every other field after the calls, is surely unfinished.
    const bool head = text.starts_with(session_head()) && at + kCallsKey.size() == session_head().size();
    if (!take_unfinished || !head) return std::nullopt;
    return unfinished_recording(std::move(calls));
  }
  // The header is what comes before and after the calls: `{...,` and `,...}` (calls in the
  // middle), `{` and `,...}` (first) or `{...,` and `}` (last, as older sessions have them).
  std::string before(text.substr(0, at));
  std::string after(calls_end, text.data() + text.size());
  while (!before.empty() && std::isspace(static_cast<unsigned char>(before.back()))) before.pop_back();
  const std::size_t next = after.find_first_not_of(" \t\r\n");
  if (next == std::string::npos || before.empty()) return std::nullopt;
  after.erase(0, next);
  // Exactly the separators JSON has there: `{` or `,` before the key, `,` or `}` after the calls.
  if ((before.back() != '{' && before.back() != ',') || (after.front() != ',' && after.front() != '}')) {
    return std::nullopt;
  }
  if (before.back() == ',') before.pop_back();
  if (after.front() == ',') after.erase(0, 1);
  if (before.empty() || after.empty()) return std::nullopt;
  if (before.back() != '{' && after.front() != '}') before += ',';
  json header = json::parse(before + after, nullptr, false);
  if (header.is_discarded() || !header.is_object() || header.contains("calls")) return std::nullopt;
  header["calls"] = json::array();
  Recording r = recording_from_json(header);
  r.calls = std::move(calls);
  for (CallRecord& c : r.calls) c.start_ns += r.start_ns;
  return r;
}

}  // namespace

std::optional<Recording> read_written_session(std::string_view text) {
  return read_fast(text, false);
}

std::optional<Recording> read_unfinished_session(std::string_view text, bool cut_after_calls) {
  if (!text.starts_with(session_head())) return std::nullopt;
  std::vector<CallRecord> calls;
  const char* after = nullptr;
  const CallsEnd how = read_calls(text.data() + session_head().size(), text.data() + text.size(), calls, after);
  if (how == CallsEnd::kCut || (how == CallsEnd::kClosed && cut_after_calls))
    return unfinished_recording(std::move(calls));
  return std::nullopt;
}

Recording parse_recording_text(std::string_view text) {
  // A session whose recorder was killed ends inside its calls: read so at once. The JSON parser
  // went through every call first only to fail at the end (16 s for 250 MB). One whose calls
  // ended (cut in its tail, or damaged) still goes through the parser, which tells the two apart.
  if (auto fast = read_fast(text, true)) return std::move(*fast);
  json root;
  SessionSax sax(root);
  try {
    json::sax_parse(text, &sax);
  } catch (const json::exception&) {
    // Not JSON: perhaps a session cut short, whose calls are still worth reading. Past its calls
    // only a cut (the parser stopped at the end of the text) is read so: damage there is refused,
    // not taken for a session whose end (its exit, its crash) is unknown.
    const bool cut = sax.error_position >= text.size();
    if (auto unfinished = read_unfinished_session(text, cut)) return std::move(*unfinished);
    throw;
  }
  Recording r = recording_from_json(root);
  r.calls = std::move(sax.calls);
  for (CallRecord& c : r.calls) c.start_ns += r.start_ns;
  return r;
}

bool is_recording_session(const json& session) {
  return session.is_object() && session.contains("kind") && session["kind"] == "recording";
}

Recording recording_from_json(const json& s) {
  if (!is_recording_session(s)) throw std::invalid_argument("not a recording (no \"kind\": \"recording\")");
  const int version = field<int>(s, "version", 0);
  if (version < 1 || version > kRecordingFormatVersion) {
    throw std::invalid_argument("recording format version " + std::to_string(version) +
                                " is not one this BLAScope reads (1 to " + std::to_string(kRecordingFormatVersion) +
                                ")");
  }
  Recording r;
  r.command = field<std::vector<std::string>>(s, "command", {});
  r.host = field<std::string>(s, "host", "");
  r.pid = field<std::uint32_t>(s, "pid", 0);
  r.exit_status = field<int>(s, "exit_status", s.contains("exit_status") ? -1 : 0);  // null: not known
  r.signal = field<std::string>(s, "signal", "");
  r.timed_out = field<bool>(s, "timed_out", false);
  r.stopped = field<bool>(s, "stopped", false);
  r.timeout_seconds = field<double>(s, "timeout_seconds", 0);
  r.wall_seconds = field<double>(s, "wall_seconds", 0);
  r.check_values = field<bool>(s, "check_values", false);
  r.max_calls = field<std::uint64_t>(s, "max_calls", 0);
  r.calls_total = field<std::uint64_t>(s, "calls_total", 0);
  r.calls_not_kept = field<std::uint64_t>(s, "calls_not_kept", 0);
  r.nested_limit = field<std::uint32_t>(s, "nested_limit", kAllNested);
  r.calls_unlisted = field<std::uint64_t>(s, "calls_unlisted", 0);
  r.problem = field<std::string>(s, "problem", "");
  for (const json& p : field<json>(s, "processes", json::array())) {
    if (!p.is_object()) throw std::invalid_argument("a process must be an object");
    ProcessInfo& process = r.processes.emplace_back();
    process.pid = field<std::uint32_t>(p, "pid", 0);
    process.parent_pid = field<std::uint32_t>(p, "parent_pid", 0);
    process.command = field<std::string>(p, "command", "");
    process.blas_found = field<bool>(p, "blas_found", false);
    process.blas_loaded = process.blas_found || field<bool>(p, "blas_loaded", false);
    process.blas_library = field<std::string>(p, "blas_library", "");
    process.openblas_corename = field<std::string>(p, "openblas_corename", "");
    process.openblas_config = field<std::string>(p, "openblas_config", "");
    process.openblas_coretype = field<std::string>(p, "openblas_coretype", "");
    read_end(p, process);
  }
  for (const json& t : field<json>(s, "routines", json::array())) {
    if (!t.is_object()) throw std::invalid_argument("a routine total must be an object");
    const auto routine = parse_routine_name(field<std::string>(t, "routine", ""));
    if (!routine) throw std::invalid_argument("unknown routine \"" + field<std::string>(t, "routine", "") + "\"");
    r.routines.push_back({routine->first, routine->second, field<std::uint64_t>(t, "calls", 0),
                          field<std::uint64_t>(t, "failures", 0), field<double>(t, "seconds", 0),
                          field<double>(t, "self_seconds", 0), field<double>(t, "gflop", 0)});
    r.routines.back().queries = field<std::uint64_t>(t, "workspace_queries", 0);
    r.routines.back().query_seconds = field<double>(t, "workspace_query_seconds", 0);
    r.routines.back().longest_seconds = field<double>(t, "longest_seconds", 0);
    if (has_data_type_argument(routine->first)) r.routines.back().dtype = field<std::string>(t, "dtype", "");
  }
  for (const json& c : field<json>(s, "calls", json::array())) r.calls.push_back(call_from_json(c, r.start_ns));
  for (const json& c : field<json>(s, "captures", json::array())) {
    if (!c.is_object()) throw std::invalid_argument("a capture must be an object");
    r.captures.push_back({field<std::uint64_t>(c, "call", 0), field<std::string>(c, "routine", ""),
                          field<std::string>(c, "workload", "")});
  }
  r.captures_skipped = field<std::uint64_t>(s, "captures_skipped", 0);
  r.capture_mode = field<std::string>(s, "capture", "");
  if (r.capture_mode != "failing" && r.capture_mode != "all" && r.capture_mode != "none") r.capture_mode.clear();
  r.parent_pid = field<std::uint32_t>(s, "parent_pid", 0);
  if (s.contains("machine")) {
    const json& m = s["machine"];
    if (!m.is_object()) throw std::invalid_argument("field \"machine\" must be an object");
    if (m.contains("blas_library") && !m["blas_library"].is_null())
      r.blas_library = field<std::string>(m, "blas_library", "");
    r.openblas_corename = field<std::string>(m, "openblas_corename", "");
    r.kernel_mismatch = field<std::string>(m, "kernel_mismatch", "");
    r.peak_gflops_fp32 = field<double>(m, "peak_gflops_fp32", 0);
    r.peak_gflops_fp64 = field<double>(m, "peak_gflops_fp64", 0);
  }
  for (const json& c : field<json>(s, "children", json::array())) {
    if (!c.is_object()) throw std::invalid_argument("a child session must be an object");
    r.children.push_back({field<std::uint32_t>(c, "pid", 0), field<std::string>(c, "command", ""),
                          field<std::string>(c, "session", "")});
  }
  for (const json& c : field<json>(s, "running", json::array())) {
    r.running.push_back(call_from_json(c, r.start_ns));
    // How long it had run, as the recorder measured it (its "seconds" are left out: it never returned).
    const double ran = field<double>(c, "ran_seconds", 0.0);
    if (std::isfinite(ran) && ran > 0 && ran < 1e9)
      r.running.back().duration_ns = static_cast<std::uint64_t>(std::llround(ran * 1e9));
  }
  return r;
}

}  // namespace blasscope::record
