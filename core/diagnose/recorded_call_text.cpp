#include "diagnose/recorded_call_text.h"

#include <cctype>
#include <cmath>
#include <cstring>

#include "record/routine_names.h"
#include "text/format.h"

namespace blasscope::core::recorded {

using record::CallRecord;
using record::Routine;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string xerbla_routine(const CallRecord& c) {
  return std::string(c.xerbla_routine, strnlen(c.xerbla_routine, sizeof c.xerbla_routine));
}

// A ?LASCL scale as LAPACK users write it: Inf and NaN, not inf and nan.
std::string scale_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  return format_number(v);
}

// A report recorded alone (Routine::Xerbla) is named after the routine xerbla named.
std::string call_name(const CallRecord& c) {
  if (c.routine == Routine::Xerbla && c.xerbla_routine[0]) return upper(xerbla_routine(c));
  return upper(record::routine_name(c.routine, c.precision));
}

// Routines of one square matrix (POTRF, GESV, SYEV) take N alone: their M is recorded as N.
bool square_only(Routine r) {
  switch (r) {
    case Routine::Potrf:
    case Routine::Potrs:
    case Routine::Gesv:
    case Routine::Getrs:
    case Routine::Getri:
    case Routine::Trtrs:
    case Routine::Sysv:
    case Routine::Sytrf:
    case Routine::Posv:
    case Routine::Hesv:
    case Routine::Hetrf:
    case Routine::Gees:
    case Routine::Sygvd:
    case Routine::Sygv:
    case Routine::Gges:
    case Routine::Gehrd:
    case Routine::Syev:
    case Routine::Syevd:
    case Routine::Syevr:
    case Routine::Geev: return true;
    default: return false;
  }
}

std::string sizes(const CallRecord& c) {
  // SYRK has no M either: C is N x N.
  std::string text = square_only(c.routine) || c.routine == Routine::Syrk
                         ? "N=" + std::to_string(c.n)
                         : "M=" + std::to_string(c.m) + ", N=" + std::to_string(c.n);
  const bool has_k = c.routine == Routine::Gemm || c.routine == Routine::Syrk || c.routine == Routine::Orgqr ||
                     record::is_cublas_gemm(c.routine);
  if (c.k) text += (has_k ? ", K=" : ", NRHS=") + std::to_string(c.k);
  if (record::is_strided_batched(c.routine)) text += ", batch=" + std::to_string(static_cast<long long>(c.beta));
  if (c.lda) text += ", LDA=" + std::to_string(c.lda);
  if (c.ldb) text += ", LDB=" + std::to_string(c.ldb);
  if (c.ldc) text += ", LDC=" + std::to_string(c.ldc);
  return text;
}

std::string label(const CallRecord& c) {
  if (c.routine == Routine::Xerbla) return "call " + std::to_string(c.id) + " " + call_name(c) + " (not recorded)";
  return "call " + std::to_string(c.id) + " " + call_name(c) + " (" + sizes(c) + ")";
}

std::string values(const CallRecord& c) {
  return std::to_string(c.input_nan) + " NaN and " + std::to_string(c.input_inf) + " Inf in its inputs";
}

// What was seen of a call that read NaN/Inf, beyond the counts its title gives: what was
// scanned, what its output held (`returned`: it did return) and what it said.
std::vector<std::string> input_evidence(const CallRecord& c, bool returned) {
  std::vector<std::string> evidence = {
      "its input operands were scanned before the call ran: " + std::to_string(c.input_nan) + " NaN and " +
      std::to_string(c.input_inf) + " Inf"};
  // (A LAPACK call's output is scanned only where it returned INFO = 0: it is not its result otherwise.)
  if (returned && (c.flags & record::kValuesChecked) && (!(c.flags & record::kHasInfo) || c.info == 0)) {
    evidence.push_back(c.output_nan + c.output_inf
                           ? "its output, scanned after it returned: " + std::to_string(c.output_nan) + " NaN and " +
                                 std::to_string(c.output_inf) + " Inf"
                           : "its output, scanned after it returned, holds no NaN/Inf");
  }
  if (!returned) evidence.push_back("it had not returned when the program ended");
  if (returned && (c.flags & record::kHasInfo)) evidence.push_back("it returned INFO = " + std::to_string(c.info));
  return evidence;
}

}  // namespace blasscope::core::recorded
