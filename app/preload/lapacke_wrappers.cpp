// LAPACKE, the C interface to LAPACK, checks its matrix arguments for NaN (not Inf) and returns
// minus the argument's position without calling LAPACK, printing nothing (LAPACKE_NANCHECK=0
// turns the check off). Such a refusal never reaches the Fortran routines recorded elsewhere, so the
// drivers' LAPACKE names are interposed for it alone: a call that reached LAPACK is recorded
// there, once; one that returned negative without it is recorded here, with what LAPACKE read.
#include <cmath>
#include <cstdint>

#include "forwarding.h"
#include "preload_runtime.h"

namespace blasscope::preload {
namespace {

constexpr int kRowMajor = 101, kColMajor = 102;

// The matrix LAPACKE checked: rows x cols in `layout` with leading dimension ld, its `uplo`
// triangle only where set (POTRF, SYEV: LAPACKE checks only the triangle LAPACK reads).
struct Checked {
  const void* data = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 0;
  char uplo = '\0';
};

template <typename Real>
bool count_checked(int layout, const Checked& m, CallRecord& c) {
  if (!m.data || m.rows < 0 || m.cols < 0) return false;
  // Column-major storage of the matrix or, row-major, of its transpose.
  const bool row = layout == kRowMajor;
  const std::int64_t rows = row ? m.cols : m.rows, cols = row ? m.rows : m.cols;
  if (m.ld < std::max<std::int64_t>(1, rows)) return false;  // refused for that, not read
  const auto* base = static_cast<const Real*>(m.data);
  if (m.uplo == '\0') {
    count_nonfinite<Real>(base, rows, cols, m.ld, 1, c.input_nan, c.input_inf);
    return true;
  }
  // The upper triangle of a row-major matrix is the lower one of its column-major transpose.
  const bool upper = (m.uplo == 'U' || m.uplo == 'u') != row;
  for (std::int64_t j = 0; j < cols; ++j) {
    const std::int64_t first = upper ? 0 : j,
                       count = upper ? std::min(j + 1, rows) : std::max<std::int64_t>(rows - j, 0);
    count_nonfinite<Real>(base + j * m.ld + first, count, 1, count, 1, c.input_nan, c.input_inf);
  }
  return true;
}

// Records a LAPACKE call that returned `info` < 0 without a recorded call of its own: what it
// was given, and the NaN/Inf in the matrices it checks.
template <typename Real>
int note_refusal(std::uint64_t begun_before, int info, Routine routine, int layout, char letter, std::int64_t m,
                 std::int64_t n, std::int64_t nrhs, const Checked& a, const Checked& b) {
  if (info >= 0 || thread_call_mark() != begun_before || !shared()) return info;
  CallScope scope(routine, sizeof(Real) == 4 ? Precision::S : Precision::D);
  if (!scope.recording()) return info;
  CallRecord& c = scope.call;
  c.m = static_cast<std::int32_t>(m), c.n = static_cast<std::int32_t>(n), c.k = static_cast<std::int32_t>(nrhs);
  c.lda = static_cast<std::int32_t>(a.ld), c.ldb = static_cast<std::int32_t>(b.ld);
  c.side_uplo = static_cast<std::uint8_t>(letter);
  c.info = info;
  c.flags |= record::kHasInfo | record::kLapacke;
  if (layout == kRowMajor) c.flags |= record::kRowMajor;
  if (a.data) c.align_a = alignment_code(a.data);
  if (b.data) c.align_b = alignment_code(b.data);
  if ((layout == kRowMajor || layout == kColMajor) && count_checked<Real>(layout, a, c)) {
    count_checked<Real>(layout, b, c);
    c.flags |= record::kValuesChecked;
  }
  scope.begin();
  scope.end();
  return info;
}

}  // namespace
}  // namespace blasscope::preload

using blasscope::preload::Checked;
using blasscope::preload::note_refusal;
using blasscope::preload::Routine;

// Each wrapper forwards, then looks at what came back. Sizes are LP64 lapack_int (int).
#define BLASSCOPE_LAPACKE_BEGUN const std::uint64_t begun_ = blasscope::preload::thread_call_mark()

#define BLASSCOPE_LAPACKE_GESDD(p, Real)                                                                           \
  BLASSCOPE_EXPORT int LAPACKE_##p##gesdd(int layout, char jobz, int m, int n, Real* a, int lda, Real* s, Real* u, \
                                          int ldu, Real* vt, int ldvt) {                                           \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                       \
    using Fn = int (*)(int, char, int, int, Real*, int, Real*, Real*, int, Real*, int);                            \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p "gesdd")(layout, jobz, m, n, a, lda, s, u, ldu, vt, ldvt);   \
    return note_refusal<Real>(begun_, info, Routine::Gesdd, layout, jobz, m, n, 0, {a, m, n, lda}, {});            \
  }
