// BLAS level 2/3 routines under their Fortran names (dgemm_) and their CBLAS names
// (cblas_dgemm): GEMM, GEMV, SYRK and TRSM in all four precisions.
#include <cmath>
#include <complex>
#include <cstdio>

#include "capture.h"
#include "forwarding.h"
#include "preload_runtime.h"
#include "record/call_flops.h"

namespace blasscope::preload {
namespace {

enum CblasConstants { kRowMajor = 101, kTrans = 112, kConjTrans = 113 };

// Only a transpose letter or value is one: a value no routine accepts (which BLAS refuses
// through xerbla) is recorded as no transpose, never as a transpose that was not asked for.
bool is_trans(char c) {
  return c == 'T' || c == 't' || c == 'C' || c == 'c';
}

bool cblas_trans(int t) {
  return t == kTrans || t == kConjTrans;
}

int reals_of(Precision p) {
  return record::is_complex(p) ? 2 : 1;
}

// A transpose argument as call flags (A's, or with `b` B's): a conjugate transpose is told apart
// where the data is complex, and is a plain transpose on real data.
std::uint16_t transpose_flags(bool trans, bool conj, Precision p, bool b) {
  if (!trans) return 0;
  conj = conj && record::is_complex(p);
  return b ? record::kTransB | (conj ? record::kConjB : 0) : record::kTransA | (conj ? record::kConjA : 0);
}

std::uint16_t letter_flags(char t, Precision p, bool b = false) {
  return transpose_flags(is_trans(t), t == 'C' || t == 'c', p, b);
}

std::uint16_t cblas_flags(int t, Precision p, bool b = false) {
  return transpose_flags(cblas_trans(t), t == kConjTrans, p, b);
}

// GEMM's value checks (--check-values): what the call reads before it (A and B unless alpha is
// 0, C unless beta is 0: PyTorch's Linear passes its bias as C with beta = 1), C after. The
// operands as stored, column-major as Fortran sees them; CBLAS row-major swaps the roles.
template <typename Real>
void scan_gemm_inputs(CallRecord& c, const void* a, const void* b, const void* c_in, bool reads_ab, bool reads_c) {
  const bool ta = c.flags & record::kTransA, tb = c.flags & record::kTransB;
  const int r = reals_of(c.precision);
  const bool row = c.flags & record::kRowMajor;
  // Stored shape of A: (ta ? k x m : m x k) column-major; row-major is the transpose.
  std::int64_t a_rows = ta ? c.k : c.m, a_cols = ta ? c.m : c.k, b_rows = tb ? c.n : c.k, b_cols = tb ? c.k : c.n;
  if (row) std::swap(a_rows, a_cols), std::swap(b_rows, b_cols);
  if (reads_ab) {
    count_nonfinite<Real>(a, a_rows, a_cols, c.lda, r, c.input_nan, c.input_inf);
    count_nonfinite<Real>(b, b_rows, b_cols, c.ldb, r, c.input_nan, c.input_inf);
  }
  if (reads_c) count_nonfinite<Real>(c_in, row ? c.n : c.m, row ? c.m : c.n, c.ldc, r, c.input_nan, c.input_inf);
  c.flags |= record::kValuesChecked;
}

template <typename Real>
void scan_gemm_output(CallRecord& c, const void* out) {
  const bool row = c.flags & record::kRowMajor;
  count_nonfinite<Real>(out, row ? c.n : c.m, row ? c.m : c.n, c.ldc, reals_of(c.precision), c.output_nan,
                        c.output_inf);
}

// A scalar as its real part: REAL/DOUBLE for s/d, the first half of a COMPLEX for c/z.
template <typename Real>
double real_part(const void* scalar) {
  return scalar ? static_cast<double>(*static_cast<const Real*>(scalar)) : 0.0;
}

// Whether a GEMM's alpha or beta (passed by address) is zero: both halves of a complex one (the
// record keeps only the real part, and a beta of i reads C).
template <typename Real>
bool scalar_is_zero(const void* scalar, Precision p) {
  const Real* v = static_cast<const Real*>(scalar);
  return !v || (v[0] == 0 && (reals_of(p) == 1 || v[1] == 0));
}

using Forward15 = void (*)(BLASSCOPE_W_15);

// GEMM value captures (real precisions, the program's own calls): with --capture all every GEMM,
// with --check-values one whose result came out NaN/Inf while nothing reported it. A and B are
// unchanged by the call and copied after it; C only matters when beta != 0, and is copied before
// the call (under --check-values too, which already reads every C: the copy is freed when the
// result is finite).
bool may_capture_gemm_values(const CallRecord& c, bool checking) {
  return !c.parent && (checking || InputCapture::capturing_all()) && InputCapture::enabled(c.precision);
}

// Under --check-values C is copied where it holds NaN/Inf (the call will fail) or is small (under
// malloc's mmap threshold: a copy costs less than the scan did); a bigger one whose result
// overflows is counted as not captured.
constexpr std::int64_t kSmallCBytes = 64 * 1024;

template <typename Real>
void keep_gemm_c(InputCapture& capture, const CallRecord& c, const void* out, bool checking) {
  const bool worth_it = c.input_nan + c.input_inf > 0 ||
                        static_cast<std::int64_t>(c.m) * c.n * static_cast<std::int64_t>(sizeof(Real)) <= kSmallCBytes;
  if (c.beta != 0 && (InputCapture::capturing_all() || (checking && worth_it))) {
    // Before the call, only NaN/Inf inputs (--check-values) say the call will fail.
    capture.set_failure_expected(c.input_nan + c.input_inf > 0);
    capture.keep(2, out, c.m, c.n, c.ldc, sizeof(Real), c.flags & record::kRowMajor);
  }
}

template <typename Real>
void capture_gemm_values(InputCapture& capture, CallRecord& c, const void* a, const void* b) {
  const bool failed = c.output_nan + c.output_inf > 0;
  if (record::has_xerbla(c) || (!InputCapture::capturing_all() && !failed)) return;
  // Nothing the replay can take: no A and B read, a scale JSON cannot hold, a C not kept.
  if (c.alpha == 0 || !std::isfinite(c.alpha) || !std::isfinite(c.beta) || (c.beta != 0 && !capture.has(2))) {
    return capture.skip(failed);
  }
  const bool row = c.flags & record::kRowMajor, ta = c.flags & record::kTransA, tb = c.flags & record::kTransB;
  capture.set_outcome(failed);
  capture.keep(0, a, ta ? c.k : c.m, ta ? c.m : c.k, c.lda, sizeof(Real), row);
  capture.keep(1, b, tb ? c.n : c.k, tb ? c.k : c.n, c.ldb, sizeof(Real), row);
  const char* dtype = c.precision == Precision::S ? "float32" : "float64";
  char zeros[256] = "", op[512];
  if (c.beta == 0) {  // not read: zeros, in the call's order (the replay takes its layout from C)
    std::snprintf(zeros, sizeof zeros, R"("c": {"shape": [%d, %d], "dtype": "%s", "order": "%s", "fill": "zeros"})",
                  c.m, c.n, dtype, row ? "C" : "F");
  }
  std::snprintf(op, sizeof op,
                R"({"op": "gemm", "a": "a", "b": "b", "c": "c", "trans_a": %s, "trans_b": %s, "alpha": %.17g, )"
                R"("beta": %.17g})",
                ta ? "true" : "false", tb ? "true" : "false", c.alpha, c.beta);
  capture.write_after(c, failed, op, zeros);
}

template <typename Real>
void describe_gemm(CallRecord& c, const Word (&w)[15]) {
  const char ta = *reinterpret_cast<const char*>(w[0]), tb = *reinterpret_cast<const char*>(w[1]);
  c.side_uplo = static_cast<std::uint8_t>(ta);
  c.flags |= letter_flags(ta, c.precision) | letter_flags(tb, c.precision, true);
  c.m = deref(reinterpret_cast<const void*>(w[2]));
  c.n = deref(reinterpret_cast<const void*>(w[3]));
  c.k = deref(reinterpret_cast<const void*>(w[4]));
  c.alpha = real_part<Real>(reinterpret_cast<const void*>(w[5]));
  c.lda = deref(reinterpret_cast<const void*>(w[7]));
  c.ldb = deref(reinterpret_cast<const void*>(w[9]));
  c.beta = real_part<Real>(reinterpret_cast<const void*>(w[10]));
  c.ldc = deref(reinterpret_cast<const void*>(w[12]));
  c.align_a = alignment_code(reinterpret_cast<const void*>(w[6]));
  c.align_b = alignment_code(reinterpret_cast<const void*>(w[8]));
  c.align_c = alignment_code(reinterpret_cast<const void*>(w[11]));
}

inline void forward(Forward15 real, const Word (&w)[15]) {
  real(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12], w[13], w[14]);
}

inline void forward(Forward15 real, const Word (&w)[12]) {
  real(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], 0, 0, 0);
}

