#pragma once

// GEMV, SYRK and TRSM as one CBLAS call each, arguments exactly as planned: the replay of a
// recorded call passes what the program passed, an illegal leading dimension or stride too.
#include <cstdint>

#include "tensor/dtype.h"

namespace blasscope::core {

struct GemvCall {
  bool row_major = false, trans = false;
  std::int64_t m = 0, n = 0;  // A is m x n as stored (before TRANS)
  std::int64_t lda = 0, incx = 1, incy = 1;
};

struct SyrkCall {
  bool row_major = false, trans = false;
  char uplo = 'L';
  std::int64_t n = 0, k = 0;  // C is n x n; op(A) is n x k
  std::int64_t lda = 0, ldc = 0;
};

struct TrsmCall {
  bool row_major = false, trans = false, unit_diagonal = false;
  char side = 'L', uplo = 'L';
  std::int64_t m = 0, n = 0;  // B is m x n; A is m x m (side L) or n x n (side R)
  std::int64_t lda = 0, ldb = 0;
};

// float32 and float64 only (the caller checked): y, C and B are overwritten.
void call_gemv(DType dtype, const GemvCall& call, double alpha, double beta, const void* a, const void* x, void* y);
void call_syrk(DType dtype, const SyrkCall& call, double alpha, double beta, const void* a, void* c);
void call_trsm(DType dtype, const TrsmCall& call, double alpha, const void* a, void* b);

}  // namespace blasscope::core
