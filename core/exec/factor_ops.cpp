// The cholesky, lu, solve, lu_solve and eigh ops: POTRF, GETRF, GESV, GETRS and SYEVD/SYEV
// called as NumPy, SciPy and PyTorch call them, so a capture of a failing call replays its INFO.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <vector>

#include "exec/cpu_ops.h"
#include "exec/lapack_support.h"
#include "kernels/complex_factorisations.h"
#include "kernels/lapack_factorisations.h"
#include "tensor/element_codec.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

void require_square(const HostTensor& a, const char* op) {
  if (a.rows() != a.cols()) {
    throw OpRejected(ErrorKind::ShapeMismatch, std::string(op) + " needs a square matrix; '" + a.name() +
                                                   "' has shape " + format_shape(a.shape()));
  }
}

// The factor NumPy returns: the `uplo` triangle of the working copy, the other one zero.
void keep_triangle(HostTensor& factor, char uplo) {
  const std::size_t size = item_size(factor.dtype());
  for (std::uint64_t j = 0; j < factor.cols(); ++j) {
    for (std::uint64_t i = 0; i < factor.rows(); ++i) {
      if (uplo == 'L' ? i < j : i > j) std::memset(factor.data() + factor.offset_of(i, j), 0, size);
    }
  }
}

// A result of `shape` (a matrix, or a vector: one column) copied from the working copy.
HostTensor& result_of(RunState& state, const std::string& name, const HostTensor& work,
                      const std::vector<std::uint64_t>& shape) {
  HostTensor& out = state.create(name, work.dtype(), shape, MemoryOrder::Fortran);
  const std::size_t size = item_size(work.dtype());
  const std::uint64_t cols = shape.size() == 2 ? shape[1] : 1;
  for (std::uint64_t j = 0; j < cols; ++j) {
    for (std::uint64_t i = 0; i < shape[0]; ++i) {
      std::memcpy(out.data() + (shape.size() == 2 ? out.offset_of(i, j) : i * size), work.data() + work.offset_of(i, j),
                  size);
    }
  }
  return out;
}

// POTRF, SYEVD and SYEV read only the `uplo` triangle of A: a NaN in the other one is not
// theirs (the recording scans the same triangle), so A's counts are the triangle's.
void count_triangle_only(OperandRecord& a, const HostTensor& tensor, char uplo) {
  a.nan = a.inf = 0;
  a.first_nonfinite.reset();
  for (std::uint64_t i = 0; i < tensor.rows(); ++i) {
    const std::uint64_t first = uplo == 'L' ? 0 : i, last = uplo == 'L' ? i : tensor.cols() - 1;
    for (std::uint64_t j = first; j <= last; ++j) {
      // A complex value counts each of its parts, as every operand's counts do.
      const std::complex<double> v = load_element(tensor.dtype(), tensor.data() + tensor.offset_of(i, j));
      for (const double part : {v.real(), v.imag()}) {
        if (!std::isfinite(part)) (std::isnan(part) ? a.nan : a.inf) += 1;
      }
      if (std::isfinite(v.real()) && std::isfinite(v.imag())) continue;
      if (!a.first_nonfinite) a.first_nonfinite = std::vector<std::uint64_t>{i, j};
    }
  }
}

// lu_solve's pivots: GETRF's 1-based row interchanges, one per row of the n x n factors. GETRS
// swaps rows by them unchecked, so one outside 1..n is refused here rather than read past B.
std::vector<int> lu_pivots(const HostTensor& pivots, std::uint64_t n) {
  const DTypeKind k = kind(pivots.dtype());
  if (k != DTypeKind::SignedInt && k != DTypeKind::UnsignedInt) {
    throw OpRejected(ErrorKind::DtypeMismatch, "lu_solve: pivots '" + pivots.name() + "' must be integers (GETRF's " +
                                                   "IPIV), not " + std::string(name(pivots.dtype())));
  }
  const auto& shape = pivots.shape();
  const bool vector = std::count_if(shape.begin(), shape.end(), [](std::uint64_t d) { return d != 1; }) <= 1;
  if (!vector || pivots.element_count() != n) {
    throw OpRejected(ErrorKind::ShapeMismatch, "lu_solve: pivots '" + pivots.name() + "' has shape " +
                                                   format_shape(shape) +
                                                   " but needs one per row of a: " + std::to_string(n));
  }
  std::vector<int> out(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const double v = load_element(pivots.dtype(), pivots.data() + pivots.offset_of_flat(i)).real();
    if (!(v >= 1 && v <= static_cast<double>(n))) {
      throw OpRejected(ErrorKind::IllegalArgument, "lu_solve: pivots[" + std::to_string(i) + "] = " + format_number(v) +
                                                       " is outside 1.." + std::to_string(n) +
                                                       " (GETRF's row interchanges count from 1): GETRS would swap " +
                                                       "a row outside B");
    }
    out[i] = static_cast<int>(v);
  }
  return out;
}

