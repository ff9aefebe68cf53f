// gemv, syrk and trsm on the CPU: one CBLAS call each, in A's memory order, with the leading
// dimensions and strides the op gives (a replayed capture passes the program's own, illegal
// ones too: BLAS refuses them through xerbla before it reads anything).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "exec/cpu_ops.h"
#include "exec/op_support.h"
#include "kernels/argument_lists.h"
#include "kernels/blas_calls.h"
#include "tensor/element_codec.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

void require_real(const HostTensor& t, const OpSpec& op) {
  if (t.dtype() != DType::Float32 && t.dtype() != DType::Float64) {
    throw OpRejected(ErrorKind::UnsupportedDtype, std::string(name(op.kind)) + " runs on float32/float64; '" +
                                                      t.name() + "' is " + dtype_name(t.dtype()));
  }
}

void require_same_dtype(const HostTensor& a, const HostTensor& other, const OpSpec& op) {
  if (other.dtype() != a.dtype()) {
    throw OpRejected(ErrorKind::DtypeMismatch, std::string(name(op.kind)) + ": '" + other.name() + "' is " +
                                                   dtype_name(other.dtype()) + " but '" + a.name() + "' is " +
                                                   dtype_name(a.dtype()) + " (BLAS takes one dtype per call)");
  }
}

// One CBLAS call has one memory order: every matrix must be stored in A's.
void require_matrix_like(const HostTensor& a, const HostTensor& m, const OpSpec& op) {
  if (!m.is_matrix()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(name(op.kind)) + " needs a 2-D '" + m.name() +
                                                   "'; it has shape " + format_shape(m.shape()));
  }
  if (m.order() != a.order()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(name(op.kind)) + ": '" + m.name() + "' is " +
                                                   order_name(m.order()) + "-ordered but '" + a.name() + "' is " +
                                                   order_name(a.order()) + " (one CBLAS call has one layout)");
  }
}

// Elements a vector of `length` with stride `inc` spans (BLAS reads none when the stride is 0:
// it refuses it).
std::uint64_t vector_span(std::uint64_t length, std::int64_t inc) {
  if (length == 0 || inc == 0) return 0;
  return 1 + (length - 1) * static_cast<std::uint64_t>(std::llabs(inc));
}

void require_span(const HostTensor& v, std::uint64_t length, std::int64_t inc, const OpSpec& op, const char* role) {
  const std::uint64_t span = vector_span(length, inc);
  // BLAS steps through memory: a padded 1 x N (or N x 1) tensor would have it read the padding.
  if (v.element_count() < span || (span > 1 && v.is_matrix() && v.rows() > 1 && v.cols() > 1) || v.is_padded()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(name(op.kind)) + ": " + role + " '" + v.name() +
                                                   "' has shape " + format_shape(v.shape()) + " but the call reads " +
                                                   std::to_string(length) + " elements " + std::to_string(inc) +
                                                   " apart (" + std::to_string(span) + " in all)");
  }
}

// The result: the operand BLAS overwrites (in place where the op's out names it), else a new
// tensor with its values.
HostTensor& result_from(RunState& state, const OpSpec& op, HostTensor& overwritten) {
  if (op.out == overwritten.name()) return overwritten;
  HostTensor& out = state.create(op.out, overwritten.dtype(), overwritten.shape(), overwritten.order());
  copy_converted(overwritten, out);
  return out;
}

std::string kernel_name(const OpSpec& op, DType dtype) {
  return std::string("cblas_") + (dtype == DType::Float32 ? "s" : "d") + std::string(name(op.kind));
}

// The part of `out` the call writes, where that is not all of it: SYRK's triangle, GEMV's y
// at its stride. Nothing else counts towards its NaN/Inf.
struct Written {
  enum class Part { All, Lower, Upper, Strided } part = Part::All;
  std::uint64_t stride = 1, length = 0;  // Strided: every stride-th element, `length` of them
};

void count_written_nonfinite(KernelRecord& record, const HostTensor& out, const Written& written) {
  std::uint64_t nan = 0, inf = 0;
  const auto count = [&](const std::byte* p) {
    const double v = load_element(out.dtype(), p).real();
    nan += std::isnan(v) ? 1 : 0;
    inf += std::isinf(v) ? 1 : 0;
  };
  if (written.part == Written::Part::Strided) {
    for (std::uint64_t k = 0; k < written.length; ++k) count(out.data() + out.offset_of_flat(k * written.stride));
  } else {
    const bool lower = written.part == Written::Part::Lower;
    for (std::uint64_t j = 0; j < out.cols(); ++j) {
      for (std::uint64_t i = lower ? j : 0; i < (lower ? out.rows() : std::min(j + 1, out.rows())); ++i) {
        count(out.data() + out.offset_of(i, j));
      }
    }
  }
  record.operands.back().nan = record.output_nan = nan;
  record.operands.back().inf = record.output_inf = inf;
}

