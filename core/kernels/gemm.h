#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tensor/dtype.h"

namespace blasscope::core {

// A matrix as stored: logical rows x cols, memory order and leading dimension.
struct MatrixView {
  const std::byte* data = nullptr;
  DType dtype = DType::Float64;
  std::uint64_t rows = 0, cols = 0;
  MemoryOrder order = MemoryOrder::C;
  std::uint64_t ld = 0;
};

// Exactly what goes to cblas_?gemm. The call takes C's memory order; an operand stored in
// the other order is passed as its transpose with its own leading dimension, so strided,
// Fortran-order and padded tensors run without copies.
struct GemmCall {
  bool row_major = true;
  bool trans_a = false, trans_b = false;  // after accounting for each operand's order
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
};

struct GemmOverrides {
  std::optional<std::int64_t> lda, ldb, ldc;
};

// c is m x n with m = rows of op(A), n = cols of op(B), k = cols of op(A); the caller has
// checked that the shapes agree.
GemmCall plan_gemm(const MatrixView& a, bool trans_a, const MatrixView& b, bool trans_b, const MatrixView& c,
                   const GemmOverrides& overrides = {});

// "cblas_dgemm", "cblas_sbgemm", ...
std::string gemm_kernel_name(DType dtype);
// Whether the CPU BLAS has a GEMM for this dtype; if not, `reason` says why.
bool gemm_supported(DType dtype, std::string& reason);

// Calls CBLAS. For bfloat16 inputs C is float32 (cblas_sbgemm's contract).
void call_gemm(DType dtype, const GemmCall& call, double alpha, double beta, const void* a, const void* b, void* c);

// What a reported xerbla parameter number of ?GEMM means for the user's call: the CBLAS
// row-major interface swaps A and B, so OpenBLAS's "parameter 8" (LDA) is the user's ldb.
std::string gemm_parameter_meaning(bool row_major, int parameter);

}  // namespace blasscope::core
