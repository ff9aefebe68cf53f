// The cholesky, lu, solve and eigh ops: POTRF, GETRF, GESV and SYEVD/SYEV called as NumPy,
// SciPy and PyTorch call them, so a capture of a failing call replays its INFO.
#include <algorithm>
#include <cstring>

#include "exec/cpu_ops.h"
#include "exec/lapack_support.h"
#include "kernels/lapack_factorisations.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

void require_square(const HostTensor& a, const char* op) {
  if (a.rows() != a.cols()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(op) + " needs a square matrix; '" + a.name() +
                                                   "' has shape " + format_shape(a.shape()));
  }
}

// The factor NumPy returns: the `uplo` triangle of the working copy, the other one zero.
void keep_triangle(HostTensor& factor, char uplo) {
  const std::size_t size = item_size(factor.dtype());
  for (std::uint64_t j = 0; j < factor.cols(); ++j) {
    for (std::uint64_t i = 0; i < factor.rows(); ++i) {
      if (uplo == 'L' ? i < j : i > j) std::memset(factor.data() + factor.offset_of(i, j), 0, size);
    }
  }
}

// A result made from the working copy's first `rows` rows.
HostTensor& result_of(RunState& state, const std::string& name, const HostTensor& work, std::uint64_t rows,
                      std::uint64_t cols) {
  HostTensor& out = state.create(name, work.dtype(), {rows, cols}, MemoryOrder::Fortran);
  const std::size_t size = item_size(work.dtype());
  for (std::uint64_t j = 0; j < cols; ++j) {
    for (std::uint64_t i = 0; i < rows; ++i)
      std::memcpy(out.data() + out.offset_of(i, j), work.data() + work.offset_of(i, j), size);
  }
  return out;
}

}  // namespace

KernelRecord run_factor_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const char* op_name = op.kind == OpKind::Cholesky ? "cholesky"
                        : op.kind == OpKind::Lu     ? "lu"
                        : op.kind == OpKind::Solve  ? "solve"
                                                    : "eigh";
  const HostTensor& a = input_tensor(state, op.a);
  require_real_matrix(a, op_name);
  if (op.kind != OpKind::Lu) require_square(a, op_name);
  const HostTensor* b = op.kind == OpKind::Solve ? &input_tensor(state, op.b) : nullptr;
  if (b) require_right_hand_side(a, *b, op_name);
  const FactorDriver driver = factor_driver_named(op.driver).value_or(FactorDriver::Potrf);
  describe_lapack_call(record, a, driver_name(driver));
  ScopedTemporaries temps(state);
  const std::string prefix = "op" + std::to_string(op.index) + ".";
  HostTensor& work_a = column_major_copy(state, temps, a, a.rows(), prefix + "a");
  HostTensor* work_b = b ? &column_major_copy(state, temps, *b, b->rows(), prefix + "b") : nullptr;
  const std::int64_t nrhs = b ? (b->is_matrix() ? static_cast<std::int64_t>(b->cols()) : 1) : 0;
  if (b) record.k = nrhs;
  HostTensor* w = op.kind == OpKind::Eigh ? &state.create(op.out, a.dtype(), {a.rows()}, MemoryOrder::C) : nullptr;
  record.operands = {operand_record("a", a, static_cast<std::int64_t>(work_a.leading_dim()))};
  if (b) record.operands.push_back(operand_record("b", *b, static_cast<std::int64_t>(work_b->leading_dim())));
  record.bytes_touched = (a.element_count() + (b ? b->element_count() : 0)) * item_size(a.dtype());
  emit_kernel_started(state, record);
  XerblaCapture capture = streamed_xerbla(state, record.op);
  int info = 0;
  time_repeats(record, 1, [&] {
    if (a.dtype() == DType::Float64) {
      info = factor_run<double>(driver, op.uplo, op.compute_uv, *record.m, *record.n, nrhs,
                                reinterpret_cast<double*>(work_a.data()),
                                work_b ? reinterpret_cast<double*>(work_b->data()) : nullptr,
                                w ? reinterpret_cast<double*>(w->data()) : nullptr);
    } else {
      info = factor_run<float>(driver, op.uplo, op.compute_uv, *record.m, *record.n, nrhs,
                               reinterpret_cast<float*>(work_a.data()),
                               work_b ? reinterpret_cast<float*>(work_b->data()) : nullptr,
                               w ? reinterpret_cast<float*>(w->data()) : nullptr);
    }
  });
  finish_lapack(state, record, capture, info, argument_names(driver),
                info > 0 ? positive_info_meaning(driver, info) : std::string());
  switch (op.kind) {
    case OpKind::Eigh:
      record_output(record, "out", *w);
      if (op.compute_uv) record_output(record, "v", result_of(state, op.out + "_v", work_a, a.rows(), a.cols()));
      break;
    case OpKind::Solve:
      if (info == 0)
        record_output(record, "out", result_of(state, op.out, *work_b, b->rows(), static_cast<std::uint64_t>(nrhs)));
      break;
    default: {
      // The factor as LAPACK left it (a partial one after INFO > 0, as NumPy never shows).
      HostTensor& factor = result_of(state, op.out, work_a, a.rows(), a.cols());
      if (op.kind == OpKind::Cholesky) keep_triangle(factor, op.uplo);
      record_output(record, "out", factor);
    }
  }
  return record;
}

}  // namespace blasscope::core