// The size a Fortran argument points to, as a double (0 for an argument the routine lacks).
template <std::size_t N>
double size_at(const Word (&w)[N], int i) {
  return i >= 0 ? static_cast<double>(deref(reinterpret_cast<const void*>(w[i]))) : 0.0;
}

// A quiet call that must be recorded after all (QuietCall): `describe` fills its record.
template <typename Describe>
void record_after_all(const QuietCall& quiet, Routine routine, Precision p, Describe&& describe) {
  CallScope scope(routine, p, quiet.id());
  if (!scope.recording()) return;
  describe(scope.call);
  scope.begin();
  scope.took(quiet);
}

template <typename Real>
void fortran_gemm(Forward15 real, Precision p, const Word (&w)[15]) {
  if (QuietCall quiet; !check_gemm_values() && quiet.start(Routine::Gemm, p)) {
    forward(real, w);
    const double flops = record::blas_flops(Routine::Gemm, size_at(w, 2), size_at(w, 3), size_at(w, 4), 0);
    if (!quiet.finish(Routine::Gemm, p, record::flop_count(flops, p))) {
      record_after_all(quiet, Routine::Gemm, p, [&w](CallRecord& c) { describe_gemm<Real>(c, w); });
    }
    return;
  }
  CallScope scope(Routine::Gemm, p);
  const bool check = scope.recording() && check_gemm_values();
  LazyCapture capture;
  bool capturing = false;
  if (scope.recording()) {
    CallRecord& c = scope.call;
    describe_gemm<Real>(c, w);
    scope.begin();  // running from here: a crash in the scan (a bad pointer) is this call's
    // The scan reads what the library does: A and B unless alpha = 0, C unless beta = 0.
    if (check) {
      scan_gemm_inputs<Real>(c, reinterpret_cast<const void*>(w[6]), reinterpret_cast<const void*>(w[8]),
                             reinterpret_cast<const void*>(w[11]),
                             !scalar_is_zero<Real>(reinterpret_cast<const void*>(w[5]), p),
                             !scalar_is_zero<Real>(reinterpret_cast<const void*>(w[10]), p));
    }
    capturing = may_capture_gemm_values(c, check);
    if (capturing) keep_gemm_c<Real>(capture.make(), c, reinterpret_cast<const void*>(w[11]), check);
    if (check || capturing) scope.restart_clock();  // the call's time is the library's
  }
  forward(real, w);
  scope.end();
  if (check && !record::has_xerbla(scope.call)) {
    scan_gemm_output<Real>(scope.call, reinterpret_cast<const void*>(w[11]));
  }
  if (scope.recording() && record::has_xerbla(scope.call) && !scope.call.parent) capture_gemm_arguments(scope.call);
  if (capturing) {
    capture_gemm_values<Real>(capture.made(), scope.call, reinterpret_cast<const void*>(w[6]),
                              reinterpret_cast<const void*>(w[8]));
  }
}

