#include "diagnose/recorded_argument_evidence.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>

#include "diagnose/lapack_meanings.h"
#include "diagnose/recorded_call_text.h"
#include "record/routine_names.h"
#include "text/format.h"

namespace blasscope::core::recorded {

using record::CallRecord;
using record::Routine;

namespace {
// What GEMM's parameter `p` (as xerbla numbers it) is in the caller's own terms, with the
// bound it broke. CBLAS row-major calls reach the library as the transposed column-major
// call, with A and B (and M and N) swapped: its parameter 10 is the caller's LDA.
std::string gemm_parameter(const CallRecord& c, int p) {
  const bool row = c.flags & record::kRowMajor, ta = c.flags & record::kTransA, tb = c.flags & record::kTransB;
  const std::int64_t a_rows = row ? (ta ? c.m : c.k) : (ta ? c.k : c.m);
  const std::int64_t b_rows = row ? (tb ? c.k : c.n) : (tb ? c.n : c.k);
  const std::int64_t c_rows = row ? c.n : c.m;
  auto bound = [](const char* name, std::int64_t value, std::int64_t need, const char* what) {
    return "parameter is your " + std::string(name) + " = " + std::to_string(value) + ", which must be at least " +
           std::to_string(std::max<std::int64_t>(need, 1)) + " (" + what + ")";
  };
  const char* a_what = row ? (ta ? "M: A is stored row-major and transposed" : "K: A is stored row-major")
                           : (ta ? "K: A is stored column-major and transposed" : "M: A is stored column-major");
  const char* b_what = row ? (tb ? "K: B is stored row-major and transposed" : "N: B is stored row-major")
                           : (tb ? "N: B is stored column-major and transposed" : "K: B is stored column-major");
  const int lda_param = row ? 10 : 8, ldb_param = row ? 8 : 10;
  if (p == lda_param) return bound("LDA", c.lda, a_rows, a_what);
  if (p == ldb_param) return bound("LDB", c.ldb, b_rows, b_what);
  if (p == 13) return bound("LDC", c.ldc, c_rows, row ? "N: C is row-major" : "M: C is column-major");
  if (p == 3 || p == 4)
    return "parameter is your " + std::string((p == 3) != row ? "M" : "N") + ", which must not be negative";
  if (p == 5) return "parameter is your K, which must not be negative";
  if (p != 1 && p != 2) return "";
  // A row-major CBLAS call's TransB is the library's first transpose flag.
  const std::string name = (p == 1) != row ? "TRANSA" : "TRANSB";
  const bool cblas = c.flags & record::kCblas;
  const std::string allowed = cblas ? "CblasNoTrans, CblasTrans or CblasConjTrans (111, 112, 113)" : "N, T or C";
  const bool letter = std::isprint(c.side_uplo) && !cblas;  // a Fortran call's TRANSA
  if (p == 1 && letter) {
    return "parameter is your TRANSA = '" + std::string(1, static_cast<char>(c.side_uplo)) + "', which must be " +
           allowed;
  }
  return "parameter is your " + name + ", which must be " + allowed;
}

// What GEMV's, SYRK's or TRSM's parameter `p` is in the caller's own terms, with the bound it
// broke. OpenBLAS's CBLAS row-major calls number the leading dimensions and strides as the
// Fortran list does (only GEMV's and TRSM's M and N are swapped), but bound each by a row's
// length instead of a column's.
std::string blas_parameter(const CallRecord& c, int p) {
  const bool row = c.flags & record::kRowMajor, trans = c.flags & record::kTransA;
  const auto bound = [](const char* name, std::int64_t value, std::int64_t need, const std::string& what) {
    need = std::max<std::int64_t>(need, 1);
    return "parameter is your " + std::string(name) + " = " + std::to_string(value) +
           (value < need ? ", which must be at least " + std::to_string(need) + " (" + what + ")" : std::string());
  };
  const std::string order = row ? "stored row-major" : "stored column-major";
  const auto negative = [](const char* name) {
    return "parameter is your " + std::string(name) + ", which is negative";
  };
  if (c.routine == Routine::Gemv) {
    if (p == 6) return bound("LDA", c.lda, row ? c.n : c.m, std::string(row ? "N" : "M") + ": A is " + order);
    if (p == 8 || p == 11) return "parameter is your " + std::string(p == 8 ? "INCX" : "INCY") + ", which is 0";
    if (p == 2 || p == 3) return negative((p == 2) != row ? "M" : "N");
  } else if (c.routine == Routine::Syrk) {
    const std::int64_t rows = trans ? c.k : c.n, cols = trans ? c.n : c.k;
    const std::string a_what =
        std::string((row ? cols : rows) == c.n ? "N" : "K") + ": A is " + order + (trans ? " and transposed" : "");
    if (p == 7) return bound("LDA", c.lda, row ? cols : rows, a_what);
    if (p == 10) return bound("LDC", c.ldc, c.n, "N: C is N x N");
    if (p == 3 || p == 4) return negative(p == 3 ? "N" : "K");
    if (p == 2) {
      // Complex SYRK computes A*A**T or A**T*A: A**H*A is HERK's, and SYRK refuses 'C' for it.
      const bool complex = record::is_complex(c.precision);
      const bool cblas = c.flags & record::kCblas;
      if (!complex) return cblas ? "" : "parameter is your TRANS, which must be N, T or C";
      const std::string herk = std::string(c.precision == record::Precision::C ? "CHERK" : "ZHERK");
      return std::string("parameter is your TRANS, which must be ") +
             (cblas ? "CblasNoTrans or CblasTrans" : "N or T") +
             ": a complex SYRK has no conjugate transpose (A**H*A is " + herk + "'s)";
    }
  } else if (c.routine == Routine::Trsm) {
    const bool right = c.side_uplo == 'R' || c.side_uplo == 'r';
    if (p == 9) return bound("LDA", c.lda, right ? c.n : c.m, right ? "N: A is N x N, on the right" : "M: A is M x M");
    if (p == 11) return bound("LDB", c.ldb, row ? c.n : c.m, std::string(row ? "N" : "M") + ": B is " + order);
    if (p == 5 || p == 6) return negative((p == 5) != row ? "M" : "N");
  }
  return "";
}

}  // namespace

// The bound a LAPACK driver's leading dimension broke, from the call's own sizes:
// ", which must be at least 3 (N: A is N x N)"; "" where it is not known.
std::string leading_dimension_bound(const CallRecord& c, const std::string& name) {
  const bool lapack = record::is_lapack(c.routine) && c.routine != Routine::Lascl;
  std::int64_t value = 0, need = 0;
  std::string what;
  if (name == "LDA" && lapack) {
    value = c.lda, need = c.m;
    what = square_only(c.routine) ? "N: A is N x N" : "M: A has M rows";
  } else if (name == "LDB" &&
             (c.routine == Routine::Sygvd || c.routine == Routine::Sygv || c.routine == Routine::Gges)) {
    value = c.ldb, need = c.n, what = "N: B is N x N";
  } else if (name == "LDB" &&
             (c.routine == Routine::Gesv || c.routine == Routine::Getrs || c.routine == Routine::Potrs ||
              c.routine == Routine::Posv || c.routine == Routine::Sysv || c.routine == Routine::Hesv ||
              c.routine == Routine::Trtrs)) {
    value = c.ldb, need = c.n, what = "N: B has N rows";
  } else if (name == "LDB" && (c.routine == Routine::Gelsd || c.routine == Routine::Gelss ||
                               c.routine == Routine::Gelsy || c.routine == Routine::Gels)) {
    value = c.ldb, need = std::max(c.m, c.n), what = "max(M, N): B holds the right-hand sides, then the solution";
  } else {
    return "";
  }
  if (value >= std::max<std::int64_t>(need, 1)) return "";  // not the bound it broke
  return " = " + std::to_string(value) + ", which must be at least " + std::to_string(std::max<std::int64_t>(need, 1)) +
         " (" + what + ")";
}

// The evidence of an XERBLA report made in call `c`, which `top` (the program's own call, `c`
// itself unless LAPACK made `c` internally) led to.
std::vector<std::string> argument_evidence(const CallRecord& c, const CallRecord& top) {
  std::vector<std::string> evidence;
  if (c.routine == Routine::Xerbla) {
    // Only the report is known: not the arguments, nor who called the routine.
    const std::string routine = xerbla_routine(c), name = xerbla_parameter_name(routine, c.xerbla_parameter);
    evidence.push_back("xerbla reported " + routine + " parameter " + std::to_string(c.xerbla_parameter) +
                       (name.empty() ? std::string() : ": that parameter is " + name));
    std::string lower = routine;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    evidence.push_back(record::parse_routine_name(lower)
                           ? "no recorded " + upper(routine) +
                                 " call was running on that thread: the program (or a library) called xerbla_ "
                                 "itself, so no arguments are known, only this report"
                           : upper(routine) +
                                 " is not a routine BLAScope records (nor made inside one it records): its "
                                 "arguments and time are unknown, only this report is");
    return evidence;
  }
  if (&top != &c) evidence.push_back(label(top) + " called " + call_name(c) + " internally: not your call, LAPACK's");
  // A transpose flag the routine refused (GEMM's 1 and 2, GEMV's 1, SYRK's 2, TRSM's 3): the
  // call transposed nothing.
  const int p = c.xerbla_parameter;
  const bool bad_transpose = (c.routine == Routine::Gemm && (p == 1 || p == 2)) ||
                             (c.routine == Routine::Gemv && p == 1) || (c.routine == Routine::Syrk && p == 2) ||
                             (c.routine == Routine::Trsm && p == 3);
  const auto transposed = [&c](std::uint16_t trans, std::uint16_t conj, const char* name) {
    if (!(c.flags & trans)) return std::string();
    return std::string(", ") + name + ((c.flags & conj) ? " conjugate-transposed" : " transposed");
  };
  const std::string transposes = bad_transpose ? ""
                                               : transposed(record::kTransA, record::kConjA, "A") +
                                                     transposed(record::kTransB, record::kConjB, "B");
  evidence.push_back(call_name(c) + " was called " +
                     ((c.flags & record::kCblas) ? "through CBLAS" : "through its Fortran name") +
                     ((c.flags & record::kRowMajor) ? ", row-major" : "") + " with " + sizes(c) + transposes);
  const std::string routine = xerbla_routine(c);
  const bool own = routine.size() > 1 && upper(routine) == call_name(c);  // not a routine it called unrecorded
  std::string meaning = !own                         ? ""
                        : c.routine == Routine::Gemm ? gemm_parameter(c, c.xerbla_parameter)
                                                     : blas_parameter(c, c.xerbla_parameter);
  // CBLAS row-major calls other than GEMM reach the library with M and N (and the transposes)
  // swapped: the Fortran list would name the wrong argument.
  const bool swapped = own && (c.flags & record::kCblas) && (c.flags & record::kRowMajor) && c.routine != Routine::Gemm;
  if (own && (c.flags & record::kCblas) && c.xerbla_parameter == 0) {
    // OpenBLAS's CBLAS checks the layout before anything else and reports a bad one as 0.
    meaning =
        "is how OpenBLAS's CBLAS refuses your ORDER (the layout, its first argument): it is neither "
        "CblasRowMajor (101) nor CblasColMajor (102), so nothing was computed";
  } else if (meaning.empty() && swapped) {
    meaning =
        "parameter is counted in the column-major call OpenBLAS made of your row-major one (M and N, "
        "and the transposes, swapped)";
  } else if (meaning.empty()) {
    const std::string name = xerbla_parameter_name(routine, c.xerbla_parameter);
    // The program passed it only when it called the routine itself.
    if (!name.empty()) {
      meaning = "parameter is " + std::string(own && &top == &c ? "your " : "") + name +
                (own ? leading_dimension_bound(c, name) : "");
    }
    // The CHARACTER argument the record holds is quoted as it was passed.
    if (own && !name.empty() && c.xerbla_parameter == record::letter_parameter(c.routine) &&
        std::isprint(c.side_uplo)) {
      meaning += " = '" + std::string(1, static_cast<char>(c.side_uplo)) + "'";
    }
    // ?LASCL's scalars are recorded: the value it refused is the evidence.
    if (own && c.routine == Routine::Lascl && (c.xerbla_parameter == 4 || c.xerbla_parameter == 5)) {
      meaning += " = " + format_number(c.xerbla_parameter == 4 ? c.alpha : c.beta);
    }
  }
  evidence.push_back("xerbla reported " + routine + " parameter " + std::to_string(c.xerbla_parameter) +
                     (meaning.empty() ? std::string() : ": that " + meaning) +
                     (!own && &top == &c ? " (" + upper(routine) +
                                               " is not a routine your program called: " + call_name(c) + " called it)"
                                         : std::string()));
  if ((&top != &c || !own) && (top.flags & record::kValuesChecked)) evidence.push_back(label(top) + ": " + values(top));
  return evidence;
}

// Whether xerbla named a routine LAPACK called inside the program's call (DHSEQR inside DGEEV,
// DLASCL inside DGELSD) rather than the routine the program called.
bool refused_inside(const CallRecord& c, const CallRecord& top) {
  const std::string routine = upper(xerbla_routine(c));
  return &top != &c || (routine.size() > 1 && routine != call_name(c));
}

// The Cause of an argument error outside GEMM, where the catalogue's page (GEMM's list) does
// not apply: the routine's own list, and who passed the value.
std::string argument_cause(const CallRecord& c, const CallRecord& top) {
  std::string cause = xerbla_list_cause(xerbla_routine(c));
  if (refused_inside(c, top)) {
    cause += " Here " + call_name(top) +
             " made that call itself: the value was computed inside LAPACK from your "
             "input, not passed by your program: a NaN or Inf in the input becomes a NaN scale factor or norm, "
             "or makes an earlier step fail and leave values a later one refuses (in ?GEEV the balancing, ?GEBAL, "
             "refuses a NaN matrix as its parameter 3, ?GEHRD then its parameter 2 and ?HSEQR its parameter 4: "
             "the last is the one Python reports). The diagnosis is titled with that last report, and its "
             "evidence lists every other one made inside the call.";
  }
  return cause;
}

// The Fix of a refused option letter (TRANS, UPLO, SIDE, DIAG, JOBZ...), where the catalogue's
// (leading dimensions) does not apply; "" for any other parameter.
std::string option_fix(const CallRecord& c) {
  // Only the program's own call: a letter LAPACK passed inside a driver was not the program's.
  if (upper(xerbla_routine(c)) != call_name(c)) return "";
  const std::string routine = upper(xerbla_routine(c));
  std::string name = xerbla_parameter_name(routine, c.xerbla_parameter);
  static constexpr const char* kOptions[] = {"TRANS", "UPLO", "SIDE", "DIAG", "JOB", "RANGE", "COMP", "FACT", "NORM"};
  if (std::none_of(std::begin(kOptions), std::end(kOptions), [&name](const char* o) { return name.starts_with(o); })) {
    return "";
  }
  const bool cblas = c.flags & record::kCblas;
  // A row-major CBLAS GEMM reaches the library with A and B swapped: its TRANSA is the caller's TRANSB.
  if (c.routine == Routine::Gemm && (c.flags & record::kRowMajor) && name.starts_with("TRANS")) {
    name = name == "TRANSA" ? "TRANSB" : "TRANSA";
  }
  std::string fix =
      cblas ? "Pass " + name +
                  " as one of the CBLAS enum values it takes (CblasNoTrans, CblasTrans or CblasConjTrans; CblasUpper "
                  "or CblasLower; CblasLeft or CblasRight; CblasNonUnit or CblasUnit), not a letter such as 'T' nor "
                  "another number: the CBLAS functions take enums, and refuse any other value."
            : "Pass " + name + " as one of the values " + routine +
                  " accepts for it (the routine's reference documentation lists them; a letter may be upper or "
                  "lower case).";
  if (c.routine == Routine::Syrk && record::is_complex(c.precision)) {
    fix += std::string(" For the product of a complex matrix with its conjugate transpose, call ") +
           (c.precision == record::Precision::C ? "CHERK" : "ZHERK") + (cblas ? " (CblasConjTrans)" : " (TRANS 'C')") +
           ": SYRK only transposes.";
  }
  return fix;
}

bool is_gemm_xerbla(const CallRecord& c) {
  const std::string routine = upper(xerbla_routine(c));
  return routine.size() == 5 && routine.substr(1) == "GEMM";
}

// A ?LASCL refusing its CFROM, whose value the record holds (not a report recorded alone).
bool is_lascl_cfrom(const CallRecord& c) {
  const std::string r = xerbla_routine(c);
  return c.routine != Routine::Xerbla && c.xerbla_parameter == 4 && r.size() == 6 && r.substr(1) == "LASCL";
}

// "ZLASCL parameter 4 (4 times in this call), and DLASCL parameter 4 (2 times)": the refusals
// of one driver's ?LASCLs by routine, `first` first.
std::string refusal_counts(const std::vector<const CallRecord*>& refused, const std::string& first) {
  std::map<std::string, int> times;
  for (const CallRecord* c : refused) ++times[xerbla_routine(*c)];
  const auto said = [&times](const std::string& routine, bool first_said) {
    const int n = times[routine];
    return routine + " parameter 4" +
           (n > 1 ? " (" + std::to_string(n) + (first_said ? " times in this call)" : " times)") : "");
  };
  std::string text = said(first, true);
  for (const auto& [routine, n] : times) {
    if (routine != first) text += ", and " + said(routine, false);
  }
  return text;
}

}  // namespace blasscope::core::recorded
