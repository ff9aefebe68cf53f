// The svd and lstsq ops: LAPACK ?gesdd and ?gelsd, called as NumPy calls them.
#include <algorithm>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "exec/cpu_ops.h"
#include "exec/op_support.h"
#include "kernels/dlascl.h"
#include "kernels/lapack_drivers.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

void require_real_matrix(const HostTensor& t, const char* op) {
  if (t.dtype() != DType::Float64 && t.dtype() != DType::Float32) {
    throw OpRejected(ErrorKind::UnsupportedDtype, std::string(op) + " runs on float32/float64 matrices; '" + t.name() +
                                                      "' is " + dtype_name(t.dtype()));
  }
  if (!t.is_matrix()) {
    throw OpRejected(ErrorKind::ShapeMismatch,
                     std::string(op) + " needs a 2-D matrix; '" + t.name() + "' has shape " + format_shape(t.shape()));
  }
}

// A dense column-major working copy (LAPACK overwrites its input), `rows` x `cols`.
HostTensor& column_major_copy(RunState& state, ScopedTemporaries& temporaries, const HostTensor& src,
                              std::uint64_t rows, const std::string& name) {
  HostTensor& work =
      state.create(temporaries.add(name), src.dtype(), {rows, src.is_matrix() ? src.cols() : 1}, MemoryOrder::Fortran);
  const std::size_t size = item_size(src.dtype());
  for (std::uint64_t i = 0; i < src.rows(); ++i) {
    for (std::uint64_t j = 0; j < (src.is_matrix() ? src.cols() : 1); ++j) {
      const std::uint64_t from = src.is_matrix() ? src.offset_of(i, j) : i * size;
      std::memcpy(work.data() + work.offset_of(i, j), src.data() + from, size);
    }
  }
  return work;
}

// LAPACK workspace charged to the memory budget for as long as the op runs, and reported
// (workspace_allocated / workspace_freed) so the memory view shows it beside the tensors.
class Workspace {
 public:
  Workspace(RunState& state, std::size_t op) : m_state(state), m_op(op) {}
  ~Workspace() {
    for (const auto& [what, bytes] : m_parts) {
      m_state.release(bytes);
      m_state.publish(events::Workspace{false, m_op, what, bytes});
    }
    if (!m_parts.empty()) m_state.publish(events::HostMemory{m_state.budget().used()});
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  template <typename T>
  std::vector<T> take(std::int64_t elements, const std::string& what) {
    const auto bytes = static_cast<std::uint64_t>(elements) * sizeof(T);
    m_state.reserve(bytes, "op " + std::to_string(m_op) + "'s " + what);
    std::vector<T> storage;
    try {
      storage.resize(static_cast<std::size_t>(elements));
    } catch (const std::bad_alloc&) {
      m_state.release(bytes);
      throw;
    }
    m_parts.emplace_back(what, bytes);
    m_state.publish(events::Workspace{true, m_op, what, bytes});
    m_state.publish(events::HostMemory{m_state.budget().used()});
    return storage;
  }

 private:
  RunState& m_state;
  std::size_t m_op;
  std::vector<std::pair<std::string, std::uint64_t>> m_parts;
};

template <typename T>
int run_gesdd(RunState& state, KernelRecord& record, HostTensor& a, HostTensor& s) {
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  const auto sizes = gesdd_workspace<T>(m, n);
  Workspace workspace(state, record.op);
  auto work = workspace.take<T>(sizes.work, "gesdd workspace");
  auto iwork = workspace.take<int>(sizes.iwork, "gesdd integer workspace");
  int info = 0;
  time_repeats(record, 1, [&] {
    info = gesdd_values<T>(m, n, reinterpret_cast<T*>(a.data()), reinterpret_cast<T*>(s.data()), work, iwork);
  });
  return info;
}

template <typename T>
int run_gelsd(RunState& state, KernelRecord& record, HostTensor& a, HostTensor& b, std::int64_t nrhs, HostTensor& s,
              int& rank) {
  const auto m = static_cast<std::int64_t>(a.rows()), n = static_cast<std::int64_t>(a.cols());
  const auto sizes = gelsd_workspace<T>(m, n, nrhs);
  Workspace workspace(state, record.op);
  auto work = workspace.take<T>(sizes.work, "gelsd workspace");
  auto iwork = workspace.take<int>(sizes.iwork, "gelsd integer workspace");
  int info = 0;
  time_repeats(record, 1, [&] {
    info = gelsd_solve<T>(m, n, nrhs, reinterpret_cast<T*>(a.data()), reinterpret_cast<T*>(b.data()),
                          reinterpret_cast<T*>(s.data()), T(-1), rank, work, iwork);
  });
  return info;
}

std::string lapack_name(DType dtype, const char* driver) {
  std::string name(dtype == DType::Float64 ? "d" : "s");
  name += driver;
  return name;
}

void finish_lapack(RunState& state, KernelRecord& record, const XerblaCapture& capture, int info,
                   const char* argument_names[], int argument_count) {
  record.info = info;
  // Inside the drivers the errors come from DLASCL (a NaN norm as CFROM) and its kin.
  record_argument_errors(state, record, capture.calls(), [&](int p) {
    const bool lascl = !capture.calls().empty() && capture.calls().front().routine.ends_with("LASCL");
    return lascl ? std::string(lascl_parameter_name(p)) +
                       (p == 4 ? " (the matrix norm: NaN when the matrix holds NaN)" : "")
                 : "parameter " + std::to_string(p);
  });
  if (info < 0 && record.xerbla.empty()) {
    record.status = OpStatus::Failed;
    record.error_kind = ErrorKind::IllegalArgument;
    const int p = -info;
    record.error = record.kernel + " returned INFO=" + std::to_string(info) + ": argument " + std::to_string(p) +
                   (p <= argument_count ? " (" + std::string(argument_names[p - 1]) + ")" : std::string()) +
                   " had an illegal value";
  } else if (info > 0) {
    record.status = OpStatus::Failed;
    record.error_kind = ErrorKind::LapackFailed;
    record.error = record.kernel + " returned INFO=" + std::to_string(info) + ": the SVD did not converge";
  }
}

}  // namespace