// GEMV, SYRK, TRSM under their Fortran names: sizes, leading dimensions and alpha.
struct BlasArgs {
  int ch = -1, trans = -1, m = -1, n = -1, k = -1, alpha = -1, a = -1, lda = -1, b = -1, ldb = -1, beta = -1, ldc = -1;
};

// The layout is a template argument: each wrapper's argument positions fold into plain loads
// (a table read at run time cost a nested DGEMV of an SVD a fifth of its recording).
template <typename Real, int N, BlasArgs D>
void describe_blas(CallRecord& c, const Word (&w)[N]) {
  const auto pointer = [&w](int i) { return reinterpret_cast<const void*>(w[i]); };
  if constexpr (D.ch >= 0) c.side_uplo = static_cast<std::uint8_t>(*static_cast<const char*>(pointer(D.ch)));
  if constexpr (D.trans >= 0) {
    c.flags |= letter_flags(*static_cast<const char*>(pointer(D.trans)), c.precision);
  }
  if constexpr (D.m >= 0) c.m = deref(pointer(D.m));
  if constexpr (D.n >= 0) c.n = deref(pointer(D.n));
  if constexpr (D.k >= 0) c.k = deref(pointer(D.k));
  if constexpr (D.lda >= 0) c.lda = deref(pointer(D.lda));
  if constexpr (D.ldb >= 0) c.ldb = deref(pointer(D.ldb));
  if constexpr (D.ldc >= 0) c.ldc = deref(pointer(D.ldc));
  if constexpr (D.alpha >= 0) c.alpha = real_part<Real>(pointer(D.alpha));
  if constexpr (D.beta >= 0) c.beta = real_part<Real>(pointer(D.beta));
  if constexpr (D.a >= 0) c.align_a = alignment_code(pointer(D.a));
  if constexpr (D.b >= 0) c.align_b = alignment_code(pointer(D.b));
}

