#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "record/call_record.h"

namespace blasscope::record {

// The CPU routines the preload library records, for messages (each in all four precisions).
inline constexpr const char* kRecordedRoutines =
    "GEMM, GEMV, SYRK, TRSM, GESDD, GESVD, GELSD, GELSY, GELSS, GELS, SYEVD, SYEV, SYEVR, GEEV, GEQRF, ORGQR, "
    "GESV, GETRF, GETRS, GETRI, POTRF, POTRS, POSV, TRTRS, SYSV, HESV, SYTRF, HETRF, GEES, SYGVD, SYGV, GGES, "
    "GEHRD, GEQP3 and ?LASCL";

// LAPACK's name for a call: the precision letter and the routine ("dgemm", "zheevd").
std::string routine_name(Routine routine, Precision precision);
// The inverse of routine_name; nullopt for a name that is not one.
std::optional<std::pair<Routine, Precision>> parse_routine_name(const std::string& name);
// The dtype it computes in: float32, float64, complex64, complex128.
const char* precision_dtype(Precision precision);
// The dtype of a call of `routine` ("" where the call itself says: cublasGemmEx).
const char* precision_dtype(Precision precision, Routine routine);
// Whether it is a LAPACK routine (it has INFO) rather than BLAS.
bool is_lapack(Routine routine);
// Whether it is a cuBLAS or CUDA runtime call (its `info` is a status).
bool is_gpu(Routine routine);
// cuBLAS's GEMMs (M, N, K; the strided-batched ones keep their batch count in `beta`).
bool is_cublas_gemm(Routine routine);
bool is_strided_batched(Routine routine);
// cuBLAS's *Ex GEMMs take their data type as an argument (cudaDataType: CUDA_R_16F, ...): the
// preload keeps 1 + its value in CallRecord::side_uplo.
bool has_data_type_argument(Routine routine);
// A cudaDataType's dtype ("float16", "bfloat16", "float32", ...), "" for one BLAScope does not
// name; and back (-1 for none).
const char* cuda_data_type_dtype(int type);
int cuda_data_type_of(std::string_view dtype);
// The dtype of one call: its routine's, or for a *Ex GEMM the type it was given.
const char* call_dtype(const CallRecord& call);

}  // namespace blasscope::record
