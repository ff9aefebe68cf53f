#include "exec/op_support.h"

#include <algorithm>
#include <cmath>

#include "analysis/stats_kernels.h"
#include "analysis/tensor_layout.h"
#include "tensor/element_codec.h"

namespace blasscope::core {

KernelRecord record_for(const OpSpec& op) {
  KernelRecord record;
  record.op = op.index;
  record.op_kind = op.kind;
  return record;
}

TensorStats summarize_values(const HostTensor& t) {
  if (!t.is_padded()) return scan_values(t.dtype(), t.data(), t.element_count(), 0);
  TensorStats stats;
  const bool c_order = t.order() == MemoryOrder::C;
  const std::uint64_t outer = c_order ? t.rows() : t.cols(), inner = c_order ? t.cols() : t.rows();
  for (std::uint64_t o = 0; o < outer; ++o) {
    merge_stats(stats, scan_values(t.dtype(), t.data() + o * t.leading_dim() * item_size(t.dtype()), inner, o * inner));
  }
  return stats;
}

std::pair<std::uint64_t, std::uint64_t> count_nonfinite(const HostTensor& t) {
  if (kind(t.dtype()) != DTypeKind::Float && kind(t.dtype()) != DTypeKind::Complex) return {0, 0};
  const TensorStats stats = summarize_values(t);
  return {stats.nan, stats.posinf + stats.neginf};
}

OperandRecord operand_record(const std::string& role, const HostTensor& tensor, std::int64_t ld, bool scan) {
  OperandRecord r;
  r.role = role;
  r.tensor = tensor.name();
  r.dtype = tensor.dtype();
  r.shape = tensor.shape();
  r.order = tensor.order();
  r.ld = ld;
  r.padded = tensor.is_padded();
  r.alignment = alignment_of(reinterpret_cast<std::uintptr_t>(tensor.data()));
  if (scan) fill_value_summary(r, tensor);
  return r;
}

void fill_value_summary(OperandRecord& record, const HostTensor& tensor) {
  const TensorStats stats = summarize_values(tensor);
  record.nan = stats.nan;
  record.inf = stats.posinf + stats.neginf;
  record.subnormal = stats.subnormal;
  if (stats.min) record.max_abs = std::max(std::abs(stats.min->as_double()), std::abs(stats.max->as_double()));
  if (stats.first_nonfinite) {
    const bool complex = kind(tensor.dtype()) == DTypeKind::Complex;
    record.first_nonfinite =
        unravel_storage_index(*stats.first_nonfinite / (complex ? 2 : 1), tensor.shape(), tensor.order());
  }
}

HostTensor& input_tensor(RunState& state, const std::string& name) {
  if (HostTensor* t = state.find(name)) return *t;
  throw OpRejected(ErrorKind::MissingInput,
                   "input '" + name + "' was never made (it did not fit in memory, or the op that makes it failed)");
}

void time_repeats(KernelRecord& record, int repeat, const std::function<void()>& kernel,
                  const std::function<void()>& restore) {
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < repeat; ++r) {
    if (r > 0 && restore) restore();
    const auto start = Clock::now();
    kernel();
    record.seconds_each.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::vector<double> sorted = record.seconds_each;
  std::sort(sorted.begin(), sorted.end());
  record.seconds = sorted[sorted.size() / 2];
}

void emit_kernel_started(RunState& state, const KernelRecord& record) {
  events::KernelStarted started{record.op, record.op_kind, record.kernel, record.device};
  started.dtype = record.dtype, started.m = record.m, started.n = record.n, started.k = record.k;
  const double m = static_cast<double>(record.m.value_or(1)), n = static_cast<double>(record.n.value_or(1));
  const double k = static_cast<double>(record.k.value_or(1));
  // Rough work estimates, only to scale a time limit: GEMM 2mnk; the LAPACK drivers a few
  // dozen mn min(m, n); DLASCL and casts one pass over the matrix.
  double flops = m * n;
  if (record.op_kind == OpKind::Gemm) flops = 2 * m * n * k;
  if (record.op_kind == OpKind::Svd || record.op_kind == OpKind::Lstsq) flops = 30 * m * n * std::min(m, n);
  if (record.op_kind == OpKind::Eigh) flops = 10 * n * n * n;
  if (record.op_kind == OpKind::Syrk) flops = n * n * k;
  if (record.op_kind == OpKind::Trsm) flops = m * n * std::max(m, n);
  if (record.op_kind == OpKind::Cholesky || record.op_kind == OpKind::Lu || record.op_kind == OpKind::Solve) {
    flops = m * n * std::min(m, n);
  }
  if (record.op_kind == OpKind::LuSolve) flops = 2 * n * n * k;  // two triangular solves of K columns
  started.flops = static_cast<std::uint64_t>(flops);
  for (const auto& o : record.operands) {
    if (o.is_output()) continue;
    started.input_nan += o.nan;
    started.input_inf += o.inf;
  }
  state.publish(started);
}

void record_argument_errors(RunState& state, KernelRecord& record, const std::vector<XerblaCall>& calls,
                            const std::function<std::string(const XerblaCall&)>& meaning, bool published) {
  for (const XerblaCall& call : calls) {
    XerblaRecord x{call.routine, call.parameter, meaning(call)};
    if (!published) state.publish(events::Xerbla{record.op, x});
    record.xerbla.push_back(std::move(x));
  }
  if (!calls.empty()) {
    record.status = OpStatus::Failed;
    record.error_kind = ErrorKind::IllegalArgument;
    record.error = "On entry to " + calls.front().routine + " parameter number " +
                   std::to_string(calls.front().parameter) + " had an illegal value (" + record.xerbla.front().meaning +
                   ")";
  }
}

void copy_converted(const HostTensor& src, HostTensor& dst) {
  const std::uint64_t count = src.element_count();
  for (std::uint64_t i = 0; i < count; ++i) {
    store_element(dst.dtype(), dst.data() + dst.offset_of_flat(i),
                  load_element(src.dtype(), src.data() + src.offset_of_flat(i)));
  }
}

HostTensor& converted_copy(RunState& state, ScopedTemporaries& temporaries, const HostTensor& source, DType dtype,
                           const std::string& name) {
  HostTensor& copy = state.create(temporaries.add(name), dtype, source.shape(), source.order());
  copy_converted(source, copy);
  return copy;
}

std::string dtype_name(DType dtype) {
  return std::string(name(dtype));
}
std::string order_name(MemoryOrder order) {
  return std::string(name(order));
}

}  // namespace blasscope::core
