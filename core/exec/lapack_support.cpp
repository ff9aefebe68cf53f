#include "exec/lapack_support.h"

#include <cstring>

#include "kernels/dlascl.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

// Inside the drivers the errors come from DLASCL (a NaN norm as CFROM or CTO) and its kin.
std::string driver_xerbla_meaning(const std::string& routine, int p) {
  return routine.ends_with("LASCL") ? std::string(lascl_parameter_name(p)) +
                                          (p == 4 ? " (the matrix norm: NaN when the matrix holds NaN)" : "")
                                    : "parameter " + std::to_string(p);
}

}  // namespace

void require_real_matrix(const HostTensor& t, const char* op, bool complex_too) {
  const bool real = t.dtype() == DType::Float64 || t.dtype() == DType::Float32;
  const bool complex = kind(t.dtype()) == DTypeKind::Complex;
  if (!real && !(complex_too && complex)) {
    throw OpRejected(ErrorKind::UnsupportedDtype, std::string(op) + " runs on float32/float64" +
                                                      (complex_too ? "/complex64/complex128" : "") + " matrices; '" +
                                                      t.name() + "' is " + dtype_name(t.dtype()));
  }
  if (!t.is_matrix()) {
    throw OpRejected(ErrorKind::ShapeMismatch,
                     std::string(op) + " needs a 2-D matrix; '" + t.name() + "' has shape " + format_shape(t.shape()));
  }
}

HostTensor& column_major_copy(RunState& state, ScopedTemporaries& temporaries, const HostTensor& src,
                              std::uint64_t rows, const std::string& name, std::uint64_t slack_columns) {
  HostTensor& work = state.create(temporaries.add(name), src.dtype(),
                                  {rows, (src.is_matrix() ? src.cols() : 1) + slack_columns}, MemoryOrder::Fortran);
  const std::size_t size = item_size(src.dtype());
  for (std::uint64_t i = 0; i < src.rows(); ++i) {
    for (std::uint64_t j = 0; j < (src.is_matrix() ? src.cols() : 1); ++j) {
      const std::uint64_t from = src.is_matrix() ? src.offset_of(i, j) : i * size;
      std::memcpy(work.data() + work.offset_of(i, j), src.data() + from, size);
    }
  }
  return work;
}

std::string lapack_name(DType dtype, const char* driver) {
  const char* prefix = dtype == DType::Float64      ? "d"
                       : dtype == DType::Complex64  ? "c"
                       : dtype == DType::Complex128 ? "z"
                                                    : "s";
  return prefix + std::string(driver);
}

void require_right_hand_side(const HostTensor& a, const HostTensor& b, const char* op) {
  if (b.dtype() != a.dtype()) {
    throw OpRejected(ErrorKind::DtypeMismatch,
                     std::string(op) + ": a is " + dtype_name(a.dtype()) + " but b is " + dtype_name(b.dtype()));
  }
  if (b.shape().empty() || b.shape().size() > 2 || b.rows() != a.rows()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(op) + ": b has shape " + format_shape(b.shape()) +
                                                   " but a has " + std::to_string(a.rows()) + " rows");
  }
}

void describe_lapack_call(KernelRecord& record, const HostTensor& a, const char* driver) {
  record.kernel = lapack_name(a.dtype(), driver);
  record.dtype = a.dtype();
  record.m = static_cast<std::int64_t>(a.rows());
  record.n = static_cast<std::int64_t>(a.cols());
}

XerblaCapture streamed_xerbla(RunState& state, std::size_t op) {
  return XerblaCapture([&state, op](const XerblaCall& call) {
    state.publish(
        events::Xerbla{op, {call.routine, call.parameter, driver_xerbla_meaning(call.routine, call.parameter)}});
  });
}

void finish_lapack(RunState& state, KernelRecord& record, const XerblaCapture& capture, int info,
                   const std::vector<const char*>& argument_names, const std::string& positive_info) {
  record.info = info;
  record_argument_errors(
      state, record, capture.calls(),
      [](const XerblaCall& call) { return driver_xerbla_meaning(call.routine, call.parameter); }, true);
  if (info < 0 && record.xerbla.empty()) {
    record.status = OpStatus::Failed;
    record.error_kind = ErrorKind::IllegalArgument;
    const auto p = static_cast<std::size_t>(-info);
    record.error = record.kernel + " returned INFO=" + std::to_string(info) + ": argument " + std::to_string(p) +
                   (p <= argument_names.size() ? " (" + std::string(argument_names[p - 1]) + ")" : std::string()) +
                   " had an illegal value";
  } else if (info > 0) {
    record.status = OpStatus::Failed;
    record.error_kind = ErrorKind::LapackFailed;
    record.error = record.kernel + " returned INFO=" + std::to_string(info) + ": " + positive_info;
  }
}

void record_output(KernelRecord& record, const std::string& role, const HostTensor& out) {
  record.operands.push_back(operand_record(role, out, 0, false));
  fill_value_summary(record.operands.back(), out);
  record.output_nan += record.operands.back().nan;
  record.output_inf += record.operands.back().inf;
}

}  // namespace blasscope::core
