// The dlascl op: BLAScope's ?LASCL (bit-identical to LAPACK's) on a float32/float64 matrix.
#include <cmath>
#include <cstring>
#include <limits>

#include "analysis/stats_kernels.h"
#include "exec/cpu_ops.h"
#include "exec/op_support.h"
#include "kernels/dlascl.h"
#include "report/inspect_text.h"

namespace blasscope::core {
namespace {

// DLANGE('M'): the largest absolute value, NaN when any value is NaN (as gesdd computes it).
double max_abs(const HostTensor& t) {
  const TensorStats s = scan_values(t.dtype(), t.data(), t.storage_bytes() / item_size(t.dtype()), 0);
  if (s.nan > 0) return std::numeric_limits<double>::quiet_NaN();
  if (s.posinf + s.neginf > 0) return std::numeric_limits<double>::infinity();
  if (!s.min) return 0;
  return std::max(std::abs(s.min->as_double()), std::abs(s.max->as_double()));
}

template <typename T>
int scale(char type, double cfrom, double cto, std::int64_t m, std::int64_t n, HostTensor& t, std::int64_t lda) {
  return blasscope_lascl<T>(type, static_cast<T>(cfrom), static_cast<T>(cto), m, n, reinterpret_cast<T*>(t.data()),
                            lda);
}

}  // namespace

KernelRecord run_lascl_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  HostTensor* a = &input_tensor(state, op.a);
  if (a->dtype() != DType::Float64 && a->dtype() != DType::Float32) {
    throw OpRejected("unsupported-dtype", "dlascl scales float64 (DLASCL) or float32 (SLASCL) matrices; '" + op.a +
                                              "' is " + dtype_name(a->dtype()));
  }
  if (a->shape().size() > 2) {
    throw OpRejected("shape-mismatch", "dlascl needs a matrix; '" + op.a + "' has shape " + format_shape(a->shape()));
  }
  // LAPACK is column-major: a C-order matrix is its transpose there, whose lower triangle
  // is our upper one. An upper Hessenberg shape has no such mirror.
  char type = op.scale_type;
  const bool c_order = a->order() == MemoryOrder::C && a->is_matrix();
  if (c_order && type == 'H') {
    throw OpRejected("shape-mismatch",
                     "type H (upper Hessenberg) needs a Fortran-order matrix; '" + op.a + "' is C-order");
  }
  if (c_order && (type == 'L' || type == 'U')) type = type == 'L' ? 'U' : 'L';
  const std::int64_t m = static_cast<std::int64_t>(c_order ? a->cols() : a->rows());
  const std::int64_t n = static_cast<std::int64_t>(c_order ? a->rows() : a->cols());
  const std::int64_t lda = op.lda.value_or(static_cast<std::int64_t>(a->is_matrix() ? a->leading_dim() : a->rows()));
  const double cfrom = op.cfrom_norm ? max_abs(*a) : op.cfrom;
  if (op.out != op.a) {
    HostTensor& copy = state.create(op.out, a->dtype(), a->shape(), a->order());
    copy_converted(*a, copy);
    a = &copy;
  }
  const bool is_double = a->dtype() == DType::Float64;
  record.kernel = is_double ? "blasscope_dlascl" : "blasscope_slascl";
  record.dtype = dtype_name(a->dtype());
  record.m = m;
  record.n = n;
  record.operands = {operand_record("a", *a, lda)};
  record.operands[0].tensor = op.a;  // the values are op.a's, even when scaled in a copy
  record.bytes_touched = 2 * a->element_count() * item_size(a->dtype());
  emit_kernel_started(state, record);
  ScopedTemporaries temporaries(state);
  HostTensor* saved = nullptr;
  if (op.repeat > 1) {
    saved =
        &state.create(temporaries.add("op" + std::to_string(op.index) + ".saved"), a->dtype(), a->shape(), a->order());
    std::memcpy(saved->data(), a->data(), a->storage_bytes());
  }
  XerblaCapture capture;
  int info = 0;
  time_repeats(
      record, op.repeat,
      [&] {
        info = is_double ? scale<double>(type, cfrom, op.cto, m, n, *a, lda)
                         : scale<float>(type, cfrom, op.cto, m, n, *a, lda);
      },
      saved ? std::function<void()>([&] { std::memcpy(a->data(), saved->data(), a->storage_bytes()); })
            : std::function<void()>());
  record.info = info;
  record_argument_errors(state, record, capture.calls(), [&](int p) {
    std::string meaning = lascl_parameter_name(p);
    if (p == 4) meaning += " = " + format_scalar(Scalar::from_float(cfrom)) + " (must be nonzero and not NaN)";
    if (p == 9)
      meaning += " = " + std::to_string(lda) +
                 " (must be at least max(1, M) = " + std::to_string(std::max<std::int64_t>(1, m)) + ")";
    return meaning;
  });
  if (info == 0 && *record.seconds > 0) {
    record.gbytes_per_second = static_cast<double>(record.bytes_touched) / *record.seconds / 1e9;
    const auto [nan, inf] = count_nonfinite(*a);
    record.output_nan = nan;
    record.output_inf = inf;
  }
  return record;
}

}  // namespace blasscope::core
