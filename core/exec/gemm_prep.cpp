#include "exec/gemm_prep.h"

#include "tensor/dtype_promotion.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

MatrixView view_of(const HostTensor& t) {
  return {t.data(), t.dtype(), t.rows(), t.cols(), t.order(), t.leading_dim()};
}

void require_matrix(const HostTensor& t, const char* role) {
  if (!t.is_matrix()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string("gemm needs 2-D operands; ") + role + " '" + t.name() +
                                                   "' has shape " + format_shape(t.shape()));
  }
}

std::string shape_with_op(const HostTensor& t, bool transposed) {
  return format_shape(t.shape()) + (transposed ? ".T" : "");
}

// The dtype the kernel computes in, after NumPy promotion when the op allows it.
DType choose_dtype(const OpSpec& op, const HostTensor& a, const HostTensor& b, const HostTensor* c,
                   const GemmDeviceTraits& traits) {
  DType promoted = promote_types(a.dtype(), b.dtype());
  if (c) promoted = promote_types(promoted, c->dtype());
  const bool mixed = a.dtype() != b.dtype() || (c && c->dtype() != a.dtype());
  if (mixed && !op.promote) {
    throw OpRejected(ErrorKind::DtypeMismatch, "operands have different dtypes: a is " + dtype_name(a.dtype()) +
                                                   ", b is " + dtype_name(b.dtype()) +
                                                   (c ? ", c is " + dtype_name(c->dtype()) : std::string()) +
                                                   "; NumPy would promote to " + dtype_name(promoted) +
                                                   ", TensorFlow refuses (set \"promote\": true to cast)");
  }
  std::string reason;
  if (traits.supported(promoted, reason)) return promoted;
  if (!op.promote) {
    throw OpRejected(ErrorKind::UnsupportedDtype, "no " + traits.device + " GEMM kernel for " + dtype_name(promoted) +
                                                      ": " + reason + " (set \"promote\": true to compute in " +
                                                      dtype_name(traits.promoted_to(promoted)) + ")");
  }
  return traits.promoted_to(promoted);
}

}  // namespace

GemmDeviceTraits cpu_gemm_traits() {
  std::string unused;
  const bool has_sbgemm = gemm_supported(DType::BFloat16, unused);
  return {"CPU", gemm_supported, [has_sbgemm](DType d) { return blas_compute_dtype(d, has_sbgemm); },
          // cblas_sbgemm writes float32.
          [](DType d) { return d == DType::BFloat16 ? DType::Float32 : d; }};
}

PreparedGemm prepare_gemm(const OpSpec& op, RunState& state, ScopedTemporaries& temporaries, KernelRecord& record,
                          const GemmDeviceTraits& traits, const std::string& out_name) {
  PreparedGemm g;
  HostTensor* a = &input_tensor(state, op.a);
  HostTensor* b = &input_tensor(state, op.b);
  HostTensor* c = op.c.empty() ? nullptr : &input_tensor(state, op.c);
  require_matrix(*a, "a");
  require_matrix(*b, "b");
  g.m = op.trans_a ? a->cols() : a->rows();
  g.k = op.trans_a ? a->rows() : a->cols();
  const std::uint64_t k2 = op.trans_b ? b->cols() : b->rows();
  g.n = op.trans_b ? b->rows() : b->cols();
  if (g.k != k2) {
    throw OpRejected(ErrorKind::ShapeMismatch, "a @ b: " + shape_with_op(*a, op.trans_a) + " @ " +
                                                   shape_with_op(*b, op.trans_b) + ": the inner dimensions " +
                                                   std::to_string(g.k) + " and " + std::to_string(k2) + " differ");
  }
  if (c) {
    require_matrix(*c, "c");
    if (c->rows() != g.m || c->cols() != g.n) {
      throw OpRejected(ErrorKind::ShapeMismatch, "c has shape " + format_shape(c->shape()) + " but a @ b is (" +
                                                     std::to_string(g.m) + ", " + std::to_string(g.n) + ")");
    }
  }
  g.dtype = choose_dtype(op, *a, *b, c, traits);
  g.out_dtype = traits.output_dtype(g.dtype);
  record.dtype = g.dtype;
  record.m = static_cast<std::int64_t>(g.m);
  record.n = static_cast<std::int64_t>(g.n);
  record.k = static_cast<std::int64_t>(g.k);
  const std::string temp_prefix = out_name + ".";
  if (a->dtype() != g.dtype) {
    record.casts.push_back("a: " + dtype_name(a->dtype()) + " -> " + dtype_name(g.dtype));
    a = &converted_copy(state, temporaries, *a, g.dtype, temp_prefix + "a:" + dtype_name(g.dtype));
  }
  if (b->dtype() != g.dtype) {
    record.casts.push_back("b: " + dtype_name(b->dtype()) + " -> " + dtype_name(g.dtype));
    b = &converted_copy(state, temporaries, *b, g.dtype, temp_prefix + "b:" + dtype_name(g.dtype));
  }
  bool in_place = c != nullptr && out_name == op.c;
  if (c && c->dtype() != g.out_dtype) {
    record.casts.push_back("c: " + dtype_name(c->dtype()) + " -> " + dtype_name(g.out_dtype));
    c = &converted_copy(state, temporaries, *c, g.out_dtype, temp_prefix + "c:" + dtype_name(g.out_dtype));
    in_place = false;
  }
  HostTensor* out = c;
  if (!in_place) {
    const std::vector<std::uint64_t> shape{g.m, g.n};
    out = &state.create(out_name, g.out_dtype, shape, c ? c->order() : MemoryOrder::C);
    if (c) copy_converted(*c, *out);
  }
  g.a = a;
  g.b = b;
  g.out = out;
  g.call = plan_gemm(view_of(*a), op.trans_a, view_of(*b), op.trans_b, view_of(*out), {op.lda, op.ldb, op.ldc});
  const GemmCall& call = g.call;
  record.call =
      BlasCallRecord{call.row_major, call.trans_a, call.trans_b, call.m, call.n, call.k, call.lda, call.ldb, call.ldc};
  record.operands = {operand_record("a", *a, call.lda), operand_record("b", *b, call.ldb)};
  // BLAS does not read C when beta is 0, so only then are its old values no input.
  if (op.beta != 0) record.operands.push_back(operand_record("c", *out, call.ldc));
  record.operands.push_back(operand_record("out", *out, call.ldc, false));
  record.bytes_touched =
      (g.m * g.k + g.k * g.n) * item_size(g.dtype) + g.m * g.n * item_size(g.out_dtype) * (op.beta != 0 ? 2 : 1);
  g.flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
            (kind(g.dtype) == DTypeKind::Complex ? 4.0 : 1.0);
  return g;
}

void finish_gemm_record(KernelRecord& record, const PreparedGemm& g) {
  if (record.seconds && *record.seconds > 0) record.gflops = g.flops / *record.seconds / 1e9;
  fill_value_summary(record.operands.back(), *g.out);
  record.output_nan = record.operands.back().nan;
  record.output_inf = record.operands.back().inf;
}

}  // namespace blasscope::core
