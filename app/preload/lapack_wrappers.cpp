// LAPACK drivers, factorisations and ?LASCL, interposed under their Fortran names. Each call is
// recorded with its sizes and INFO; a driver's inputs are scanned for NaN/Inf before it runs
// (O(n^2) beside its O(n^3)) and its main output after, so a silent non-finite result shows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "capture.h"
#include "forwarding.h"
#include "preload_runtime.h"

namespace blasscope::preload {
namespace {

// Which word holds what, for one routine (-1: it has none). Square routines name n as m too.
struct LapackArgs {
  int ch = -1;  // the first CHARACTER argument (JOBZ, TRANS, UPLO, TYPE)
  int m = -1, n = -1, nrhs = -1;
  int a = -1, lda = -1, b = -1, ldb = -1;
  int info = -1;
  int lwork = -1;   // LWORK: -1 there is a workspace query, which does no work
  int lwork2 = -1;  // LIWORK (or LRWORK): -1 there is a query too
  int lwork3 = -1;  // HEEVR's and HEGVD's LIWORK, beside their LRWORK
  int diag = -1;    // DIAG (TRTRS): 'U' leaves the diagonal unread
  int ipiv = -1;    // IPIV given to the routine (GETRS: GETRF's pivots, captured with A and B)
  // Eigen: N real values (HEEV's W too); ComplexEigen: N values of the call's precision (CGEEV's W).
  enum class Output { None, Singular, Eigen, ComplexEigen, B, A } output = Output::None;
  int out = -1;        // the output array's word
  int out_count = -1;  // the word that says how many output values were computed (SYEVR's M); else N
  bool scan_inputs = true;
  // Only the UPLO triangle of A is read (POTRF, SYEV, SYEVD), and of B where square_b is set
  // (SYGVD): only it is scanned.
  bool triangle = false;
  bool square_b = false;  // B is N x N (SYGVD's, GGES's), its UPLO triangle alone where `triangle` is set
  // A holds K reflectors below the diagonal of its first K columns (ORGQR), the rest is output;
  // TAU (the word `tau`) their K scales.
  bool reflectors = false;
  int tau = -1;
};

// NaN/Inf in the upper (or lower) triangle of an n x n column-major matrix, its diagonal
// included or not.
template <typename Real>
void count_triangle(const void* data, std::int64_t n, std::int64_t ld, int reals, bool upper, bool diagonal,
                    std::uint32_t& nan, std::uint32_t& inf) {
  const Real* base = static_cast<const Real*>(data);
  const std::int64_t skip = diagonal ? 0 : 1;
  for (std::int64_t j = 0; j < n && data && ld >= n; ++j) {
    const std::int64_t first = upper ? 0 : j + skip, rows = upper ? j + 1 - skip : n - j - skip;
    count_nonfinite<Real>(base + (j * ld + first) * reals, rows, 1, rows, reals, nan, inf);
  }
}

// The character a CHARACTER argument's word points to, upper-cased ('\0' for none).
char letter_at(const Word* w, int index) {
  if (index < 0 || !w[index]) return '\0';
  const char c = *reinterpret_cast<const char*>(w[index]);
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

template <typename Real>
void scan_inputs(const Word* w, const LapackArgs& d, int reals, CallRecord& c) {
  const auto* a = reinterpret_cast<const Real*>(d.a >= 0 ? w[d.a] : 0);
  if (a && d.triangle) {
    count_triangle<Real>(a, c.n, c.lda, reals, c.side_uplo == 'U' || c.side_uplo == 'u', letter_at(w, d.diag) != 'U',
                         c.input_nan, c.input_inf);
  } else if (a && d.reflectors && c.lda >= c.m) {
    for (std::int64_t j = 0; j < std::min(c.k, c.n); ++j) {  // column j's reflector: rows j+1 to M-1
      const std::int64_t rows = c.m - j - 1;
      count_nonfinite<Real>(a + (j * c.lda + j + 1) * reals, rows, 1, rows, reals, c.input_nan, c.input_inf);
    }
  } else if (a) {
    count_nonfinite<Real>(a, c.m, c.n, c.lda, reals, c.input_nan, c.input_inf);
  }
  if (d.tau >= 0) {
    count_nonfinite<Real>(reinterpret_cast<const void*>(w[d.tau]), c.k, 1, c.k, reals, c.input_nan, c.input_inf);
  }
  const auto* b = reinterpret_cast<const Real*>(d.b >= 0 ? w[d.b] : 0);
  if (b && d.square_b && d.triangle) {
    count_triangle<Real>(b, c.n, c.ldb, reals, c.side_uplo == 'U' || c.side_uplo == 'u', true, c.input_nan,
                         c.input_inf);
  } else if (b && d.square_b) {
    count_nonfinite<Real>(b, c.n, c.n, c.ldb, reals, c.input_nan, c.input_inf);
  }
  if (d.b >= 0 && d.nrhs >= 0) {
    // GELS with TRANS 'T' (or 'C') solves A^T X = B: B holds N rows, the rest is room for X.
    const std::int64_t rows = record::transposed_gels(c) ? c.n : c.m;
    count_nonfinite<Real>(reinterpret_cast<const void*>(w[d.b]), rows, c.k, c.ldb, reals, c.input_nan, c.input_inf);
  }
}

// How many eigenvalues a call asked for: N, or for SYEVR's (and HEEVR's) RANGE 'I' IU - IL + 1
// (words 8 and 9). RANGE 'V' asks for those in an interval, however many there are: M itself.
std::int64_t eigenvalues_asked(const Word* w, const CallRecord& c) {
  if (c.routine != Routine::Syevr || !(c.flags & record::kSomeEigenvalues)) return c.n;
  const char range = w[1] ? *reinterpret_cast<const char*>(w[1]) : 'A';
  if (range != 'I' && range != 'i') return -1;
  return std::clamp<std::int64_t>(
      deref(reinterpret_cast<const void*>(w[9])) - deref(reinterpret_cast<const void*>(w[8])) + 1, 0, c.n);
}

// The vectors a driver computed, where JOBZ, JOBU, JOBVT, JOBVL or JOBVR asked for them (and real
// GEEV's WI): a NaN input can leave the values finite and the vectors NaN (SYEVR of
// [[NaN, 1], [1, 2]] returns eigenvalues of +-1.414, INFO = 0, and NaN eigenvectors).
template <typename Real>
void scan_vectors(const Word* w, int reals, CallRecord& c) {
  const auto matrix = [&](int data, int ld, std::int64_t rows, std::int64_t columns) {
    if (!w[data] || !w[ld]) return;
    count_nonfinite<Real>(reinterpret_cast<const void*>(w[data]), rows, columns,
                          deref(reinterpret_cast<const void*>(w[ld])), reals, c.output_nan, c.output_inf);
  };
  const std::int64_t m = c.m, n = c.n, k = std::min(m, n);
  switch (c.routine) {
    case Routine::Syev:
    case Routine::Syevd:  // JOBZ 'V': A holds them
      if (letter_at(w, 0) == 'V') matrix(3, 4, n, n);
      break;
    case Routine::Syevr:  // Z, N x M
      if (letter_at(w, 0) == 'V')
        matrix(13, 14, n, std::clamp<std::int64_t>(deref(reinterpret_cast<const void*>(w[11])), 0, n));
      break;
    case Routine::Gesdd:  // U (6, 7), VT (8, 9); JOBZ 'O' writes one of them into A
      switch (letter_at(w, 0)) {
        case 'A': matrix(6, 7, m, m), matrix(8, 9, n, n); break;
        case 'S': matrix(6, 7, m, k), matrix(8, 9, k, n); break;
        case 'O':
          if (m >= n) {
            matrix(3, 4, m, n), matrix(8, 9, n, n);
          } else {
            matrix(6, 7, m, m), matrix(3, 4, m, n);
          }
          break;
        default: break;
      }
      break;
    case Routine::Gesvd: {  // U (7, 8) by JOBU, VT (9, 10) by JOBVT; 'O' writes it into A
      const char u = letter_at(w, 0), vt = letter_at(w, 1);
      if (u == 'A') matrix(7, 8, m, m);
      if (u == 'S') matrix(7, 8, m, k);
      if (u == 'O') matrix(4, 5, m, k);
      if (vt == 'A') matrix(9, 10, n, n);
      if (vt == 'S') matrix(9, 10, k, n);
      if (vt == 'O') matrix(4, 5, k, n);
      break;
    }
    case Routine::Geev: {  // VL, LDVL, VR, LDVR after WR and WI, or after the complex W
      const int vl = reals == 2 ? 6 : 7;
      if (reals == 1)
        count_nonfinite<Real>(reinterpret_cast<const void*>(w[6]), n, 1, n, 1, c.output_nan, c.output_inf);
      if (letter_at(w, 0) == 'V') matrix(vl, vl + 1, n, n);
      if (letter_at(w, 1) == 'V') matrix(vl + 2, vl + 3, n, n);
      break;
    }
    default: break;
  }
}

template <typename Real>
void scan_output(const Word* w, const LapackArgs& d, int reals, CallRecord& c) {
  const void* out = d.out >= 0 ? reinterpret_cast<const void*>(w[d.out]) : nullptr;
  switch (d.output) {
    case LapackArgs::Output::Singular:
      count_nonfinite<Real>(out, std::min(c.m, c.n), 1, std::min(c.m, c.n), 1, c.output_nan, c.output_inf);
      break;
    case LapackArgs::Output::Eigen: {
      // SYEVR with RANGE 'V' or 'I' computes M of them: the rest of W is not written.
      const std::int64_t count =
          d.out_count >= 0 ? std::clamp<std::int64_t>(deref(reinterpret_cast<const void*>(w[d.out_count])), 0, c.n)
                           : c.n;
      count_nonfinite<Real>(out, count, 1, count, 1, c.output_nan, c.output_inf);
      // On a NaN this LAPACK's SYEVR returns INFO = 0 and M = 0, leaving W as the caller had it
      // (SciPy's zeros, or an empty array for a subset). Those asked for and not computed are no
      // results: counted as NaN, as the replay's output holds them.
      const std::int64_t asked = eigenvalues_asked(w, c);
      if (count < asked) {
        c.flags |= record::kIncomplete;
        c.output_nan += static_cast<std::uint32_t>(asked - count);
      }
      break;
    }
    case LapackArgs::Output::ComplexEigen:
      count_nonfinite<Real>(out, c.n, 1, c.n, reals, c.output_nan, c.output_inf);
      break;
    case LapackArgs::Output::B:  // X: N rows, or M for a transposed GELS
      count_nonfinite<Real>(out, std::min(record::transposed_gels(c) ? c.m : c.n, c.ldb), c.k, c.ldb, reals,
                            c.output_nan, c.output_inf);
      break;
    case LapackArgs::Output::A:
      if (d.triangle) {  // a factor (POTRF) lives in the UPLO triangle only
        count_triangle<Real>(out, c.n, c.lda, reals, c.side_uplo == 'U' || c.side_uplo == 'u', true, c.output_nan,
                             c.output_inf);
      } else {
        count_nonfinite<Real>(out, c.m, c.n, c.lda, reals, c.output_nan, c.output_inf);
      }
      break;
    case LapackArgs::Output::None: break;
  }
  scan_vectors<Real>(w, reals, c);
}

// The longest argument list forwarded: ?HEEVR's 23 arguments and 3 CHARACTER lengths.
constexpr int kMaxWords = 26;
using ForwardLapack = void (*)(BLASSCOPE_W_26);

bool is_query(const Word* a, const LapackArgs& d) {
  for (int index : {d.lwork, d.lwork2, d.lwork3}) {
    if (index >= 0 && deref(reinterpret_cast<const void*>(a[index])) == -1) return true;
  }
  return false;
}

// The workload op that replays a driver's call, or nullptr for routines BLAScope cannot replay.
const char* driver_name(Routine routine) {
  switch (routine) {
    case Routine::Gesdd: return "gesdd";
    case Routine::Gesvd: return "gesvd";
    case Routine::Gelsd: return "gelsd";
    case Routine::Gelsy: return "gelsy";
    case Routine::Gelss: return "gelss";
    case Routine::Gels: return "gels";
    case Routine::Potrf: return "potrf";
    case Routine::Getrf: return "getrf";
    case Routine::Gesv: return "gesv";
    case Routine::Getrs: return "getrs";
    case Routine::Syevd: return "syevd";
    case Routine::Syev: return "syev";
    case Routine::Syevr: return "syevr";
    default: return nullptr;
  }
}

// `c` is one of `allowed` (LAPACK compares CHARACTER arguments case-blind).
bool one_of(char c, const char* allowed) {
  const char upper = c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  return c != '\0' && std::strchr(allowed, upper) != nullptr;
}

// The replay op of a driver's call: the same driver, and what takes LAPACK down another path:
// for an SVD whether it computed U and V^T (`job`: JOBZ or JOBU, `job2`: GESVD's JOBVT, either
// not 'N'), for the eigen drivers the eigenvectors (`job`: JOBZ) and for them and POTRF the
// triangle (`uplo`). False for a routine BLAScope cannot replay, and for a CHARACTER argument LAPACK
// refuses: the replay op would pass a valid one, and succeed where the call failed.
bool replay_op(Routine routine, bool complex, char job, char job2, char uplo, char* out, std::size_t size) {
  const char* driver = driver_name(routine);
  if (!driver) return false;
  const bool upper = uplo == 'U' || uplo == 'u';
  const bool vectors = job != 'N' && job != 'n';
  switch (routine) {
    case Routine::Gesdd:
    case Routine::Gesvd: {
      if (!one_of(job, "ASON") || (routine == Routine::Gesvd && !one_of(job2, "ASON"))) return false;
      if (routine == Routine::Gesvd && one_of(job, "O") && one_of(job2, "O")) return false;  // refused: both over A
      const bool uv = vectors || (routine == Routine::Gesvd && job2 != 'N' && job2 != 'n');
      std::snprintf(out, size, R"({"op": "svd", "a": "a", "driver": "%s", "compute_uv": %s})", driver,
                    uv ? "true" : "false");
      return true;
    }
    case Routine::Potrf:
      if (!one_of(uplo, "UL")) return false;
      std::snprintf(out, size, R"({"op": "cholesky", "a": "a", "uplo": "%c"})", upper ? 'U' : 'L');
      return true;
    case Routine::Getrf: std::snprintf(out, size, R"({"op": "lu", "a": "a"})"); return true;
    case Routine::Gesv: std::snprintf(out, size, R"({"op": "solve", "a": "a", "b": "b"})"); return true;
    case Routine::Getrs:  // `job`: TRANS ('C' is 'T' for a real matrix)
      if (!one_of(job, "NTC")) return false;
      std::snprintf(out, size, R"({"op": "lu_solve", "a": "a", "pivots": "pivots", "b": "b", "trans": "%c"})",
                    one_of(job, "N")              ? 'N'
                    : one_of(job, "C") && complex ? 'C'
                                                  : 'T');
      return true;
    case Routine::Syevd:
    case Routine::Syev:
    case Routine::Syevr:
      if (!one_of(job, "NV") || !one_of(uplo, "UL")) return false;
      std::snprintf(out, size, R"({"op": "eigh", "a": "a", "driver": "%s", "uplo": "%c", "vectors": %s})", driver,
                    upper ? 'U' : 'L', vectors ? "true" : "false");
      return true;
    case Routine::Gels:
      if (job != 'N' && job != 'n') return false;  // TRANS: the replay solves the untransposed system
      break;
    default: break;
  }
  std::snprintf(out, size, R"({"op": "lstsq", "a": "a", "b": "b", "driver": "%s"})", driver);
  return true;
}

void format_real(char* out, std::size_t size, double v) {
  if (v != v) {
    std::snprintf(out, size, "\"NaN\"");
  } else if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
    std::snprintf(out, size, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    std::snprintf(out, size, "%.17g", v);
  }
}

// The replay op of a captured call (a driver, or a top-level ?LASCL with its scales); `first`
// and `second` are its first two CHARACTER arguments (JOBZ; JOBU and JOBVT; UPLO; TRANS).
// False when it cannot be replayed.
bool replay_op_of(const CallRecord& c, Routine routine, char first, char second, char* op, std::size_t size) {
  const bool complex = record::is_complex(c.precision);
  if (routine == Routine::Syevd || routine == Routine::Syev || routine == Routine::Syevr) {
    return replay_op(routine, complex, first, 'N', second, op, size);
  }
  if (routine != Routine::Lascl) return replay_op(routine, complex, first, second, first, op, size);
  char cfrom[40], cto[40];
  format_real(cfrom, sizeof cfrom, c.alpha);
  format_real(cto, sizeof cto, c.beta);
  const char type =
      c.side_uplo == 'L' || c.side_uplo == 'U' || c.side_uplo == 'H' ? static_cast<char>(c.side_uplo) : 'G';
  std::snprintf(op, size, R"({"op": "dlascl", "a": "a", "type": "%c", "cfrom": %s, "cto": %s})", type, cfrom, cto);
  return true;
}

template <typename Real, int N>
void call_lapack(ForwardLapack real, Routine routine, Precision precision, const LapackArgs& d, const Word (&w)[N]) {
  CallScope scope(routine, precision);
  InputCapture capture;
  const bool top_level = scope.recording() && scope.call.parent == 0;
  const bool replayable = record::has_replay_op(routine);
  const int reals = record::is_complex(precision) ? 2 : 1;
  static_assert(N <= kMaxWords);
  Word a[kMaxWords] = {};
  for (int i = 0; i < N; ++i) a[i] = w[i];
  bool scanned = false;  // its values looked at: before the call, and its output after
  if (scope.recording()) {
    CallRecord& c = scope.call;
    c.flags |= record::kHasInfo;
    if (d.ch >= 0 && a[d.ch]) c.side_uplo = static_cast<std::uint8_t>(*reinterpret_cast<const char*>(a[d.ch]));
    c.m = d.m >= 0 ? deref(reinterpret_cast<const void*>(a[d.m])) : 0;
    c.n = d.n >= 0 ? deref(reinterpret_cast<const void*>(a[d.n])) : c.m;
    c.k = d.nrhs >= 0 ? deref(reinterpret_cast<const void*>(a[d.nrhs])) : 0;
    c.lda = d.lda >= 0 ? deref(reinterpret_cast<const void*>(a[d.lda])) : 0;
    c.ldb = d.ldb >= 0 ? deref(reinterpret_cast<const void*>(a[d.ldb])) : 0;
    if (routine == Routine::Lascl) {  // CFROM and CTO: a NaN CFROM is DLASCL's parameter 4 error
      c.alpha = *reinterpret_cast<const Real*>(a[3]);
      c.beta = *reinterpret_cast<const Real*>(a[4]);
    }
    if (d.a >= 0) c.align_a = alignment_code(reinterpret_cast<const void*>(a[d.a]));
    if (d.b >= 0) c.align_b = alignment_code(reinterpret_cast<const void*>(a[d.b]));
    // Running from here: a crash in the scan or the copy below (a bad A pointer) is this call's.
    scope.begin();
    // A workspace query (LWORK = -1) does no work: its values are not looked at. Nor are those
    // of a routine LAPACK calls inside another (GELSD's GEQRF): the program's own call was.
    const bool query = is_query(a, d);
    if (query) c.flags |= record::kWorkspaceQuery;
    if (routine == Routine::Syevr && !(a[1] && one_of(*reinterpret_cast<const char*>(a[1]), "A"))) {
      c.flags |= record::kSomeEigenvalues;  // RANGE 'V' or 'I'
    }
    // A ?LASCL of the program's own (TYPE G) given an Inf scale LAPACK accepts is looked at before
    // and after, as a driver is: an Inf CTO turns a finite matrix into NaN with INFO = 0. Its usual
    // calls are not (their scan would cost as much as the call), nor are those it refuses before
    // reading A (a zero or NaN CFROM, a NaN CTO).
    const bool refused_scale = routine == Routine::Lascl && (c.alpha == 0 || std::isnan(c.alpha) || std::isnan(c.beta));
    const bool odd_scale = routine == Routine::Lascl && (std::isinf(c.alpha) || std::isinf(c.beta));
    const bool scanned_scale = odd_scale && !refused_scale && top_level && letter_at(a, d.ch) == 'G';
    scanned = (d.scan_inputs && !query && top_level) || scanned_scale;
    if (scanned) {
      scan_inputs<Real>(a, d, reals, c);
      c.flags |= record::kValuesChecked;
    }
    // Inputs as they are now, before LAPACK overwrites them, in case the call fails: copied and
    // written only when they hold NaN/Inf (what makes these drivers fail) or ?LASCL is given a
    // scale it refuses (CFROM zero or NaN, CTO NaN), or when every call is captured; written
    // before the call, so that a call that never returns is captured too.
    const bool worth_copying =
        c.input_nan + c.input_inf > 0 || refused_scale || odd_scale || InputCapture::capturing_all();
    if (top_level && replayable && !query && worth_copying && InputCapture::enabled(routine, precision)) {
      capture.set_failure_expected(c.input_nan + c.input_inf > 0 || refused_scale);
      const std::size_t element = sizeof(Real) * static_cast<std::size_t>(reals);
      if (d.a >= 0) capture.keep(0, reinterpret_cast<const void*>(a[d.a]), c.m, c.n, c.lda, element, false, reals == 2);
      if (d.b >= 0 && d.nrhs >= 0) {
        capture.keep(1, reinterpret_cast<const void*>(a[d.b]), c.m, c.k, c.ldb, element, false, reals == 2);
      }
      if (d.ipiv >= 0) capture.keep_integers(2, reinterpret_cast<const int*>(a[d.ipiv]), c.n, "pivots");
      char op[256];
      // The first two CHARACTER arguments (side_uplo holds SYEV's UPLO, its second); for SYEVR
      // JOBZ and UPLO, its third. The replay computes every eigenvalue: a SYEVR call for some of
      // them (RANGE 'V' or 'I') is another call, not replayed.
      const bool eigen = routine == Routine::Syevd || routine == Routine::Syev || routine == Routine::Syevr;
      const bool two_characters = eigen || routine == Routine::Gesvd;
      const char first = eigen && a[0] ? *reinterpret_cast<const char*>(a[0]) : static_cast<char>(c.side_uplo);
      const char second = routine == Routine::Syevr ? static_cast<char>(c.side_uplo)
                          : two_characters && a[1]  ? *reinterpret_cast<const char*>(a[1])
                                                    : 'N';
      const bool every_eigenvalue = !(c.flags & record::kSomeEigenvalues);
      // A solver whose B cannot be copied (NRHS = 0, LDB below its rows) has nothing to replay
      // B from. (An input over the caps is another matter: write_before counts it as skipped.)
      const bool b_unusable = d.b >= 0 && d.nrhs >= 0 && (c.k <= 0 || c.ldb < c.m);
      const bool no_pivots = d.ipiv >= 0 && !a[d.ipiv];  // GETRS given no IPIV: nothing to replay it with
      if (!b_unusable && !no_pivots && every_eigenvalue && replay_op_of(c, routine, first, second, op, sizeof op)) {
        capture.write_before(c, op);
      } else {
        capture.give_up();  // counted as not captured after the call, if it failed
      }
    }
    scope.restart_clock();  // the call's time is LAPACK's, not the scan's
  }
  real(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16],
       a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25]);
  scope.end();
  if (scope.recording()) {
    CallRecord& c = scope.call;
    c.info = static_cast<std::int32_t>(deref(reinterpret_cast<const void*>(a[d.info])));
    const bool query = is_query(a, d);
    if (c.info == 0 && scanned) scan_output<Real>(a, d, reals, c);
    if (top_level && replayable && !query) capture.settle(c, scope.failed_here_or_inside());
  }
}

}  // namespace
}  // namespace blasscope::preload

