// cuBLAS and cudaMalloc, recorded with their statuses. Without a usable driver,
// cublasCreate_v2 returns CUBLAS_STATUS_NOT_INITIALIZED: what TensorFlow reports as
// "Blas GEMM launch failed". Every argument of these calls is an integer, a pointer or a
// 64-bit stride, so the wrappers forward machine words like the Fortran ones.
#include "forwarding.h"
#include "preload_runtime.h"

namespace blasscope::preload {
namespace {

using Status24 = int (*)(BLASSCOPE_W_24);

// cublasOperation_t: N 0, T 1, C 2 (conjugate transpose), CONJG 3 (conjugate only, no
// transpose). An int: the word's upper half is not the caller's.
enum CublasOperation { kOpT = 1, kOpC = 2 };

bool is_trans(Word op) {
  const auto value = static_cast<std::int32_t>(op);
  return value == kOpT || value == kOpC;
}

// cudaDataType (library_types.h): the complex ones, whose CUBLAS_OP_C conjugates.
bool is_complex_data_type(std::int32_t type) {
  return (type >= 4 && type <= 7) || (type >= 9 && type <= 27 && type % 2 == 1);
}

// Words 1..5 of every GEMM: transa, transb, m, n, k (by value). `complex`: the operands are.
void gemm_shape(CallRecord& c, const Word* w, bool complex = false) {
  if (is_trans(w[1])) c.flags |= record::kTransA;
  if (is_trans(w[2])) c.flags |= record::kTransB;
  if (complex && static_cast<std::int32_t>(w[1]) == kOpC) c.flags |= record::kConjA;
  if (complex && static_cast<std::int32_t>(w[2]) == kOpC) c.flags |= record::kConjB;
  c.m = static_cast<int>(w[3]);
  c.n = static_cast<int>(w[4]);
  c.k = static_cast<int>(w[5]);
}

template <int N>
int forward_status(Status24 real, Routine routine, const Word (&w)[N], void (*describe)(CallRecord&, const Word*)) {
  CallScope scope(routine, Precision::S);
  Word a[24] = {};
  for (int i = 0; i < N; ++i) a[i] = w[i];
  if (scope.recording()) {
    scope.call.flags |= record::kHasStatus;
    if (describe) describe(scope.call, a);
    scope.begin();
  }
  const int status = real(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14],
                          a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23]);
  if (scope.recording()) scope.call.info = status;
  return status;
}

}  // namespace
}  // namespace blasscope::preload

using blasscope::preload::CallRecord;
using blasscope::preload::Status24;
using blasscope::preload::Word;
using blasscope::record::Routine;

#define BLASSCOPE_CUBLAS(fname, N, routine, describe)                                                              \
  BLASSCOPE_EXPORT int fname(BLASSCOPE_W_##N) {                                                                    \
    const Word w[N] = {BLASSCOPE_P_##N};                                                                           \
    return blasscope::preload::forward_status<N>(BLASSCOPE_REAL(Status24, #fname), Routine::routine, w, describe); \
  }

namespace {

// (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
void plain_gemm(CallRecord& c, const Word* w) {
  blasscope::preload::gemm_shape(c, w);
  c.lda = static_cast<int>(w[8]), c.ldb = static_cast<int>(w[10]), c.ldc = static_cast<int>(w[13]);
}
// Atype, word 8 of both *Ex GEMMs, as record::call_dtype reads it (1 + the cudaDataType), and
// the shape, told a conjugate transpose where the type is complex.
void gemm_ex_shape(CallRecord& c, const Word* w) {
  const auto type = static_cast<std::int32_t>(w[8]);  // an int: the word's upper half is not the caller's
  if (type >= 0 && type < 255) c.side_uplo = static_cast<std::uint8_t>(1 + type);
  blasscope::preload::gemm_shape(c, w, blasscope::preload::is_complex_data_type(type));
}
// (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo)
void gemm_ex(CallRecord& c, const Word* w) {
  gemm_ex_shape(c, w);
  c.lda = static_cast<int>(w[9]), c.ldb = static_cast<int>(w[12]), c.ldc = static_cast<int>(w[16]);
}
// (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount)
void strided_gemm(CallRecord& c, const Word* w) {
  blasscope::preload::gemm_shape(c, w);
  c.lda = static_cast<int>(w[8]), c.ldb = static_cast<int>(w[11]), c.ldc = static_cast<int>(w[15]);
  c.beta = static_cast<double>(static_cast<int>(w[17]));  // the batch count, kept in beta
}
// (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
//  strideC, batchCount, computeType, algo)
void strided_gemm_ex(CallRecord& c, const Word* w) {
  gemm_ex_shape(c, w);
  c.lda = static_cast<int>(w[9]), c.ldb = static_cast<int>(w[13]), c.ldc = static_cast<int>(w[18]);
  c.beta = static_cast<double>(static_cast<int>(w[20]));
}
// (devPtr, size)
void malloc_size(CallRecord& c, const Word* w) {
  blasscope::record::set_malloc_bytes(c, static_cast<std::uint64_t>(w[1]));
}

}  // namespace

BLASSCOPE_CUBLAS(cublasCreate_v2, 1, CublasCreate, nullptr)
BLASSCOPE_CUBLAS(cublasSgemm_v2, 14, CublasSgemm, plain_gemm)
BLASSCOPE_CUBLAS(cublasDgemm_v2, 14, CublasDgemm, plain_gemm)
BLASSCOPE_CUBLAS(cublasHgemm, 14, CublasHgemm, plain_gemm)
BLASSCOPE_CUBLAS(cublasGemmEx, 19, CublasGemmEx, gemm_ex)
BLASSCOPE_CUBLAS(cublasSgemmStridedBatched, 18, CublasSgemmStridedBatched, strided_gemm)
BLASSCOPE_CUBLAS(cublasDgemmStridedBatched, 18, CublasDgemmStridedBatched, strided_gemm)
BLASSCOPE_CUBLAS(cublasGemmStridedBatchedEx, 23, CublasGemmStridedBatchedEx, strided_gemm_ex)
BLASSCOPE_CUBLAS(cudaMalloc, 2, CudaMalloc, malloc_size)
