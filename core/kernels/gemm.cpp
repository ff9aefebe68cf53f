#include "kernels/gemm.h"

#include <cblas.h>
#include <dlfcn.h>

#include <complex>

namespace blasscope::core {
namespace {

using SbgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                          const std::uint16_t*, blasint, const std::uint16_t*, blasint, float, float*, blasint);

// cblas_sbgemm exists only in OpenBLAS builds with BUILD_BFLOAT16; look it up at run time.
SbgemmFn find_sbgemm() {
  static const auto fn = reinterpret_cast<SbgemmFn>(::dlsym(RTLD_DEFAULT, "cblas_sbgemm"));
  return fn;
}

CBLAS_TRANSPOSE trans(bool t) {
  return t ? CblasTrans : CblasNoTrans;
}

}  // namespace

GemmCall plan_gemm(const MatrixView& a, bool trans_a, const MatrixView& b, bool trans_b, const MatrixView& c,
                   const GemmOverrides& overrides) {
  GemmCall call;
  call.row_major = c.order == MemoryOrder::C;
  const MemoryOrder call_order = c.order;
  call.trans_a = trans_a != (a.order != call_order);
  call.trans_b = trans_b != (b.order != call_order);
  call.m = static_cast<std::int64_t>(c.rows);
  call.n = static_cast<std::int64_t>(c.cols);
  call.k = static_cast<std::int64_t>(trans_a ? a.rows : a.cols);
  call.lda = overrides.lda.value_or(static_cast<std::int64_t>(a.ld));
  call.ldb = overrides.ldb.value_or(static_cast<std::int64_t>(b.ld));
  call.ldc = overrides.ldc.value_or(static_cast<std::int64_t>(c.ld));
  return call;
}

std::string gemm_kernel_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "cblas_sgemm";
    case DType::Float64: return "cblas_dgemm";
    case DType::Complex64: return "cblas_cgemm";
    case DType::Complex128: return "cblas_zgemm";
    case DType::BFloat16: return "cblas_sbgemm";
    default: return "none";
  }
}

bool gemm_supported(DType dtype, std::string& reason) {
  switch (dtype) {
    case DType::Float32:
    case DType::Float64:
    case DType::Complex64:
    case DType::Complex128: return true;
    case DType::BFloat16:
      if (find_sbgemm() != nullptr) return true;
      reason = "this OpenBLAS build has no cblas_sbgemm (it was built without BUILD_BFLOAT16)";
      return false;
    case DType::Float16: reason = "CPU BLAS libraries have no float16 GEMM"; return false;
    default:
      reason = "BLAS has no GEMM for " + std::string(name(dtype)) + " (only float32/64 and complex64/128)";
      return false;
  }
}

void call_gemm(DType dtype, const GemmCall& c, double alpha, double beta, const void* a, const void* b, void* out) {
  const CBLAS_ORDER order = c.row_major ? CblasRowMajor : CblasColMajor;
  const auto m = static_cast<blasint>(c.m), n = static_cast<blasint>(c.n), k = static_cast<blasint>(c.k);
  const auto lda = static_cast<blasint>(c.lda), ldb = static_cast<blasint>(c.ldb), ldc = static_cast<blasint>(c.ldc);
  switch (dtype) {
    case DType::Float32:
      cblas_sgemm(order, trans(c.trans_a), trans(c.trans_b), m, n, k, static_cast<float>(alpha),
                  static_cast<const float*>(a), lda, static_cast<const float*>(b), ldb, static_cast<float>(beta),
                  static_cast<float*>(out), ldc);
      return;
    case DType::Float64:
      cblas_dgemm(order, trans(c.trans_a), trans(c.trans_b), m, n, k, alpha, static_cast<const double*>(a), lda,
                  static_cast<const double*>(b), ldb, beta, static_cast<double*>(out), ldc);
      return;
    case DType::Complex64: {
      const std::complex<float> ca(static_cast<float>(alpha)), cb(static_cast<float>(beta));
      cblas_cgemm(order, trans(c.trans_a), trans(c.trans_b), m, n, k, &ca, a, lda, b, ldb, &cb, out, ldc);
      return;
    }
    case DType::Complex128: {
      const std::complex<double> ca(alpha), cb(beta);
      cblas_zgemm(order, trans(c.trans_a), trans(c.trans_b), m, n, k, &ca, a, lda, b, ldb, &cb, out, ldc);
      return;
    }
    case DType::BFloat16:
      if (auto fn = find_sbgemm()) {
        fn(order, trans(c.trans_a), trans(c.trans_b), m, n, k, static_cast<float>(alpha),
           static_cast<const std::uint16_t*>(a), lda, static_cast<const std::uint16_t*>(b), ldb,
           static_cast<float>(beta), static_cast<float*>(out), ldc);
      }
      return;
    default: return;
  }
}

std::string gemm_parameter_meaning(bool row_major, int parameter) {
  struct Meaning {
    int parameter;
    const char* col_major;
    const char* row_major;
  };
  static constexpr Meaning kMeanings[] = {
      {1, "TRANSA: transpose flag of A", "TRANSA of the swapped call: the transpose flag of B"},
      {2, "TRANSB: transpose flag of B", "TRANSB of the swapped call: the transpose flag of A"},
      {3, "M: rows of C", "M of the swapped call: the number of columns of C (n)"},
      {4, "N: columns of C", "N of the swapped call: the number of rows of C (m)"},
      {5, "K: the inner dimension", "K: the inner dimension"},
      {8, "LDA: leading dimension of A", "LDA of the swapped call: the leading dimension of B (ldb)"},
      {10, "LDB: leading dimension of B", "LDB of the swapped call: the leading dimension of A (lda)"},
      {13, "LDC: leading dimension of C", "LDC: leading dimension of C"},
  };
  for (const auto& m : kMeanings) {
    if (m.parameter == parameter) return row_major ? m.row_major : m.col_major;
  }
  return "parameter " + std::to_string(parameter);
}

}  // namespace blasscope::core
