// The svd and lstsq ops: the LAPACK drivers NumPy, SciPy and PyTorch call (?gesdd/?gesvd,
// ?gelsd/?gelsy/?gelss/?gels), called as they call them.
#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "exec/cpu_ops.h"
#include "exec/lapack_support.h"
#include "exec/op_support.h"
#include "kernels/complex_lstsq.h"
#include "kernels/complex_svd.h"
#include "kernels/dlascl.h"
#include "kernels/lapack_drivers.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

template <typename T>
int run_svd(RunState& state, KernelRecord& record, SvdDriver driver, HostTensor& a, HostTensor& s, HostTensor* u,
            HostTensor* vt) {
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  const bool vectors = u && vt;
  const auto sizes = svd_workspace<T>(driver, vectors, m, n);
  const std::string name = driver_name(driver);
  Workspace workspace(state, record.op);
  auto work = workspace.take<T>(sizes.work, name + " workspace");
  auto iwork = workspace.take<int>(sizes.iwork, name + " integer workspace");
  int info = 0;
  time_repeats(record, 1, [&] {
    info = svd_run<T>(driver, vectors, m, n, reinterpret_cast<T*>(a.data()), reinterpret_cast<T*>(s.data()),
                      vectors ? reinterpret_cast<T*>(u->data()) : nullptr,
                      vectors ? reinterpret_cast<T*>(vt->data()) : nullptr, work, iwork);
  });
  return info;
}

// The same for a complex A: real singular values, complex U and V^H, and LAPACK's real RWORK.
// `a` may have columns past A's `n` (see run_svd_op). U and V^H are written into workspace with
// the same room after them, then copied out.
template <typename Real>
int run_complex_svd(RunState& state, KernelRecord& record, SvdDriver driver, HostTensor& a, std::int64_t n,
                    HostTensor& s, HostTensor* u, HostTensor* vt) {
  using Complex = std::complex<Real>;
  const auto m = static_cast<std::int64_t>(a.rows()), k = std::min(m, n);
  const bool vectors = u && vt;
  const auto sizes = complex_svd_workspace<Real>(driver, vectors, m, n);
  const std::string name = driver_name(driver);
  Workspace workspace(state, record.op);
  auto work = workspace.take<Complex>(sizes.work, name + " workspace");
  auto rwork = workspace.take<Real>(sizes.rwork, name + " real workspace");
  auto iwork = workspace.take<int>(sizes.iwork, name + " integer workspace");
  const auto room = static_cast<std::int64_t>(complex_overread_room(m, n));
  auto u_work = workspace.take<Complex>(vectors ? m * k + room : 0, name + " U");
  auto vt_work = workspace.take<Complex>(vectors ? k * n + room : 0, name + " V^H");
  int info = 0;
  time_repeats(record, 1, [&] {
    info = complex_svd_run<Real>(driver, vectors, m, n, reinterpret_cast<Complex*>(a.data()),
                                 reinterpret_cast<Real*>(s.data()), u_work.data(), vt_work.data(), work, rwork, iwork);
  });
  const auto copy_out = [](const std::vector<Complex>& from, HostTensor& to, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t j = 0; j < cols; ++j) {
      std::memcpy(to.data() + to.offset_of(0, static_cast<std::uint64_t>(j)), from.data() + j * rows,
                  static_cast<std::size_t>(rows) * sizeof(Complex));
    }
  };
  if (vectors) copy_out(u_work, *u, m, k), copy_out(vt_work, *vt, k, n);
  return info;
}

