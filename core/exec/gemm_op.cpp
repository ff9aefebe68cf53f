// The gemm op: shape and dtype checks, promotion, and one instrumented CBLAS call.
#include <cstring>

#include "exec/cpu_ops.h"
#include "exec/dtype_promotion.h"
#include "exec/op_support.h"
#include "kernels/gemm.h"
#include "report/inspect_text.h"

namespace blasscope::core {
namespace {

MatrixView view_of(const HostTensor& t) {
  return {t.data(), t.dtype(), t.rows(), t.cols(), t.order(), t.leading_dim()};
}

void require_matrix(const HostTensor& t, const char* role) {
  if (!t.is_matrix()) {
    throw OpRejected("shape-mismatch", std::string("gemm needs 2-D operands; ") + role + " '" + t.name() +
                                           "' has shape " + format_shape(t.shape()));
  }
}

std::string shape_with_op(const HostTensor& t, bool transposed) {
  return format_shape(t.shape()) + (transposed ? ".T" : "");
}

// The dtype the kernel computes in, after NumPy promotion when the op allows it.
DType choose_dtype(const OpSpec& op, const HostTensor& a, const HostTensor& b, const HostTensor* c, bool has_sbgemm) {
  DType promoted = promote_types(a.dtype(), b.dtype());
  if (c) promoted = promote_types(promoted, c->dtype());
  const bool mixed = a.dtype() != b.dtype() || (c && c->dtype() != a.dtype());
  if (mixed && !op.promote) {
    throw OpRejected("dtype-mismatch", "operands have different dtypes: a is " + dtype_name(a.dtype()) + ", b is " +
                                           dtype_name(b.dtype()) +
                                           (c ? ", c is " + dtype_name(c->dtype()) : std::string()) +
                                           "; NumPy would promote to " + dtype_name(promoted) +
                                           ", TensorFlow refuses (set \"promote\": true to cast)");
  }
  std::string reason;
  if (gemm_supported(promoted, reason)) return promoted;
  if (!op.promote) {
    throw OpRejected("unsupported-dtype", "no CPU GEMM kernel for " + dtype_name(promoted) + ": " + reason +
                                              " (set \"promote\": true to compute in " +
                                              dtype_name(blas_compute_dtype(promoted, has_sbgemm)) + ")");
  }
  return blas_compute_dtype(promoted, has_sbgemm);
}

}  // namespace

KernelRecord run_gemm_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  HostTensor* a = &input_tensor(state, op.a);
  HostTensor* b = &input_tensor(state, op.b);
  HostTensor* c = op.c.empty() ? nullptr : &input_tensor(state, op.c);
  require_matrix(*a, "a");
  require_matrix(*b, "b");
  const std::uint64_t m = op.trans_a ? a->cols() : a->rows(), k = op.trans_a ? a->rows() : a->cols();
  const std::uint64_t k2 = op.trans_b ? b->cols() : b->rows(), n = op.trans_b ? b->rows() : b->cols();
  if (k != k2) {
    throw OpRejected("shape-mismatch", "a @ b: " + shape_with_op(*a, op.trans_a) + " @ " +
                                           shape_with_op(*b, op.trans_b) + ": the inner dimensions " +
                                           std::to_string(k) + " and " + std::to_string(k2) + " differ");
  }
  if (c) {
    require_matrix(*c, "c");
    if (c->rows() != m || c->cols() != n) {
      throw OpRejected("shape-mismatch", "c has shape " + format_shape(c->shape()) + " but a @ b is (" +
                                             std::to_string(m) + ", " + std::to_string(n) + ")");
    }
  }
  std::string unused;
  const bool has_sbgemm = gemm_supported(DType::BFloat16, unused);
  const DType dtype = choose_dtype(op, *a, *b, c, has_sbgemm);
  record.dtype = dtype_name(dtype);
  record.kernel = gemm_kernel_name(dtype);
  record.m = static_cast<std::int64_t>(m);
  record.n = static_cast<std::int64_t>(n);
  record.k = static_cast<std::int64_t>(k);
  ScopedTemporaries temporaries(state);
  const std::string temp_prefix = "op" + std::to_string(op.index) + ".";
  if (a->dtype() != dtype) {
    record.casts.push_back("a: " + dtype_name(a->dtype()) + " -> " + dtype_name(dtype));
    a = &converted_copy(state, temporaries, *a, dtype, temp_prefix + "a:" + dtype_name(dtype));
  }
  if (b->dtype() != dtype) {
    record.casts.push_back("b: " + dtype_name(b->dtype()) + " -> " + dtype_name(dtype));
    b = &converted_copy(state, temporaries, *b, dtype, temp_prefix + "b:" + dtype_name(dtype));
  }
  // cblas_sbgemm writes float32.
  const DType out_dtype = dtype == DType::BFloat16 ? DType::Float32 : dtype;
  bool in_place = c != nullptr && op.out == op.c;
  if (c && c->dtype() != out_dtype) {
    record.casts.push_back("c: " + dtype_name(c->dtype()) + " -> " + dtype_name(out_dtype));
    c = &converted_copy(state, temporaries, *c, out_dtype, temp_prefix + "c:" + dtype_name(out_dtype));
    in_place = false;
  }
  HostTensor* out = c;
  if (!in_place) {
    const std::vector<std::uint64_t> shape{m, n};
    out = &state.create(op.out, out_dtype, shape, c ? c->order() : MemoryOrder::C);
    if (c) copy_converted(*c, *out);
  }
  const GemmCall call =
      plan_gemm(view_of(*a), op.trans_a, view_of(*b), op.trans_b, view_of(*out), {op.lda, op.ldb, op.ldc});
  record.call =
      BlasCallRecord{call.row_major, call.trans_a, call.trans_b, call.m, call.n, call.k, call.lda, call.ldb, call.ldc};
  record.operands = {operand_record("a", *a, call.lda), operand_record("b", *b, call.ldb)};
  // BLAS does not read C when beta is 0, so only then are its old values no input.
  if (op.beta != 0) record.operands.push_back(operand_record("c", *out, call.ldc));
  record.operands.push_back(operand_record("out", *out, call.ldc, false));
  const std::size_t size = item_size(dtype);
  record.bytes_touched = (m * k + k * n) * size + m * n * item_size(out_dtype) * (op.beta != 0 ? 2 : 1);
  emit_kernel_started(state, record);
  // With beta != 0 each repetition must start from the same C.
  HostTensor* saved = nullptr;
  if (op.beta != 0 && op.repeat > 1) {
    saved = &state.create(temporaries.add(temp_prefix + "saved"), out_dtype, out->shape(), out->order());
    std::memcpy(saved->data(), out->data(), out->storage_bytes());
  }
  XerblaCapture capture;
  time_repeats(
      record, op.repeat, [&] { call_gemm(dtype, call, op.alpha, op.beta, a->data(), b->data(), out->data()); },
      saved ? std::function<void()>([&] { std::memcpy(out->data(), saved->data(), out->storage_bytes()); })
            : std::function<void()>());
  record_argument_errors(state, record, capture.calls(),
                         [&](int p) { return gemm_parameter_meaning(call.row_major, p); });
  if (record.xerbla.empty()) {
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                         (kind(dtype) == DTypeKind::Complex ? 4.0 : 1.0);
    if (*record.seconds > 0) record.gflops = flops / *record.seconds / 1e9;
    fill_value_summary(record.operands.back(), *out);
    record.output_nan = record.operands.back().nan;
    record.output_inf = record.operands.back().inf;
  }
  return record;
}

}  // namespace blasscope::core
