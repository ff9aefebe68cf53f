#include "kernels/blas_calls.h"

#include <cblas.h>

namespace blasscope::core {
namespace {

CBLAS_ORDER order(bool row_major) {
  return row_major ? CblasRowMajor : CblasColMajor;
}
CBLAS_TRANSPOSE transpose(bool t) {
  return t ? CblasTrans : CblasNoTrans;
}
CBLAS_UPLO triangle(char uplo) {
  return uplo == 'U' ? CblasUpper : CblasLower;
}
blasint as_int(std::int64_t v) {
  return static_cast<blasint>(v);
}

}  // namespace

void call_gemv(DType dtype, const GemvCall& c, double alpha, double beta, const void* a, const void* x, void* y) {
  if (dtype == DType::Float32) {
    cblas_sgemv(order(c.row_major), transpose(c.trans), as_int(c.m), as_int(c.n), static_cast<float>(alpha),
                static_cast<const float*>(a), as_int(c.lda), static_cast<const float*>(x), as_int(c.incx),
                static_cast<float>(beta), static_cast<float*>(y), as_int(c.incy));
  } else {
    cblas_dgemv(order(c.row_major), transpose(c.trans), as_int(c.m), as_int(c.n), alpha, static_cast<const double*>(a),
                as_int(c.lda), static_cast<const double*>(x), as_int(c.incx), beta, static_cast<double*>(y),
                as_int(c.incy));
  }
}

void call_syrk(DType dtype, const SyrkCall& c, double alpha, double beta, const void* a, void* out) {
  if (dtype == DType::Float32) {
    cblas_ssyrk(order(c.row_major), triangle(c.uplo), transpose(c.trans), as_int(c.n), as_int(c.k),
                static_cast<float>(alpha), static_cast<const float*>(a), as_int(c.lda), static_cast<float>(beta),
                static_cast<float*>(out), as_int(c.ldc));
  } else {
    cblas_dsyrk(order(c.row_major), triangle(c.uplo), transpose(c.trans), as_int(c.n), as_int(c.k), alpha,
                static_cast<const double*>(a), as_int(c.lda), beta, static_cast<double*>(out), as_int(c.ldc));
  }
}

void call_trsm(DType dtype, const TrsmCall& c, double alpha, const void* a, void* b) {
  const CBLAS_SIDE side = c.side == 'R' ? CblasRight : CblasLeft;
  const CBLAS_DIAG diag = c.unit_diagonal ? CblasUnit : CblasNonUnit;
  if (dtype == DType::Float32) {
    cblas_strsm(order(c.row_major), side, triangle(c.uplo), transpose(c.trans), diag, as_int(c.m), as_int(c.n),
                static_cast<float>(alpha), static_cast<const float*>(a), as_int(c.lda), static_cast<float*>(b),
                as_int(c.ldb));
  } else {
    cblas_dtrsm(order(c.row_major), side, triangle(c.uplo), transpose(c.trans), diag, as_int(c.m), as_int(c.n), alpha,
                static_cast<const double*>(a), as_int(c.lda), static_cast<double*>(b), as_int(c.ldb));
  }
}

}  // namespace blasscope::core