template <typename T>
int run_lstsq(RunState& state, KernelRecord& record, LstsqDriver driver, HostTensor& a, HostTensor& b,
              std::int64_t nrhs, HostTensor& s, int& rank) {
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  const auto sizes = lstsq_workspace<T>(driver, m, n, nrhs);
  const std::string name = driver_name(driver);
  Workspace workspace(state, record.op);
  auto work = workspace.take<T>(sizes.work, name + " workspace");
  auto iwork = workspace.take<int>(sizes.iwork, name + " integer workspace");
  // NumPy's and SciPy's gelsd/gelss: machine precision; PyTorch's gelsy: eps * max(m, n).
  const T rcond =
      driver == LstsqDriver::Gelsy ? std::numeric_limits<T>::epsilon() * static_cast<T>(std::max(m, n)) : T(-1);
  int info = 0;
  time_repeats(record, 1, [&] {
    info = lstsq_run<T>(driver, m, n, nrhs, reinterpret_cast<T*>(a.data()), reinterpret_cast<T*>(b.data()),
                        reinterpret_cast<T*>(s.data()), rcond, rank, work, iwork);
  });
  return info;
}

// The same for a complex A and B: real singular values and LAPACK's real RWORK. `a` and `b`
// may have columns past A's `n` and B's `nrhs` (see run_lstsq_op).
template <typename Real>
int run_complex_lstsq(RunState& state, KernelRecord& record, LstsqDriver driver, HostTensor& a, std::int64_t n,
                      HostTensor& b, std::int64_t nrhs, HostTensor& s, int& rank) {
  using Complex = std::complex<Real>;
  const auto m = static_cast<std::int64_t>(a.rows());
  const auto sizes = complex_lstsq_workspace<Real>(driver, m, n, nrhs);
  const std::string name = driver_name(driver);
  Workspace workspace(state, record.op);
  auto work = workspace.take<Complex>(sizes.work, name + " workspace");
  auto rwork = workspace.take<Real>(sizes.rwork, name + " real workspace");
  auto iwork = workspace.take<int>(sizes.iwork, name + " integer workspace");
  const Real rcond = driver == LstsqDriver::Gelsy
                         ? std::numeric_limits<Real>::epsilon() * static_cast<Real>(std::max(m, n))
                         : Real(-1);
  int info = 0;
  time_repeats(record, 1, [&] {
    info = complex_lstsq_run<Real>(driver, m, n, nrhs, reinterpret_cast<Complex*>(a.data()),
                                   reinterpret_cast<Complex*>(b.data()), reinterpret_cast<Real*>(s.data()), rcond, rank,
                                   work, rwork, iwork);
  });
  return info;
}

}  // namespace

KernelRecord run_svd_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const HostTensor& a = input_tensor(state, op.a);
  require_real_matrix(a, "svd", true);
  const SvdDriver driver = svd_driver_named(op.driver).value_or(SvdDriver::Gesdd);
  describe_lapack_call(record, a, driver_name(driver));
  ScopedTemporaries temps(state);
  // A complex copy gets room for OpenBLAS's over-read (complex_overread_room).
  const bool complex = kind(a.dtype()) == DTypeKind::Complex;
  const std::uint64_t slack = complex ? complex_overread_columns(a.rows(), a.cols(), a.rows()) : 0;
  HostTensor& work = column_major_copy(state, temps, a, a.rows(), "op" + std::to_string(op.index) + ".a", slack);
  const std::uint64_t k = std::min(a.rows(), a.cols());
  HostTensor& s = state.create(op.out, real_part_dtype(a.dtype()), {k}, MemoryOrder::C);
  HostTensor* u =
      op.compute_uv ? &state.create(op.out + "_u", a.dtype(), {a.rows(), k}, MemoryOrder::Fortran) : nullptr;
  HostTensor* vt =
      op.compute_uv ? &state.create(op.out + "_vt", a.dtype(), {k, a.cols()}, MemoryOrder::Fortran) : nullptr;
  record.operands = {operand_record("a", a, static_cast<std::int64_t>(work.leading_dim()))};
  record.bytes_touched = a.element_count() * item_size(a.dtype());
  emit_kernel_started(state, record);
  XerblaCapture capture = streamed_xerbla(state, record.op);
  const auto cols = static_cast<std::int64_t>(a.cols());
  int info = 0;
  switch (a.dtype()) {
    case DType::Float64: info = run_svd<double>(state, record, driver, work, s, u, vt); break;
    case DType::Complex128: info = run_complex_svd<double>(state, record, driver, work, cols, s, u, vt); break;
    case DType::Complex64: info = run_complex_svd<float>(state, record, driver, work, cols, s, u, vt); break;
    default: info = run_svd<float>(state, record, driver, work, s, u, vt); break;
  }
  finish_lapack(state, record, capture, info, argument_names(driver), positive_info_meaning(driver));
  record_output(record, "out", s);
  if (u) record_output(record, "u", *u);
  if (vt) record_output(record, "vt", *vt);
  return record;
}