// Runs `call` under a capture of argument errors, and fills the record from what it did.
void run_call(const OpSpec& op, RunState& state, KernelRecord& record, HostTensor& out, double flops,
              const std::function<void()>& call, const Written& written = {}) {
  emit_kernel_started(state, record);
  // Each repetition from the same values where the call reads its result's old ones (beta, or
  // TRSM's B), from a copy charged to the budget like any tensor.
  ScopedTemporaries temporaries(state);
  HostTensor* saved = nullptr;
  if (op.repeat > 1 && (op.kind == OpKind::Trsm || op.beta != 0)) {
    saved = &state.create(temporaries.add(op.out + ".saved"), out.dtype(), out.shape(), out.order());
    std::memcpy(saved->data(), out.data(), out.storage_bytes());
  }
  XerblaCapture capture;
  time_repeats(record, op.repeat, call,
               saved ? std::function<void()>([&] { std::memcpy(out.data(), saved->data(), out.storage_bytes()); })
                     : std::function<void()>());
  record_argument_errors(state, record, capture.calls(), [](const XerblaCall& x) {
    const std::string argument = xerbla_parameter_name(x.routine, x.parameter);
    return argument.empty() ? "parameter " + std::to_string(x.parameter) : argument;
  });
  if (!record.xerbla.empty()) return;
  if (record.seconds && *record.seconds > 0) record.gflops = flops / *record.seconds / 1e9;
  fill_value_summary(record.operands.back(), out);
  record.output_nan = record.operands.back().nan;
  record.output_inf = record.operands.back().inf;
  if (written.part != Written::Part::All) count_written_nonfinite(record, out, written);
}

KernelRecord run_gemv(const OpSpec& op, RunState& state, HostTensor& a) {
  KernelRecord record = record_for(op);
  HostTensor& x = input_tensor(state, op.b);
  require_same_dtype(a, x, op);
  GemvCall call;
  call.row_major = a.order() == MemoryOrder::C;
  call.trans = op.trans_a;
  call.m = static_cast<std::int64_t>(a.rows());
  call.n = static_cast<std::int64_t>(a.cols());
  call.lda = op.lda.value_or(static_cast<std::int64_t>(a.leading_dim()));
  call.incx = op.incx.value_or(1);
  call.incy = op.incy.value_or(1);
  const std::uint64_t x_length = op.trans_a ? a.rows() : a.cols(), y_length = op.trans_a ? a.cols() : a.rows();
  require_span(x, x_length, call.incx, op, "x");
  HostTensor* y = nullptr;
  if (!op.c.empty()) {
    HostTensor& given = input_tensor(state, op.c);
    require_same_dtype(a, given, op);
    require_span(given, y_length, call.incy, op, "y");
    y = &result_from(state, op, given);
  } else {
    y = &state.create(op.out, a.dtype(), {std::max<std::uint64_t>(vector_span(y_length, call.incy), y_length)},
                      MemoryOrder::C);
  }
  record.dtype = a.dtype();
  record.kernel = kernel_name(op, a.dtype());
  record.m = call.m, record.n = call.n;
  record.call = BlasCallRecord{call.row_major, call.trans, false, call.m, call.n, 0, call.lda, 0, 0};
  record.operands = {operand_record("a", a, call.lda), operand_record("x", x, 0)};
  if (op.beta != 0) record.operands.push_back(operand_record("y", *y, 0));
  record.operands.push_back(operand_record("out", *y, 0, false));
  record.bytes_touched = (a.rows() * a.cols() + x_length + y_length * (op.beta != 0 ? 2 : 1)) * item_size(a.dtype());
  const std::uint64_t stride = static_cast<std::uint64_t>(std::llabs(call.incy));
  run_call(
      op, state, record, *y, 2.0 * static_cast<double>(a.rows()) * static_cast<double>(a.cols()),
      [&] { call_gemv(a.dtype(), call, op.alpha, op.beta, a.data(), x.data(), y->data()); },
      stride > 1 ? Written{Written::Part::Strided, stride, y_length} : Written{});
  return record;
}