KernelRecord run_svd_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const HostTensor& a = input_tensor(state, op.a);
  require_real_matrix(a, "svd");
  record.kernel = lapack_name(a.dtype(), "gesdd");
  record.dtype = a.dtype();
  record.m = static_cast<std::int64_t>(a.rows());
  record.n = static_cast<std::int64_t>(a.cols());
  ScopedTemporaries temps(state);
  HostTensor& work = column_major_copy(state, temps, a, a.rows(), "op" + std::to_string(op.index) + ".a");
  HostTensor& s = state.create(op.out, a.dtype(), {std::min(a.rows(), a.cols())}, MemoryOrder::C);
  record.operands = {operand_record("a", a, static_cast<std::int64_t>(work.leading_dim()))};
  record.bytes_touched = a.element_count() * item_size(a.dtype());
  emit_kernel_started(state, record);
  XerblaCapture capture;
  const int info = a.dtype() == DType::Float64 ? run_gesdd<double>(state, record, work, s)
                                               : run_gesdd<float>(state, record, work, s);
  static const char* kNames[] = {"JOBZ", "M",  "N",    "A",    "LDA",   "S",     "U",
                                 "LDU",  "VT", "LDVT", "WORK", "LWORK", "IWORK", "INFO"};
  finish_lapack(state, record, capture, info, kNames, 14);
  if (info == 0) {
    const auto [nan, inf] = count_nonfinite(s);
    record.output_nan = nan;
    record.output_inf = inf;
  }
  return record;
}

KernelRecord run_lstsq_op(const OpSpec& op, RunState& state) {
  KernelRecord record = record_for(op);
  const HostTensor& a = input_tensor(state, op.a);
  const HostTensor& b = input_tensor(state, op.b);
  require_real_matrix(a, "lstsq");
  if (b.dtype() != a.dtype()) {
    throw OpRejected(ErrorKind::DtypeMismatch,
                     "lstsq: a is " + dtype_name(a.dtype()) + " but b is " + dtype_name(b.dtype()));
  }
  if (b.shape().empty() || b.shape().size() > 2 || b.rows() != a.rows()) {
    throw OpRejected(ErrorKind::ShapeMismatch, "lstsq: b has shape " + format_shape(b.shape()) + " but a has " +
                                                   std::to_string(a.rows()) + " rows");
  }
  const std::int64_t nrhs = b.is_matrix() ? static_cast<std::int64_t>(b.cols()) : 1;
  record.kernel = lapack_name(a.dtype(), "gelsd");
  record.dtype = a.dtype();
  record.m = static_cast<std::int64_t>(a.rows());
  record.n = static_cast<std::int64_t>(a.cols());
  ScopedTemporaries temps(state);
  const std::string prefix = "op" + std::to_string(op.index) + ".";
  HostTensor& work_a = column_major_copy(state, temps, a, a.rows(), prefix + "a");
  HostTensor& work_b = column_major_copy(state, temps, b, std::max(a.rows(), a.cols()), prefix + "b");
  HostTensor& s = state.create(temps.add(prefix + "s"), a.dtype(), {std::min(a.rows(), a.cols())}, MemoryOrder::C);
  record.operands = {operand_record("a", a, static_cast<std::int64_t>(work_a.leading_dim())),
                     operand_record("b", b, static_cast<std::int64_t>(work_b.leading_dim()))};
  record.bytes_touched = (a.element_count() + b.element_count()) * item_size(a.dtype());
  emit_kernel_started(state, record);
  XerblaCapture capture;
  int rank = 0;
  const int info = a.dtype() == DType::Float64 ? run_gelsd<double>(state, record, work_a, work_b, nrhs, s, rank)
                                               : run_gelsd<float>(state, record, work_a, work_b, nrhs, s, rank);
  static const char* kNames[] = {"M", "N",     "NRHS", "A",    "LDA",   "B",     "LDB",
                                 "S", "RCOND", "RANK", "WORK", "LWORK", "IWORK", "INFO"};
  finish_lapack(state, record, capture, info, kNames, 14);
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
    const auto [nan, inf] = count_nonfinite(x);
    record.output_nan = nan;
    record.output_inf = inf;
  }
  return record;
}

}  // namespace blasscope::core