using blasscope::preload::ForwardLapack;
using blasscope::preload::LapackArgs;
using Out = LapackArgs::Output;

#define BLASSCOPE_LAPACK(fname, N, Real, routine, precision, ...)                                          \
  BLASSCOPE_EXPORT void fname(BLASSCOPE_W_##N) {                                                           \
    static constexpr LapackArgs args = __VA_ARGS__;                                                        \
    static_assert(args.ch + 1 == blasscope::record::letter_parameter(blasscope::record::Routine::routine), \
                  "the diagnoses quote side_uplo as this argument");                                       \
    const blasscope::preload::Word w[N] = {BLASSCOPE_P_##N};                                               \
    blasscope::preload::call_lapack<Real, N>(BLASSCOPE_REAL(ForwardLapack, #fname),                        \
                                             blasscope::record::Routine::routine,                          \
                                             blasscope::record::Precision::precision, args, w);            \
  }

// Both precisions of a real routine and both of its complex twin (which has RWORK, so its
// later words move).
#define BLASSCOPE_LAPACK_SD(base, N, routine, ...)                \
  BLASSCOPE_LAPACK(s##base##_, N, float, routine, S, __VA_ARGS__) \
  BLASSCOPE_LAPACK(d##base##_, N, double, routine, D, __VA_ARGS__)
#define BLASSCOPE_LAPACK_CZ(base, N, routine, ...)                \
  BLASSCOPE_LAPACK(c##base##_, N, float, routine, C, __VA_ARGS__) \
  BLASSCOPE_LAPACK(z##base##_, N, double, routine, Z, __VA_ARGS__)
// Routines whose complex versions take the same arguments in the same places.
#define BLASSCOPE_LAPACK_SDCZ(base, N, routine, ...) \
  BLASSCOPE_LAPACK_SD(base, N, routine, __VA_ARGS__) \
  BLASSCOPE_LAPACK_CZ(base, N, routine, __VA_ARGS__)

// ?GESDD(JOBZ, M, N, A, LDA, S, U, LDU, VT, LDVT, WORK, LWORK, [RWORK,] IWORK, INFO)
BLASSCOPE_LAPACK_SD(
    gesdd, 15, Gesdd,
    {.ch = 0, .m = 1, .n = 2, .a = 3, .lda = 4, .info = 13, .lwork = 11, .output = Out::Singular, .out = 5})
BLASSCOPE_LAPACK_CZ(
    gesdd, 16, Gesdd,
    {.ch = 0, .m = 1, .n = 2, .a = 3, .lda = 4, .info = 14, .lwork = 11, .output = Out::Singular, .out = 5})
// ?GESVD(JOBU, JOBVT, M, N, A, LDA, S, U, LDU, VT, LDVT, WORK, LWORK, [RWORK,] INFO)
BLASSCOPE_LAPACK_SD(
    gesvd, 16, Gesvd,
    {.ch = 0, .m = 2, .n = 3, .a = 4, .lda = 5, .info = 13, .lwork = 12, .output = Out::Singular, .out = 6})
BLASSCOPE_LAPACK_CZ(
    gesvd, 17, Gesvd,
    {.ch = 0, .m = 2, .n = 3, .a = 4, .lda = 5, .info = 14, .lwork = 12, .output = Out::Singular, .out = 6})
// ?GELSD(M, N, NRHS, A, LDA, B, LDB, S, RCOND, RANK, WORK, LWORK, [RWORK,] IWORK, INFO)
BLASSCOPE_LAPACK_SD(gelsd, 14, Gelsd,
                    {.m = 0,
                     .n = 1,
                     .nrhs = 2,
                     .a = 3,
                     .lda = 4,
                     .b = 5,
                     .ldb = 6,
                     .info = 13,
                     .lwork = 11,
                     .output = Out::B,
                     .out = 5})
BLASSCOPE_LAPACK_CZ(gelsd, 15, Gelsd,
                    {.m = 0,
                     .n = 1,
                     .nrhs = 2,
                     .a = 3,
                     .lda = 4,
                     .b = 5,
                     .ldb = 6,
                     .info = 14,
                     .lwork = 11,
                     .output = Out::B,
                     .out = 5})
// ?GELSY(M, N, NRHS, A, LDA, B, LDB, JPVT, RCOND, RANK, WORK, LWORK, [RWORK,] INFO)
BLASSCOPE_LAPACK_SD(gelsy, 13, Gelsy,
                    {.m = 0,
                     .n = 1,
                     .nrhs = 2,
                     .a = 3,
                     .lda = 4,
                     .b = 5,
                     .ldb = 6,
                     .info = 12,
                     .lwork = 11,
                     .output = Out::B,
                     .out = 5})
BLASSCOPE_LAPACK_CZ(gelsy, 14, Gelsy,
                    {.m = 0,
                     .n = 1,
                     .nrhs = 2,
                     .a = 3,
                     .lda = 4,
                     .b = 5,
                     .ldb = 6,
                     .info = 13,
                     .lwork = 11,
                     .output = Out::B,
                     .out = 5})
// ?GELSS(M, N, NRHS, A, LDA, B, LDB, S, RCOND, RANK, WORK, LWORK, [RWORK,] INFO)
BLASSCOPE_LAPACK_SD(gelss, 13, Gelss,
                    {.m = 0,
                     .n = 1,
                     .nrhs = 2,
                     .a = 3,
                     .lda = 4,
                     .b = 5,
                     .ldb = 6,
                     .info = 12,
                     .lwork = 11,
                     .output = Out::B,
                     .out = 5})
BLASSCOPE_LAPACK_CZ(gelss, 14, Gelss,
                    {.m = 0,
                     .n = 1,
                     .nrhs = 2,
                     .a = 3,
                     .lda = 4,
                     .b = 5,
                     .ldb = 6,
                     .info = 13,
                     .lwork = 11,
                     .output = Out::B,
                     .out = 5})
// ?GELS(TRANS, M, N, NRHS, A, LDA, B, LDB, WORK, LWORK, INFO)
BLASSCOPE_LAPACK_SDCZ(gels, 12, Gels,
                      {.ch = 0,
                       .m = 1,
                       .n = 2,
                       .nrhs = 3,
                       .a = 4,
                       .lda = 5,
                       .b = 6,
                       .ldb = 7,
                       .info = 10,
                       .lwork = 9,
                       .output = Out::B,
                       .out = 6})
// ?SYEVD(JOBZ, UPLO, N, A, LDA, W, WORK, LWORK, IWORK, LIWORK, INFO); ?HEEVD adds RWORK, LRWORK
BLASSCOPE_LAPACK_SD(syevd, 13, Syevd,
                    {.ch = 1,
                     .m = 2,
                     .n = 2,
                     .a = 3,
                     .lda = 4,
                     .info = 10,
                     .lwork = 7,
                     .lwork2 = 9,
                     .output = Out::Eigen,
                     .out = 5,
                     .triangle = true})
constexpr LapackArgs kHeevdArgs{.ch = 1,
                                .m = 2,
                                .n = 2,
                                .a = 3,
                                .lda = 4,
                                .info = 12,
                                .lwork = 7,
                                .lwork2 = 11,
                                .output = Out::Eigen,
                                .out = 5,
                                .triangle = true};
BLASSCOPE_LAPACK_CZ(heevd, 15, Syevd, kHeevdArgs)
// ?SYEV(JOBZ, UPLO, N, A, LDA, W, WORK, LWORK, INFO); ?HEEV adds RWORK
BLASSCOPE_LAPACK_SD(syev, 11, Syev,
                    {.ch = 1,
                     .m = 2,
                     .n = 2,
                     .a = 3,
                     .lda = 4,
                     .info = 8,
                     .lwork = 7,
                     .output = Out::Eigen,
                     .out = 5,
                     .triangle = true})
constexpr LapackArgs kHeevArgs{
    .ch = 1, .m = 2, .n = 2, .a = 3, .lda = 4, .info = 9, .lwork = 7, .output = Out::Eigen, .out = 5, .triangle = true};
BLASSCOPE_LAPACK_CZ(heev, 12, Syev, kHeevArgs)
// ?GESV(N, NRHS, A, LDA, IPIV, B, LDB, INFO)
BLASSCOPE_LAPACK_SD(
    gesv, 8, Gesv,
    {.m = 0, .n = 0, .nrhs = 1, .a = 2, .lda = 3, .b = 5, .ldb = 6, .info = 7, .output = Out::B, .out = 5})
BLASSCOPE_LAPACK_CZ(
    gesv, 8, Gesv,
    {.m = 0, .n = 0, .nrhs = 1, .a = 2, .lda = 3, .b = 5, .ldb = 6, .info = 7, .output = Out::B, .out = 5})
// ?GETRF(M, N, A, LDA, IPIV, INFO)
BLASSCOPE_LAPACK_SDCZ(getrf, 6, Getrf, {.m = 0, .n = 1, .a = 2, .lda = 3, .info = 5, .output = Out::A, .out = 2})
// ?GETRS(TRANS, N, NRHS, A, LDA, IPIV, B, LDB, INFO): A holds GETRF's factors, scanned too:
// factors GETRF made NaN (torch.linalg.inv of a NaN matrix) or a program changed are its input.
BLASSCOPE_LAPACK_SDCZ(getrs, 10, Getrs,
                      {.ch = 0,
                       .m = 1,
                       .n = 1,
                       .nrhs = 2,
                       .a = 3,
                       .lda = 4,
                       .b = 6,
                       .ldb = 7,
                       .info = 8,
                       .ipiv = 5,
                       .output = Out::B,
                       .out = 6})
// ?POTRF(UPLO, N, A, LDA, INFO)
BLASSCOPE_LAPACK_SDCZ(
    potrf, 6, Potrf,
    {.ch = 0, .m = 1, .n = 1, .a = 2, .lda = 3, .info = 4, .output = Out::A, .out = 2, .triangle = true})
// ?SYEVR(JOBZ, RANGE, UPLO, N, A, LDA, VL, VU, IL, IU, ABSTOL, M, W, Z, LDZ, ISUPPZ, WORK, LWORK,
// IWORK, LIWORK, INFO); ?HEEVR adds RWORK, LRWORK before IWORK. W's first M entries are the
// eigenvalues computed (all N with RANGE 'A').
BLASSCOPE_LAPACK_SD(syevr, 24, Syevr,
                    {.ch = 2,
                     .m = 3,
                     .n = 3,
                     .a = 4,
                     .lda = 5,
                     .info = 20,
                     .lwork = 17,
                     .lwork2 = 19,
                     .output = Out::Eigen,
                     .out = 12,
                     .out_count = 11,
                     .triangle = true})
constexpr LapackArgs kHeevrArgs{.ch = 2,
                                .m = 3,
                                .n = 3,
                                .a = 4,
                                .lda = 5,
                                .info = 22,
                                .lwork = 17,
                                .lwork2 = 19,
                                .lwork3 = 21,
                                .output = Out::Eigen,
                                .out = 12,
                                .out_count = 11,
                                .triangle = true};
BLASSCOPE_LAPACK_CZ(heevr, 26, Syevr, kHeevrArgs)
// ?GEEV(JOBVL, JOBVR, N, A, LDA, WR, WI, VL, LDVL, VR, LDVR, WORK, LWORK, INFO); the complex
// ones have W for WR and WI, and RWORK after LWORK
BLASSCOPE_LAPACK_SD(
    geev, 16, Geev,
    {.ch = 0, .m = 2, .n = 2, .a = 3, .lda = 4, .info = 13, .lwork = 12, .output = Out::Eigen, .out = 5})
BLASSCOPE_LAPACK_CZ(
    geev, 16, Geev,
    {.ch = 0, .m = 2, .n = 2, .a = 3, .lda = 4, .info = 13, .lwork = 11, .output = Out::ComplexEigen, .out = 5})
// ?GEQRF(M, N, A, LDA, TAU, WORK, LWORK, INFO)
BLASSCOPE_LAPACK_SDCZ(geqrf, 8, Geqrf,
                      {.m = 0, .n = 1, .a = 2, .lda = 3, .info = 7, .lwork = 6, .output = Out::A, .out = 2})
// ?ORGQR / ?UNGQR(M, N, K, A, LDA, TAU, WORK, LWORK, INFO): A holds GEQRF's reflectors
constexpr LapackArgs kOrgqrArgs{.m = 0,
                                .n = 1,
                                .nrhs = 2,
                                .a = 3,
                                .lda = 4,
                                .info = 8,
                                .lwork = 7,
                                .output = Out::A,
                                .out = 3,
                                .reflectors = true,
                                .tau = 5};
BLASSCOPE_LAPACK_SD(orgqr, 9, Orgqr, kOrgqrArgs)
BLASSCOPE_LAPACK_CZ(ungqr, 9, Orgqr, kOrgqrArgs)
// ?POTRS(UPLO, N, NRHS, A, LDA, B, LDB, INFO): A holds POTRF's factor (its UPLO triangle);
// ?POSV takes the same arguments, and factors A itself (SciPy's solve(assume_a='pos')).
constexpr LapackArgs kCholeskySolveArgs{.ch = 0,
                                        .m = 1,
                                        .n = 1,
                                        .nrhs = 2,
                                        .a = 3,
                                        .lda = 4,
                                        .b = 5,
                                        .ldb = 6,
                                        .info = 7,
                                        .output = Out::B,
                                        .out = 5,
                                        .triangle = true};
BLASSCOPE_LAPACK_SDCZ(potrs, 9, Potrs, kCholeskySolveArgs)
BLASSCOPE_LAPACK_SDCZ(posv, 9, Posv, kCholeskySolveArgs)
// ?GETRI(N, A, LDA, IPIV, WORK, LWORK, INFO): A holds GETRF's factors, then the inverse
BLASSCOPE_LAPACK_SDCZ(getri, 7, Getri,
                      {.m = 0, .n = 0, .a = 1, .lda = 2, .info = 6, .lwork = 5, .output = Out::A, .out = 1})
// ?TRTRS(UPLO, TRANS, DIAG, N, NRHS, A, LDA, B, LDB, INFO)
BLASSCOPE_LAPACK_SDCZ(trtrs, 13, Trtrs,
                      {.ch = 0,
                       .m = 3,
                       .n = 3,
                       .nrhs = 4,
                       .a = 5,
                       .lda = 6,
                       .b = 7,
                       .ldb = 8,
                       .info = 9,
                       .diag = 2,
                       .output = Out::B,
                       .out = 7,
                       .triangle = true})
// ?SYSV(UPLO, N, NRHS, A, LDA, IPIV, B, LDB, WORK, LWORK, INFO): SciPy's solve(assume_a='sym');
// CSYSV and ZSYSV (complex symmetric) take the same arguments, and so does ?HESV, for a
// Hermitian A (assume_a='her').
constexpr LapackArgs kIndefiniteSolveArgs{.ch = 0,
                                          .m = 1,
                                          .n = 1,
                                          .nrhs = 2,
                                          .a = 3,
                                          .lda = 4,
                                          .b = 6,
                                          .ldb = 7,
                                          .info = 10,
                                          .lwork = 9,
                                          .output = Out::B,
                                          .out = 6,
                                          .triangle = true};
BLASSCOPE_LAPACK_SDCZ(sysv, 12, Sysv, kIndefiniteSolveArgs)
BLASSCOPE_LAPACK_CZ(hesv, 12, Hesv, kIndefiniteSolveArgs)
// ?SYTRF(UPLO, N, A, LDA, IPIV, WORK, LWORK, INFO): scipy.linalg.ldl
// ?HETRF takes the same arguments, for a Hermitian A (scipy.linalg.ldl(hermitian=True)).
constexpr LapackArgs kIndefiniteFactorArgs{
    .ch = 0, .m = 1, .n = 1, .a = 2, .lda = 3, .info = 7, .lwork = 6, .output = Out::A, .out = 2, .triangle = true};
BLASSCOPE_LAPACK_SDCZ(sytrf, 9, Sytrf, kIndefiniteFactorArgs)
BLASSCOPE_LAPACK_CZ(hetrf, 9, Hetrf, kIndefiniteFactorArgs)
// ?GEES(JOBVS, SORT, SELECT, N, A, LDA, SDIM, WR, WI, VS, LDVS, WORK, LWORK, BWORK, INFO): the Schur
// form (scipy.linalg.schur); the complex ones have W for WR and WI, and RWORK after LWORK.
BLASSCOPE_LAPACK_SD(
    gees, 17, Gees,
    {.ch = 0, .m = 3, .n = 3, .a = 4, .lda = 5, .info = 14, .lwork = 12, .output = Out::Eigen, .out = 7})
BLASSCOPE_LAPACK_CZ(
    gees, 17, Gees,
    {.ch = 0, .m = 3, .n = 3, .a = 4, .lda = 5, .info = 14, .lwork = 11, .output = Out::ComplexEigen, .out = 7})
// ?SYGVD(ITYPE, JOBZ, UPLO, N, A, LDA, B, LDB, W, WORK, LWORK, IWORK, LIWORK, INFO): the
// generalized symmetric-definite eigenproblem (scipy.linalg.eigh(a, b)); ?HEGVD adds RWORK,
// LRWORK before IWORK. B is factored by POTRF inside: INFO = N + i is its leading minor i.
// ?SYGV(ITYPE, JOBZ, UPLO, N, A, LDA, B, LDB, W, WORK, LWORK, INFO) is eigh(a, b, driver='gv');
// ?HEGV adds RWORK before INFO. All four agree up to LWORK.
constexpr LapackArgs generalized_eigen(int info, int lwork2 = -1, int lwork3 = -1) {
  return {.ch = 2,
          .m = 3,
          .n = 3,
          .a = 4,
          .lda = 5,
          .b = 6,
          .ldb = 7,
          .info = info,
          .lwork = 10,
          .lwork2 = lwork2,
          .lwork3 = lwork3,
          .output = Out::Eigen,
          .out = 8,
          .triangle = true,
          .square_b = true};
}
BLASSCOPE_LAPACK_SD(sygvd, 16, Sygvd, generalized_eigen(13, 12))
BLASSCOPE_LAPACK_CZ(hegvd, 18, Sygvd, generalized_eigen(15, 12, 14))
BLASSCOPE_LAPACK_SD(sygv, 14, Sygv, generalized_eigen(11))
BLASSCOPE_LAPACK_CZ(hegv, 15, Sygv, generalized_eigen(12))
// ?GGES(JOBVSL, JOBVSR, SORT, SELCTG, N, A, LDA, B, LDB, SDIM, ALPHAR, ALPHAI, BETA, VSL, LDVSL,
// VSR, LDVSR, WORK, LWORK, BWORK, INFO): the generalized Schur form (scipy.linalg.qz); the
// complex ones have ALPHA for ALPHAR and ALPHAI, and RWORK after LWORK.
constexpr LapackArgs generalized_schur(int lwork, Out output) {
  return {.ch = 0,
          .m = 4,
          .n = 4,
          .a = 5,
          .lda = 6,
          .b = 7,
          .ldb = 8,
          .info = 20,
          .lwork = lwork,
          .output = output,
          .out = 10,
          .square_b = true};
}
BLASSCOPE_LAPACK_SD(gges, 24, Gges, generalized_schur(18, Out::Eigen))
BLASSCOPE_LAPACK_CZ(gges, 24, Gges, generalized_schur(17, Out::ComplexEigen))
// ?GEHRD(N, ILO, IHI, A, LDA, TAU, WORK, LWORK, INFO): the Hessenberg form (scipy.linalg.hessenberg)
BLASSCOPE_LAPACK_SDCZ(gehrd, 9, Gehrd,
                      {.m = 0, .n = 0, .a = 3, .lda = 4, .info = 8, .lwork = 7, .output = Out::A, .out = 3})
// ?GEQP3(M, N, A, LDA, JPVT, TAU, WORK, LWORK, [RWORK,] INFO): QR with column pivoting
// (scipy.linalg.qr(a, pivoting=True))
BLASSCOPE_LAPACK_SD(geqp3, 9, Geqp3,
                    {.m = 0, .n = 1, .a = 2, .lda = 3, .info = 8, .lwork = 7, .output = Out::A, .out = 2})
BLASSCOPE_LAPACK_CZ(geqp3, 10, Geqp3,
                    {.m = 0, .n = 1, .a = 2, .lda = 3, .info = 9, .lwork = 7, .output = Out::A, .out = 2})
// ?LASCL(TYPE, KL, KU, CFROM, CTO, M, N, A, LDA, INFO): called inside the drivers (the
// DLASCL parameter 4 failures); its matrix is scanned only for an Inf scale of the program's own
// call (call_lapack), as a scan of every one would double its cost.
BLASSCOPE_LAPACK_SDCZ(
    lascl, 11, Lascl,
    {.ch = 0, .m = 5, .n = 6, .a = 7, .lda = 8, .info = 9, .output = Out::A, .out = 7, .scan_inputs = false})
