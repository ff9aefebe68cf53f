// The gemm op on the CPU: one instrumented CBLAS call.
#include <cstring>

#include "exec/cpu_ops.h"
#include "exec/gemm_prep.h"

namespace blasscope::core {

KernelRecord run_gemm_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  ScopedTemporaries temporaries(state);
  const PreparedGemm g = prepare_gemm(op, state, temporaries, record, cpu_gemm_traits(), op.out);
  record.kernel = gemm_kernel_name(g.dtype);
  emit_kernel_started(state, record);
  // With beta != 0 each repetition must start from the same C.
  HostTensor* saved = nullptr;
  if (op.beta != 0 && op.repeat > 1) {
    saved = &state.create(temporaries.add(op.out + ".saved"), g.out_dtype, g.out->shape(), g.out->order());
    std::memcpy(saved->data(), g.out->data(), g.out->storage_bytes());
  }
  XerblaCapture capture;
  time_repeats(
      record, op.repeat,
      [&] { call_gemm(g.dtype, g.call, op.alpha, op.beta, g.a->data(), g.b->data(), g.out->data()); },
      saved ? std::function<void()>([&] { std::memcpy(g.out->data(), saved->data(), g.out->storage_bytes()); })
            : std::function<void()>());
  record_argument_errors(state, record, capture.calls(),
                         [&](int p) { return gemm_parameter_meaning(g.call.row_major, p); });
  if (record.xerbla.empty()) finish_gemm_record(record, g);
  return record;
}

}  // namespace blasscope::core