template <typename T>
int run_factor(RunState& state, KernelRecord& record, FactorDriver driver, const OpSpec& op,
               const LapackWorkspace<double>& sizes, HostTensor& a, HostTensor* b, std::int64_t nrhs, HostTensor* w,
               const std::vector<int>& pivots) {
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  const std::string name = driver_name(driver);
  Workspace workspace(state, record.op);
  auto work = workspace.take<T>(sizes.work, name + " workspace");
  auto iwork = workspace.take<int>(sizes.iwork, name + (sizes.work ? " integer workspace" : " pivots"));
  std::copy_n(pivots.begin(), std::min(pivots.size(), iwork.size()), iwork.begin());       // GETRS's, given
  const char letter = driver == FactorDriver::Getrs ? (op.trans_a ? 'T' : 'N') : op.uplo;  // its TRANS, or UPLO
  int info = 0;
  time_repeats(record, 1, [&] {
    info = factor_run<T>(driver, letter, op.compute_uv, m, n, nrhs, reinterpret_cast<T*>(a.data()),
                         b ? reinterpret_cast<T*>(b->data()) : nullptr, w ? reinterpret_cast<T*>(w->data()) : nullptr,
                         work, iwork);
  });
  return info;
}

// The same for a complex A: ?HEEVD, ?HEEV and ?HEEVR for the eigen drivers, with LAPACK's real
// RWORK, and real eigenvalues.
template <typename Real>
int run_complex_factor(RunState& state, KernelRecord& record, FactorDriver driver, const OpSpec& op,
                       const LapackWorkspace<double>& sizes, HostTensor& a, HostTensor* b, std::int64_t nrhs,
                       HostTensor* w, const std::vector<int>& pivots) {
  using Complex = std::complex<Real>;
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  const std::string name = complex_driver_name(driver);
  Workspace workspace(state, record.op);
  auto work = workspace.take<Complex>(sizes.work, name + " workspace");
  auto rwork = workspace.take<Real>(sizes.rwork, name + " real workspace");
  auto iwork = workspace.take<int>(sizes.iwork, name + (sizes.work ? " integer workspace" : " pivots"));
  std::copy_n(pivots.begin(), std::min(pivots.size(), iwork.size()), iwork.begin());  // GETRS's, given
  const char letter =
      driver == FactorDriver::Getrs ? (op.trans_a ? (op.conjugate ? 'C' : 'T') : 'N') : op.uplo;  // TRANS, or UPLO
  int info = 0;
  time_repeats(record, 1, [&] {
    info = complex_factor_run<Real>(driver, letter, op.compute_uv, m, n, nrhs, reinterpret_cast<Complex*>(a.data()),
                                    b ? reinterpret_cast<Complex*>(b->data()) : nullptr,
                                    w ? reinterpret_cast<Real*>(w->data()) : nullptr, work, rwork, iwork);
  });
  return info;
}

// The first exact zero on a square matrix's diagonal, 1-based (GETRF's INFO for LU factors).
std::optional<std::int64_t> first_zero_on_diagonal(const HostTensor& factors) {
  const std::uint64_t n = std::min(factors.rows(), factors.cols());
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::complex<double> v = load_element(factors.dtype(), factors.data() + factors.offset_of(i, i));
    if (v == std::complex<double>{}) return static_cast<std::int64_t>(i + 1);
  }
  return std::nullopt;
}

}  // namespace

