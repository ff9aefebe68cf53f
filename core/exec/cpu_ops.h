#pragma once

#include "exec/run_state.h"
#include "results/kernel_record.h"
#include "workload/workload.h"

namespace blasscope::core {

// Each runs one op on the CPU backend and returns its record. They throw OpRejected for
// an op that cannot run (shape, dtype) and OutOfBudget when memory does not fit.
KernelRecord run_gemm_op(const OpSpec& op, RunState& state);
KernelRecord run_lascl_op(const OpSpec& op, RunState& state);
KernelRecord run_svd_op(const OpSpec& op, RunState& state);
KernelRecord run_lstsq_op(const OpSpec& op, RunState& state);
// cholesky, lu, solve, lu_solve and eigh
KernelRecord run_factor_op(const OpSpec& op, RunState& state);
KernelRecord run_cast_op(const OpSpec& op, RunState& state);
// gemv, syrk and trsm
KernelRecord run_blas_call_op(const OpSpec& op, RunState& state);

}  // namespace blasscope::core