template <typename Real, int N, BlasArgs D>
void fortran_blas(Forward15 real, Routine routine, Precision p, const Word (&w)[N]) {
  if (QuietCall quiet; quiet.start(routine, p)) {
    forward(real, w);
    std::uint8_t side = 0;
    if constexpr (D.ch >= 0) side = static_cast<std::uint8_t>(*reinterpret_cast<const char*>(w[D.ch]));
    const double flops = record::blas_flops(routine, size_at(w, D.m), size_at(w, D.n), size_at(w, D.k), side);
    if (!quiet.finish(routine, p, record::flop_count(flops, p))) {
      record_after_all(quiet, routine, p, [&w](CallRecord& c) { describe_blas<Real, N, D>(c, w); });
    }
    return;
  }
  CallScope scope(routine, p);
  if (scope.recording()) {
    describe_blas<Real, N, D>(scope.call, w);
    scope.begin();
  }
  forward(real, w);
  scope.end();
  if (scope.recording() && record::has_xerbla(scope.call) && !scope.call.parent) capture_blas_arguments(scope.call);
}

// CBLAS GEMM: s/d take alpha and beta by value, c/z by address.
template <typename Real, typename Scalar>
void cblas_gemm(void (*real)(int, int, int, int, int, int, Scalar, const void*, int, const void*, int, Scalar, void*,
                             int),
                Precision p, int order, int ta, int tb, int m, int n, int k, Scalar alpha, const void* a, int lda,
                const void* b, int ldb, Scalar beta, void* c_out, int ldc) {
  CallScope scope(Routine::Gemm, p);
  const bool check = scope.recording() && check_gemm_values();
  LazyCapture capture;
  bool capturing = false;
  if (scope.recording()) {
    CallRecord& c = scope.call;
    c.flags |= record::kCblas;
    if (order == kRowMajor) c.flags |= record::kRowMajor;
    c.flags |= cblas_flags(ta, p) | cblas_flags(tb, p, true);
    c.m = m, c.n = n, c.k = k, c.lda = lda, c.ldb = ldb, c.ldc = ldc;
    if constexpr (std::is_pointer_v<Scalar>) {
      c.alpha = real_part<Real>(alpha), c.beta = real_part<Real>(beta);
    } else {
      c.alpha = alpha, c.beta = beta;
    }
    c.align_a = alignment_code(a), c.align_b = alignment_code(b), c.align_c = alignment_code(c_out);
    scope.begin();  // running from here: a crash in the scan (a bad pointer) is this call's
    if (check) {
      if constexpr (std::is_pointer_v<Scalar>) {
        scan_gemm_inputs<Real>(c, a, b, c_out, !scalar_is_zero<Real>(alpha, p), !scalar_is_zero<Real>(beta, p));
      } else {
        scan_gemm_inputs<Real>(c, a, b, c_out, alpha != 0, beta != 0);
      }
    }
    capturing = may_capture_gemm_values(c, check);
    if (capturing) keep_gemm_c<Real>(capture.make(), c, c_out, check);
    if (check || capturing) scope.restart_clock();  // the call's time is the library's
  }
  real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c_out, ldc);
  scope.end();
  if (check && !record::has_xerbla(scope.call)) scan_gemm_output<Real>(scope.call, c_out);
  if (scope.recording() && record::has_xerbla(scope.call) && !scope.call.parent) capture_gemm_arguments(scope.call);
  if (capturing) capture_gemm_values<Real>(capture.made(), scope.call, a, b);
}

}  // namespace
}  // namespace blasscope::preload