KernelRecord run_syrk(const OpSpec& op, RunState& state, HostTensor& a) {
  KernelRecord record = record_for(op);
  SyrkCall call;
  call.row_major = a.order() == MemoryOrder::C;
  call.trans = op.trans_a;
  call.uplo = op.uplo;
  const std::uint64_t n = op.trans_a ? a.cols() : a.rows(), k = op.trans_a ? a.rows() : a.cols();
  call.n = static_cast<std::int64_t>(n);
  call.k = static_cast<std::int64_t>(k);
  call.lda = op.lda.value_or(static_cast<std::int64_t>(a.leading_dim()));
  HostTensor* c = nullptr;
  if (!op.c.empty()) {
    HostTensor& given = input_tensor(state, op.c);
    require_same_dtype(a, given, op);
    require_matrix_like(a, given, op);
    if (given.rows() != n || given.cols() != n) {
      throw OpRejected(ErrorKind::ShapeMismatch, "syrk: c has shape " + format_shape(given.shape()) + " but op(a) " +
                                                     "op(a)^T is (" + std::to_string(n) + ", " + std::to_string(n) +
                                                     ")");
    }
    c = &result_from(state, op, given);
  } else {
    c = &state.create(op.out, a.dtype(), {n, n}, a.order());
  }
  call.ldc = op.ldc.value_or(static_cast<std::int64_t>(c->leading_dim()));
  record.dtype = a.dtype();
  record.kernel = kernel_name(op, a.dtype());
  record.n = call.n, record.k = call.k;
  record.call = BlasCallRecord{call.row_major, call.trans, false, call.n, call.n, call.k, call.lda, 0, call.ldc};
  record.operands = {operand_record("a", a, call.lda)};
  if (op.beta != 0) record.operands.push_back(operand_record("c", *c, call.ldc));
  record.operands.push_back(operand_record("out", *c, call.ldc, false));
  record.bytes_touched = (n * k + n * n * (op.beta != 0 ? 2 : 1)) * item_size(a.dtype());
  run_call(
      op, state, record, *c, static_cast<double>(n) * static_cast<double>(n + 1) * static_cast<double>(k),
      [&] { call_syrk(a.dtype(), call, op.alpha, op.beta, a.data(), c->data()); },
      Written{op.uplo == 'L' ? Written::Part::Lower : Written::Part::Upper});
  return record;
}

KernelRecord run_trsm(const OpSpec& op, RunState& state, HostTensor& a) {
  KernelRecord record = record_for(op);
  HostTensor& b = input_tensor(state, op.b);
  require_same_dtype(a, b, op);
  require_matrix_like(a, b, op);
  TrsmCall call;
  call.row_major = a.order() == MemoryOrder::C;
  call.trans = op.trans_a;
  call.unit_diagonal = op.unit_diagonal;
  call.side = op.side;
  call.uplo = op.uplo;
  call.m = static_cast<std::int64_t>(b.rows());
  call.n = static_cast<std::int64_t>(b.cols());
  const std::uint64_t order_of_a = op.side == 'L' ? b.rows() : b.cols();
  if (a.rows() != order_of_a || a.cols() != order_of_a) {
    throw OpRejected(ErrorKind::ShapeMismatch, "trsm: a has shape " + format_shape(a.shape()) + " but with side " +
                                                   std::string(1, op.side) + " and b " + format_shape(b.shape()) +
                                                   " it must be (" + std::to_string(order_of_a) + ", " +
                                                   std::to_string(order_of_a) + ")");
  }
  call.lda = op.lda.value_or(static_cast<std::int64_t>(a.leading_dim()));
  HostTensor& out = result_from(state, op, b);
  call.ldb = op.ldb.value_or(static_cast<std::int64_t>(out.leading_dim()));
  record.dtype = a.dtype();
  record.kernel = kernel_name(op, a.dtype());
  record.m = call.m, record.n = call.n;
  record.call = BlasCallRecord{call.row_major, call.trans, false, call.m, call.n, 0, call.lda, call.ldb, 0};
  record.operands = {operand_record("a", a, call.lda), operand_record("b", b, call.ldb),
                     operand_record("out", out, call.ldb, false)};
  record.bytes_touched = (order_of_a * order_of_a / 2 + 2 * b.rows() * b.cols()) * item_size(a.dtype());
  run_call(op, state, record, out,
           static_cast<double>(order_of_a) * static_cast<double>(order_of_a) *
               static_cast<double>(op.side == 'L' ? b.cols() : b.rows()),
           [&] { call_trsm(a.dtype(), call, op.alpha, a.data(), out.data()); });
  return record;
}

}  // namespace

KernelRecord run_blas_call_op(const OpSpec& op, RunState& state) {
  HostTensor& a = input_tensor(state, op.a);
  require_real(a, op);
  if (!a.is_matrix()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(name(op.kind)) + " needs a 2-D a; '" + a.name() +
                                                   "' has shape " + format_shape(a.shape()));
  }
  if (op.kind == OpKind::Gemv) return run_gemv(op, state, a);
  if (op.kind == OpKind::Syrk) return run_syrk(op, state, a);
  return run_trsm(op, state, a);
}

}  // namespace blasscope::core