#define BLASSCOPE_LAPACKE_GESVD(p, Real)                                                                              \
  BLASSCOPE_EXPORT int LAPACKE_##p##gesvd(int layout, char jobu, char jobvt, int m, int n, Real* a, int lda, Real* s, \
                                          Real* u, int ldu, Real* vt, int ldvt, Real* superb) {                       \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                          \
    using Fn = int (*)(int, char, char, int, int, Real*, int, Real*, Real*, int, Real*, int, Real*);                  \
    const int info =                                                                                                  \
        BLASSCOPE_REAL(Fn, "LAPACKE_" #p "gesvd")(layout, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, superb);    \
    return note_refusal<Real>(begun_, info, Routine::Gesvd, layout, jobu, m, n, 0, {a, m, n, lda}, {});               \
  }
#define BLASSCOPE_LAPACKE_GELSD(p, Real)                                                                            \
  BLASSCOPE_EXPORT int LAPACKE_##p##gelsd(int layout, int m, int n, int nrhs, Real* a, int lda, Real* b, int ldb,   \
                                          Real* s, Real rcond, int* rank) {                                         \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                        \
    using Fn = int (*)(int, int, int, int, Real*, int, Real*, int, Real*, Real, int*);                              \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p "gelsd")(layout, m, n, nrhs, a, lda, b, ldb, s, rcond, rank); \
    return note_refusal<Real>(begun_, info, Routine::Gelsd, layout, '\0', m, n, nrhs, {a, m, n, lda},               \
                              {b, std::max(m, n), nrhs, ldb});                                                      \
  }
#define BLASSCOPE_LAPACKE_GELS(p, Real)                                                                             \
  BLASSCOPE_EXPORT int LAPACKE_##p##gels(int layout, char trans, int m, int n, int nrhs, Real* a, int lda, Real* b, \
                                         int ldb) {                                                                 \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                        \
    using Fn = int (*)(int, char, int, int, int, Real*, int, Real*, int);                                           \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p "gels")(layout, trans, m, n, nrhs, a, lda, b, ldb);           \
    return note_refusal<Real>(begun_, info, Routine::Gels, layout, trans, m, n, nrhs, {a, m, n, lda},               \
                              {b, std::max(m, n), nrhs, ldb});                                                      \
  }
#define BLASSCOPE_LAPACKE_GESV(p, Real)                                                                                \
  BLASSCOPE_EXPORT int LAPACKE_##p##gesv(int layout, int n, int nrhs, Real* a, int lda, int* ipiv, Real* b, int ldb) { \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                           \
    using Fn = int (*)(int, int, int, Real*, int, int*, Real*, int);                                                   \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p "gesv")(layout, n, nrhs, a, lda, ipiv, b, ldb);                  \
    return note_refusal<Real>(begun_, info, Routine::Gesv, layout, '\0', n, n, nrhs, {a, n, n, lda},                   \
                              {b, n, nrhs, ldb});                                                                      \
  }
#define BLASSCOPE_LAPACKE_GETRF(p, Real)                                                                \
  BLASSCOPE_EXPORT int LAPACKE_##p##getrf(int layout, int m, int n, Real* a, int lda, int* ipiv) {      \
    BLASSCOPE_LAPACKE_BEGUN;                                                                            \
    using Fn = int (*)(int, int, int, Real*, int, int*);                                                \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p "getrf")(layout, m, n, a, lda, ipiv);             \
    return note_refusal<Real>(begun_, info, Routine::Getrf, layout, '\0', m, n, 0, {a, m, n, lda}, {}); \
  }
#define BLASSCOPE_LAPACKE_POTRF(p, Real)                                                                      \
  BLASSCOPE_EXPORT int LAPACKE_##p##potrf(int layout, char uplo, int n, Real* a, int lda) {                   \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                  \
    using Fn = int (*)(int, char, int, Real*, int);                                                           \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p "potrf")(layout, uplo, n, a, lda);                      \
    return note_refusal<Real>(begun_, info, Routine::Potrf, layout, uplo, n, n, 0, {a, n, n, lda, uplo}, {}); \
  }
// SYEV and SYEVD take the same arguments.
#define BLASSCOPE_LAPACKE_SYEV(p, Real, name, routine)                                                          \
  BLASSCOPE_EXPORT int LAPACKE_##p##name(int layout, char jobz, char uplo, int n, Real* a, int lda, Real* w) {  \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                    \
    using Fn = int (*)(int, char, char, int, Real*, int, Real*);                                                \
    const int info = BLASSCOPE_REAL(Fn, "LAPACKE_" #p #name)(layout, jobz, uplo, n, a, lda, w);                 \
    return note_refusal<Real>(begun_, info, Routine::routine, layout, jobz, n, n, 0, {a, n, n, lda, uplo}, {}); \
  }
#define BLASSCOPE_LAPACKE_GEEV(p, Real)                                                                         \
  BLASSCOPE_EXPORT int LAPACKE_##p##geev(int layout, char jobvl, char jobvr, int n, Real* a, int lda, Real* wr, \
                                         Real* wi, Real* vl, int ldvl, Real* vr, int ldvr) {                    \
    BLASSCOPE_LAPACKE_BEGUN;                                                                                    \
    using Fn = int (*)(int, char, char, int, Real*, int, Real*, Real*, Real*, int, Real*, int);                 \
    const int info =                                                                                            \
        BLASSCOPE_REAL(Fn, "LAPACKE_" #p "geev")(layout, jobvl, jobvr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr);  \
    return note_refusal<Real>(begun_, info, Routine::Geev, layout, jobvl, n, n, 0, {a, n, n, lda}, {});         \
  }

#define BLASSCOPE_LAPACKE_REAL_PRECISIONS(macro, ...) \
  macro(s, float __VA_OPT__(, ) __VA_ARGS__) macro(d, double __VA_OPT__(, ) __VA_ARGS__)

BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GESDD)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GESVD)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GELSD)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GELS)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GESV)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GETRF)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_POTRF)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_SYEV, syev, Syev)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_SYEV, syevd, Syevd)
BLASSCOPE_LAPACKE_REAL_PRECISIONS(BLASSCOPE_LAPACKE_GEEV)
