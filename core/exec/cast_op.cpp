// The cast op: astype with the overflow a narrowing cast causes counted.
#include <cmath>

#include "exec/cpu_ops.h"
#include "exec/op_support.h"
#include "tensor/element_codec.h"

namespace blasscope::core {

KernelRecord run_cast_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  record.kernel = "cast";
  const HostTensor& a = input_tensor(state, op.a);
  record.dtype = dtype_name(op.cast_to);
  record.casts.push_back(op.a + ": " + dtype_name(a.dtype()) + " -> " + dtype_name(op.cast_to));
  record.operands = {operand_record("a", a, 0)};
  HostTensor& out = state.create(op.out, op.cast_to, a.shape(), a.order());
  record.bytes_touched = a.element_count() * (item_size(a.dtype()) + item_size(op.cast_to));
  emit_kernel_started(state, record);
  std::uint64_t overflow = 0;
  time_repeats(record, 1, [&] {
    const std::uint64_t count = a.element_count();
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto v = load_element(a.dtype(), a.data() + a.offset_of_flat(i));
      std::byte* dst = out.data() + out.offset_of_flat(i);
      store_element(op.cast_to, dst, v);
      const auto back = load_element(op.cast_to, dst);
      const bool was_finite = std::isfinite(v.real()) && std::isfinite(v.imag());
      overflow += was_finite && !(std::isfinite(back.real()) && std::isfinite(back.imag()));
    }
  });
  record.cast_overflow = overflow;
  const auto [nan, inf] = count_nonfinite(out);
  record.output_nan = nan;
  record.output_inf = inf;
  if (*record.seconds > 0) record.gbytes_per_second = static_cast<double>(record.bytes_touched) / *record.seconds / 1e9;
  return record;
}

}  // namespace blasscope::core
