#pragma once

#include "tensor/dtype.h"

namespace blasscope::core {

// NumPy's result_type for the dtypes BLAScope computes with (bfloat16 as ml_dtypes
// promotes it: with float16 it gives float32).
DType promote_types(DType a, DType b);

// The dtype a CPU GEMM computes a promoted dtype in: float16 and bfloat16 (without
// cblas_sbgemm) in float32, integers and bool in float64.
DType blas_compute_dtype(DType promoted, bool has_sbgemm);

}  // namespace blasscope::core
