#include "exec/lascl_prep.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "analysis/stats_kernels.h"
#include "analysis/tensor_stats.h"
#include "kernels/dlascl.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

// DLANGE('M'): the largest absolute value, NaN when any value is NaN (as gesdd computes it).
double max_abs(const HostTensor& t) {
  const TensorStats s = summarize_values(t);
  if (s.nan > 0) return std::numeric_limits<double>::quiet_NaN();
  if (s.posinf + s.neginf > 0) return std::numeric_limits<double>::infinity();
  if (!s.min) return 0;
  return std::max(std::abs(s.min->as_double()), std::abs(s.max->as_double()));
}

}  // namespace

PreparedLascl prepare_lascl(const OpSpec& op, RunState& state, KernelRecord& record, const std::string& out_name) {
  HostTensor* a = &input_tensor(state, op.a);
  if (a->dtype() != DType::Float64 && a->dtype() != DType::Float32) {
    throw OpRejected(ErrorKind::UnsupportedDtype, "dlascl scales float64 (DLASCL) or float32 (SLASCL) matrices; '" +
                                                      op.a + "' is " + dtype_name(a->dtype()));
  }
  if (a->shape().size() > 2) {
    throw OpRejected(ErrorKind::ShapeMismatch,
                     "dlascl needs a matrix; '" + op.a + "' has shape " + format_shape(a->shape()));
  }
  // LAPACK is column-major: a C-order matrix is its transpose there, whose lower triangle
  // is our upper one. An upper Hessenberg shape has no such mirror.
  PreparedLascl p;
  p.type = op.scale_type;
  const bool c_order = a->order() == MemoryOrder::C && a->is_matrix();
  if (c_order && p.type == 'H') {
    throw OpRejected(ErrorKind::ShapeMismatch,
                     "type H (upper Hessenberg) needs a Fortran-order matrix; '" + op.a + "' is C-order");
  }
  if (c_order && (p.type == 'L' || p.type == 'U')) p.type = p.type == 'L' ? 'U' : 'L';
  p.m = static_cast<std::int64_t>(c_order ? a->cols() : a->rows());
  p.n = static_cast<std::int64_t>(c_order ? a->rows() : a->cols());
  p.lda = op.lda.value_or(static_cast<std::int64_t>(a->is_matrix() ? a->leading_dim() : a->rows()));
  p.cfrom = op.cfrom_norm ? max_abs(*a) : op.cfrom;
  if (out_name != op.a) {
    HostTensor& copy = state.create(out_name, a->dtype(), a->shape(), a->order());
    copy_converted(*a, copy);
    a = &copy;
  }
  p.matrix = a;
  record.dtype = a->dtype();
  record.m = p.m;
  record.n = p.n;
  record.operands = {operand_record("a", *a, p.lda)};
  record.operands[0].tensor = op.a;  // the values are op.a's, even when scaled in a copy
  record.bytes_touched = 2 * a->element_count() * item_size(a->dtype());
  return p;
}

std::string lascl_argument_meaning(const PreparedLascl& p, int parameter) {
  std::string meaning = lascl_parameter_name(parameter);
  if (parameter == 4) meaning += " = " + format_scalar(Scalar::from_float(p.cfrom)) + " (must be nonzero and not NaN)";
  if (parameter == 9) {
    meaning += " = " + std::to_string(p.lda) +
               " (must be at least max(1, M) = " + std::to_string(std::max<std::int64_t>(1, p.m)) + ")";
  }
  return meaning;
}

void finish_lascl_record(KernelRecord& record, const PreparedLascl& p) {
  if (record.seconds && *record.seconds > 0) {
    record.gbytes_per_second = static_cast<double>(record.bytes_touched) / *record.seconds / 1e9;
  }
  const auto [nan, inf] = count_nonfinite(*p.matrix);
  record.output_nan = nan;
  record.output_inf = inf;
}

std::function<void()> lascl_restorer(RunState& state, ScopedTemporaries& temporaries, const PreparedLascl& p,
                                     int repeat, const std::string& name) {
  if (repeat <= 1) return {};
  HostTensor* a = p.matrix;
  HostTensor* saved = &state.create(temporaries.add(name), a->dtype(), a->shape(), a->order());
  std::memcpy(saved->data(), a->data(), a->storage_bytes());
  return [a, saved] { std::memcpy(a->data(), saved->data(), a->storage_bytes()); };
}

}  // namespace blasscope::core