KernelRecord run_lstsq_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const HostTensor& a = input_tensor(state, op.a);
  const HostTensor& b = input_tensor(state, op.b);
  require_real_matrix(a, "lstsq", true);
  require_right_hand_side(a, b, "lstsq");
  const LstsqDriver driver = lstsq_driver_named(op.driver).value_or(LstsqDriver::Gelsd);
  const std::int64_t nrhs = b.is_matrix() ? static_cast<std::int64_t>(b.cols()) : 1;
  describe_lapack_call(record, a, driver_name(driver));
  ScopedTemporaries temps(state);
  const std::string prefix = "op" + std::to_string(op.index) + ".";
  // Complex ones get the room after A and B that the complex SVD needs (see run_svd_op).
  const bool complex = kind(a.dtype()) == DTypeKind::Complex;
  const std::uint64_t b_rows = std::max(a.rows(), a.cols());
  const auto slack = [complex, &a](std::uint64_t rows) -> std::uint64_t {
    return complex ? complex_overread_columns(a.rows(), a.cols(), rows) : 0;
  };
  HostTensor& work_a = column_major_copy(state, temps, a, a.rows(), prefix + "a", slack(a.rows()));
  HostTensor& work_b = column_major_copy(state, temps, b, b_rows, prefix + "b", slack(b_rows));
  HostTensor& s =
      state.create(temps.add(prefix + "s"), real_part_dtype(a.dtype()), {std::min(a.rows(), a.cols())}, MemoryOrder::C);
  record.operands = {operand_record("a", a, static_cast<std::int64_t>(work_a.leading_dim())),
                     operand_record("b", b, static_cast<std::int64_t>(work_b.leading_dim()))};
  record.bytes_touched = (a.element_count() + b.element_count()) * item_size(a.dtype());
  emit_kernel_started(state, record);
  XerblaCapture capture = streamed_xerbla(state, record.op);
  int rank = 0;
  int info = 0;
  const auto cols = static_cast<std::int64_t>(a.cols());
  switch (a.dtype()) {
    case DType::Float64: info = run_lstsq<double>(state, record, driver, work_a, work_b, nrhs, s, rank); break;
    case DType::Complex128:
      info = run_complex_lstsq<double>(state, record, driver, work_a, cols, work_b, nrhs, s, rank);
      break;
    case DType::Complex64:
      info = run_complex_lstsq<float>(state, record, driver, work_a, cols, work_b, nrhs, s, rank);
      break;
    default: info = run_lstsq<float>(state, record, driver, work_a, work_b, nrhs, s, rank); break;
  }
  finish_lapack(state, record, capture, info, argument_names(driver), positive_info_meaning(driver));
  if (info == 0) {
    // X is the first n rows of the working B.
    std::vector<std::uint64_t> shape{a.cols()};
    if (b.is_matrix()) shape.push_back(b.cols());
    HostTensor& x = state.create(op.out, a.dtype(), shape, MemoryOrder::Fortran);
    const std::size_t size = item_size(a.dtype());
    for (std::uint64_t j = 0; j < static_cast<std::uint64_t>(nrhs); ++j) {
      for (std::uint64_t i = 0; i < a.cols(); ++i) {
        std::memcpy(x.data() + (b.is_matrix() ? x.offset_of(i, j) : i * size), work_b.data() + work_b.offset_of(i, j),
                    size);
      }
    }
    record_output(record, "out", x);
  }
  return record;
}

}  // namespace blasscope::core
