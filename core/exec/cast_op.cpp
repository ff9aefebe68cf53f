// The cast op: astype with the overflow a narrowing cast causes counted.
#include <algorithm>
#include <cmath>

#include "exec/cpu_ops.h"
#include "exec/op_support.h"
#include "tensor/element_codec.h"

namespace blasscope::core {
namespace {

// Largest relative error a correctly rounded cast into `dtype` makes on a normal value;
// 0 for integer targets (their rounding is not relative).
double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::Float16: return std::ldexp(1.0, -11);
    case DType::BFloat16: return std::ldexp(1.0, -8);
    case DType::Float32:
    case DType::Complex64: return std::ldexp(1.0, -24);
    case DType::Float64:
    case DType::Complex128: return std::ldexp(1.0, -53);
    default: return 0;
  }
}

}  // namespace

KernelRecord run_cast_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  record.kernel = "cast";
  const HostTensor& a = input_tensor(state, op.a);
  record.dtype = op.cast_to;
  record.casts.push_back(op.a + ": " + dtype_name(a.dtype()) + " -> " + dtype_name(op.cast_to));
  record.operands = {operand_record("a", a, 0)};
  HostTensor& out = state.create(op.out, op.cast_to, a.shape(), a.order());
  record.bytes_touched = a.element_count() * (item_size(a.dtype()) + item_size(op.cast_to));
  emit_kernel_started(state, record);
  const double roundoff = unit_roundoff(op.cast_to);
  std::uint64_t overflow = 0, inexact = 0;
  double overflow_max = 0, worst = 0;
  time_repeats(record, 1, [&] {
    const std::uint64_t count = a.element_count();
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto v = load_element(a.dtype(), a.data() + a.offset_of_flat(i));
      std::byte* dst = out.data() + out.offset_of_flat(i);
      store_element(op.cast_to, dst, v);
      const auto back = load_element(op.cast_to, dst);
      const bool was_finite = std::isfinite(v.real()) && std::isfinite(v.imag());
      if (!was_finite) continue;
      if (!(std::isfinite(back.real()) && std::isfinite(back.imag()))) {
        ++overflow;
        overflow_max = std::max(overflow_max, std::abs(v));
        continue;
      }
      // Beyond rounding: more relative change than the target's unit roundoff allows
      // (values that fell into the target's subnormal range, or to zero).
      if (roundoff > 0 && std::abs(v) > 0) {
        const double relative = std::abs(back - v) / std::abs(v);
        if (relative > roundoff * (1 + 1e-12)) {
          ++inexact;
          worst = std::max(worst, relative);
        }
      }
    }
  });
  record.cast_overflow = overflow;
  if (overflow > 0) record.cast_overflow_max = overflow_max;
  record.cast_inexact = inexact;
  if (inexact > 0) record.cast_max_relative_error = worst;
  record.operands.push_back(operand_record("out", out, 0, false));
  fill_value_summary(record.operands.back(), out);
  record.output_nan = record.operands.back().nan;
  record.output_inf = record.operands.back().inf;
  if (*record.seconds > 0) record.gbytes_per_second = static_cast<double>(record.bytes_touched) / *record.seconds / 1e9;
  return record;
}

}  // namespace blasscope::core