using blasscope::preload::BlasArgs;
using blasscope::preload::Forward15;
using blasscope::preload::Word;
using blasscope::record::Precision;
using blasscope::record::Routine;

#define BLASSCOPE_F77_GEMM(fname, Real, precision)                                                      \
  BLASSCOPE_EXPORT void fname(BLASSCOPE_W_15) {                                                         \
    const Word w[15] = {BLASSCOPE_P_15};                                                                \
    blasscope::preload::fortran_gemm<Real>(BLASSCOPE_REAL(Forward15, #fname), Precision::precision, w); \
  }
BLASSCOPE_F77_GEMM(sgemm_, float, S)
BLASSCOPE_F77_GEMM(dgemm_, double, D)
BLASSCOPE_F77_GEMM(cgemm_, float, C)
BLASSCOPE_F77_GEMM(zgemm_, double, Z)

#define BLASSCOPE_F77_BLAS(fname, N, Real, routine, precision, ...)                                             \
  BLASSCOPE_EXPORT void fname(BLASSCOPE_W_##N) {                                                                \
    const Word w[N] = {BLASSCOPE_P_##N};                                                                        \
    blasscope::preload::fortran_blas<Real, N, BlasArgs __VA_ARGS__>(BLASSCOPE_REAL(Forward15, #fname),          \
                                                                    Routine::routine, Precision::precision, w); \
  }
#define BLASSCOPE_F77_BLAS_ALL(base, N, routine, ...)                \
  BLASSCOPE_F77_BLAS(s##base##_, N, float, routine, S, __VA_ARGS__)  \
  BLASSCOPE_F77_BLAS(d##base##_, N, double, routine, D, __VA_ARGS__) \
  BLASSCOPE_F77_BLAS(c##base##_, N, float, routine, C, __VA_ARGS__)  \
  BLASSCOPE_F77_BLAS(z##base##_, N, double, routine, Z, __VA_ARGS__)

// ?GEMV(TRANS, M, N, ALPHA, A, LDA, X, INCX, BETA, Y, INCY)
BLASSCOPE_F77_BLAS_ALL(gemv, 12, Gemv, {.ch = 0, .trans = 0, .m = 1, .n = 2, .alpha = 3, .a = 4, .lda = 5, .beta = 8})
// ?SYRK(UPLO, TRANS, N, K, ALPHA, A, LDA, BETA, C, LDC)
BLASSCOPE_F77_BLAS_ALL(syrk, 12, Syrk,
                       {.ch = 0, .trans = 1, .n = 2, .k = 3, .alpha = 4, .a = 5, .lda = 6, .beta = 7, .ldc = 9})
// ?TRSM(SIDE, UPLO, TRANSA, DIAG, M, N, ALPHA, A, LDA, B, LDB)
BLASSCOPE_F77_BLAS_ALL(trsm, 15, Trsm,
                       {.ch = 0, .trans = 2, .m = 4, .n = 5, .alpha = 6, .a = 7, .lda = 8, .b = 9, .ldb = 10})

// CBLAS names.
using SGemm = void (*)(int, int, int, int, int, int, float, const void*, int, const void*, int, float, void*, int);
using DGemm = void (*)(int, int, int, int, int, int, double, const void*, int, const void*, int, double, void*, int);
using ZGemm = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int, const void*,
                       void*, int);

BLASSCOPE_EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const void* a, int lda,
                                  const void* b, int ldb, float beta, void* c, int ldc) {
  blasscope::preload::cblas_gemm<float, float>(BLASSCOPE_REAL(SGemm, "cblas_sgemm"), Precision::S, order, ta, tb, m, n,
                                               k, alpha, a, lda, b, ldb, beta, c, ldc);
}
BLASSCOPE_EXPORT void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const void* a, int lda,
                                  const void* b, int ldb, double beta, void* c, int ldc) {
  blasscope::preload::cblas_gemm<double, double>(BLASSCOPE_REAL(DGemm, "cblas_dgemm"), Precision::D, order, ta, tb, m,
                                                 n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
BLASSCOPE_EXPORT void cblas_cgemm(int order, int ta, int tb, int m, int n, int k, const void* alpha, const void* a,
                                  int lda, const void* b, int ldb, const void* beta, void* c, int ldc) {
  blasscope::preload::cblas_gemm<float, const void*>(BLASSCOPE_REAL(ZGemm, "cblas_cgemm"), Precision::C, order, ta, tb,
                                                     m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
BLASSCOPE_EXPORT void cblas_zgemm(int order, int ta, int tb, int m, int n, int k, const void* alpha, const void* a,
                                  int lda, const void* b, int ldb, const void* beta, void* c, int ldc) {
  blasscope::preload::cblas_gemm<double, const void*>(BLASSCOPE_REAL(ZGemm, "cblas_zgemm"), Precision::Z, order, ta, tb,
                                                      m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

namespace blasscope::preload {
namespace {

// The scalar as a double: by value for s/d, the real part by address for c/z.
template <typename Real, typename Scalar>
double scalar_value(Scalar s) {
  if constexpr (std::is_pointer_v<Scalar>) {
    return real_part<Real>(s);
  } else {
    return static_cast<double>(s);
  }
}

// Records a CBLAS level 2/3 call around `forward`; `shape(call)` fills in its arguments, only
// when it is recorded (no record of its own to zero and copy on every call).
template <typename Shape, typename Forward>
void cblas_call(Routine routine, Precision p, int order, Shape&& shape, Forward&& forward) {
  CallScope scope(routine, p);
  if (scope.recording()) {
    CallRecord& c = scope.call;
    shape(c);
    c.flags |= record::kCblas;
    if (order == kRowMajor) c.flags |= record::kRowMajor;
    scope.begin();
  }
  forward();
  scope.end();
  if (scope.recording() && record::has_xerbla(scope.call) && !scope.call.parent) capture_blas_arguments(scope.call);
}

}  // namespace
}  // namespace blasscope::preload

#define BLASSCOPE_CBLAS_GEMV(fname, Real, S, precision)                                                               \
  BLASSCOPE_EXPORT void fname(int order, int trans, int m, int n, S alpha, const void* a, int lda, const void* x,     \
                              int incx, S beta, void* y, int incy) {                                                  \
    using Fn = void (*)(int, int, int, int, S, const void*, int, const void*, int, S, void*, int);                    \
    const auto shape = [&](blasscope::record::CallRecord& c) {                                                        \
      c.m = m, c.n = n, c.lda = lda;                                                                                  \
      c.alpha = blasscope::preload::scalar_value<Real>(alpha), c.beta = blasscope::preload::scalar_value<Real>(beta); \
      c.flags |= blasscope::preload::cblas_flags(trans, Precision::precision);                                        \
      c.align_a = blasscope::preload::alignment_code(a);                                                              \
    };                                                                                                                \
    const Fn real = BLASSCOPE_REAL(Fn, #fname); /* here: the return address must be this function's */                \
    blasscope::preload::cblas_call(Routine::Gemv, Precision::precision, order, shape,                                 \
                                   [&] { real(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy); });         \
  }
BLASSCOPE_CBLAS_GEMV(cblas_sgemv, float, float, S)
BLASSCOPE_CBLAS_GEMV(cblas_dgemv, double, double, D)
BLASSCOPE_CBLAS_GEMV(cblas_cgemv, float, const void*, C)
BLASSCOPE_CBLAS_GEMV(cblas_zgemv, double, const void*, Z)

#define BLASSCOPE_CBLAS_SYRK(fname, Real, S, precision)                                                               \
  BLASSCOPE_EXPORT void fname(int order, int uplo, int trans, int n, int k, S alpha, const void* a, int lda, S beta,  \
                              void* c, int ldc) {                                                                     \
    using Fn = void (*)(int, int, int, int, int, S, const void*, int, S, void*, int);                                 \
    const auto shape = [&](blasscope::record::CallRecord& r) {                                                        \
      r.n = n, r.k = k, r.lda = lda, r.ldc = ldc;                                                                     \
      r.alpha = blasscope::preload::scalar_value<Real>(alpha), r.beta = blasscope::preload::scalar_value<Real>(beta); \
      r.flags |= blasscope::preload::cblas_flags(trans, Precision::precision);                                        \
      r.align_a = blasscope::preload::alignment_code(a);                                                              \
    };                                                                                                                \
    const Fn real = BLASSCOPE_REAL(Fn, #fname); /* here: the return address must be this function's */                \
    blasscope::preload::cblas_call(Routine::Syrk, Precision::precision, order, shape,                                 \
                                   [&] { real(order, uplo, trans, n, k, alpha, a, lda, beta, c, ldc); });             \
  }
BLASSCOPE_CBLAS_SYRK(cblas_ssyrk, float, float, S)
BLASSCOPE_CBLAS_SYRK(cblas_dsyrk, double, double, D)
BLASSCOPE_CBLAS_SYRK(cblas_csyrk, float, const void*, C)
BLASSCOPE_CBLAS_SYRK(cblas_zsyrk, double, const void*, Z)

#define BLASSCOPE_CBLAS_TRSM(fname, Real, S, precision)                                                         \
  BLASSCOPE_EXPORT void fname(int order, int side, int uplo, int trans, int diag, int m, int n, S alpha,        \
                              const void* a, int lda, void* b, int ldb) {                                       \
    using Fn = void (*)(int, int, int, int, int, int, int, S, const void*, int, void*, int);                    \
    const auto shape = [&](blasscope::record::CallRecord& c) {                                                  \
      c.m = m, c.n = n, c.lda = lda, c.ldb = ldb;                                                               \
      c.side_uplo = side == 141 ? 'L' : 'R';                                                                    \
      c.alpha = blasscope::preload::scalar_value<Real>(alpha);                                                  \
      c.flags |= blasscope::preload::cblas_flags(trans, Precision::precision);                                  \
      c.align_a = blasscope::preload::alignment_code(a);                                                        \
    };                                                                                                          \
    const Fn real = BLASSCOPE_REAL(Fn, #fname); /* here: the return address must be this function's */          \
    blasscope::preload::cblas_call(Routine::Trsm, Precision::precision, order, shape,                           \
                                   [&] { real(order, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb); }); \
  }
BLASSCOPE_CBLAS_TRSM(cblas_strsm, float, float, S)
BLASSCOPE_CBLAS_TRSM(cblas_dtrsm, double, double, D)
BLASSCOPE_CBLAS_TRSM(cblas_ctrsm, float, const void*, C)
BLASSCOPE_CBLAS_TRSM(cblas_ztrsm, double, const void*, Z)
