// The dlascl op on the CPU: BLAScope's ?LASCL, bit-identical to LAPACK's.
#include "exec/cpu_ops.h"
#include "exec/lascl_prep.h"
#include "kernels/dlascl.h"

namespace blasscope::core {
namespace {

template <typename T>
int scale(const PreparedLascl& p, double cto) {
  return blasscope_lascl<T>(p.type, static_cast<T>(p.cfrom), static_cast<T>(cto), p.m, p.n,
                            reinterpret_cast<T*>(p.matrix->data()), p.lda);
}

}  // namespace

KernelRecord run_lascl_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const PreparedLascl p = prepare_lascl(op, state, record, op.out);
  const bool is_double = p.matrix->dtype() == DType::Float64;
  record.kernel = is_double ? "blasscope_dlascl" : "blasscope_slascl";
  emit_kernel_started(state, record);
  ScopedTemporaries temporaries(state);
  const auto restore = lascl_restorer(state, temporaries, p, op.repeat, op.out + ".saved");
  XerblaCapture capture;
  int info = 0;
  time_repeats(
      record, op.repeat, [&] { info = is_double ? scale<double>(p, op.cto) : scale<float>(p, op.cto); }, restore);
  record.info = info;
  record_argument_errors(state, record, capture.calls(), [&](int q) { return lascl_argument_meaning(p, q); });
  if (info == 0) finish_lascl_record(record, p);
  return record;
}

}  // namespace blasscope::core
