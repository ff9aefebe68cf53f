#pragma once

// Reads one call of a session into a CallRecord, from whichever parser meets it (the fast
// reader of sessions as BLAScope writes them, the SAX reader, a JSON tree). Inline: it runs for
// every key of a million-call session.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "record/call_record.h"
#include "record/routine_names.h"

namespace blasscope::record::call_reading {

inline std::uint64_t ns_of(double s) {
  // Up to about 580 years; anything longer (or NaN) is damage, kept as 0.
  return s > 0 && s < 1.8e10 ? static_cast<std::uint64_t>(s * 1e9 + 0.5) : 0;
}

// The value a non-finite number was written as ("NaN", "Infinity", "-Infinity").
inline double non_finite_value(const std::string& name, std::string_view key) {
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
inline Field field_of(std::string_view key) {
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
inline std::uint8_t alignment_code(std::uint32_t bytes, std::string_view key) {
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

}  // namespace blasscope::record::call_reading