KernelRecord run_factor_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const std::string op_name(name(op.kind));
  const HostTensor& a = input_tensor(state, op.a);
  require_real_matrix(a, op_name.c_str(), true);
  const bool complex = kind(a.dtype()) == DTypeKind::Complex;
  if (op.kind != OpKind::Lu) require_square(a, op_name.c_str());
  const bool solves = op.kind == OpKind::Solve || op.kind == OpKind::LuSolve;
  const HostTensor* b = solves ? &input_tensor(state, op.b) : nullptr;
  if (b) require_right_hand_side(a, *b, op_name.c_str());
  const std::vector<int> pivots =
      op.kind == OpKind::LuSolve ? lu_pivots(input_tensor(state, op.pivots), a.rows()) : std::vector<int>{};
  // The parser names the routine of every factorisation op ("potrf" for cholesky, ...).
  const std::optional<FactorDriver> named = factor_driver_named(op.driver);
  if (!named) throw OpRejected(ErrorKind::IllegalArgument, op_name + ": no LAPACK routine named '" + op.driver + "'");
  const FactorDriver driver = *named;
  describe_lapack_call(record, a, complex ? complex_driver_name(driver) : driver_name(driver));
  ScopedTemporaries temps(state);
  const std::string prefix = "op" + std::to_string(op.index) + ".";
  HostTensor& work_a = column_major_copy(state, temps, a, a.rows(), prefix + "a");
  HostTensor* work_b = b ? &column_major_copy(state, temps, *b, b->rows(), prefix + "b") : nullptr;
  const std::int64_t nrhs = b ? (b->is_matrix() ? static_cast<std::int64_t>(b->cols()) : 1) : 0;
  if (op.kind == OpKind::LuSolve) record.k = nrhs;
  HostTensor* w =
      op.kind == OpKind::Eigh ? &state.create(op.out, real_part_dtype(a.dtype()), {a.rows()}, MemoryOrder::C) : nullptr;
  record.operands = {operand_record("a", a, static_cast<std::int64_t>(work_a.leading_dim()))};
  if (op.kind == OpKind::Cholesky || op.kind == OpKind::Eigh) count_triangle_only(record.operands[0], a, op.uplo);
  if (b) record.operands.push_back(operand_record("b", *b, static_cast<std::int64_t>(work_b->leading_dim())));
  record.bytes_touched = (a.element_count() + (b ? b->element_count() : 0)) * item_size(a.dtype());
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  // Refused before it starts: LAPACK's LWORK is a 32-bit int.
  const auto sizes = factor_workspace(a.dtype(), driver, op.compute_uv, m, n);
  if (const auto [size_name, elements] = largest_workspace(sizes); elements > INT32_MAX) {
    throw OpRejected(ErrorKind::IndexOverflow, record.kernel + " of a " + std::to_string(m) + " x " +
                                                   std::to_string(n) + " matrix needs a workspace of " +
                                                   std::to_string(elements) + " elements, more than LAPACK's " +
                                                   "32-bit " + size_name + " can say");
  }
  emit_kernel_started(state, record);
  XerblaCapture capture = streamed_xerbla(state, record.op);
  int info = 0;
  switch (a.dtype()) {
    case DType::Float64:
      info = run_factor<double>(state, record, driver, op, sizes, work_a, work_b, nrhs, w, pivots);
      break;
    case DType::Complex128:
      info = run_complex_factor<double>(state, record, driver, op, sizes, work_a, work_b, nrhs, w, pivots);
      break;
    case DType::Complex64:
      info = run_complex_factor<float>(state, record, driver, op, sizes, work_a, work_b, nrhs, w, pivots);
      break;
    default: info = run_factor<float>(state, record, driver, op, sizes, work_a, work_b, nrhs, w, pivots); break;
  }
  finish_lapack(state, record, capture, info, complex ? complex_argument_names(driver) : argument_names(driver),
                info > 0 ? positive_info_meaning(driver, info) : std::string());
  switch (op.kind) {
    case OpKind::Eigh:
      record_output(record, "out", *w);
      if (op.compute_uv) record_output(record, "v", result_of(state, op.out + "_v", work_a, a.shape()));
      break;
    case OpKind::Solve:
    case OpKind::LuSolve:
      if (info == 0) record_output(record, "out", result_of(state, op.out, *work_b, b->shape()));
      // Factors of a singular matrix (GETRF's INFO > 0, which the caller went on past): the
      // division by U's zero pivot made the NaN/Inf, not an overflow.
      if (op.kind == OpKind::LuSolve && record.output_nan + record.output_inf > 0) {
        record.zero_pivot = first_zero_on_diagonal(a);
      }
      break;
    default: {
      // The factor as LAPACK left it (a partial one after INFO > 0, as NumPy never shows).
      HostTensor& factor = result_of(state, op.out, work_a, a.shape());
      if (op.kind == OpKind::Cholesky) keep_triangle(factor, op.uplo);
      record_output(record, "out", factor);
    }
  }
  return record;
}

}  // namespace blasscope::core
