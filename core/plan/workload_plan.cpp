#include "plan/workload_plan.h"

#include <algorithm>
#include <optional>

#include "kernels/complex_lstsq.h"
#include "kernels/complex_svd.h"
#include "kernels/gemm.h"
#include "kernels/lapack_drivers.h"
#include "kernels/lapack_factorisations.h"
#include "tensor/dtype_promotion.h"
#include "tensor/host_tensor.h"
#include "text/format.h"
#include "workload/tensor_factory.h"

namespace blasscope::core {
namespace {

constexpr std::uint64_t kAliasingBytes = 4096;
constexpr std::uint64_t kAliasingMinOuter = 64;  // fewer rows than this rarely collide in cache

std::uint64_t element_count(const TensorMeta& t) {
  std::uint64_t n = 1;
  for (auto d : t.shape) n *= d;
  return n;
}

std::uint64_t outer_of(const TensorMeta& t) {
  return t.order == MemoryOrder::C ? t.shape[0] : t.shape[1];
}
std::uint64_t inner_of(const TensorMeta& t) {
  return t.order == MemoryOrder::C ? t.shape[1] : t.shape[0];
}
std::uint64_t ld_of(const TensorMeta& t) {
  return t.ld != 0 ? t.ld : dense_leading_dim(t.shape, t.order);
}

TensorMeta meta_of(DType dtype, std::vector<std::uint64_t> shape, MemoryOrder order) {
  TensorMeta t{dtype, std::move(shape), order, 0, 0, true};
  t.bytes = HostTensor::storage_bytes_for(dtype, t.shape, order, 0) + HostTensor::kAllocationOverhead;
  return t;
}

// LAPACK's workspace query for the op's driver: an SVD (no B) or least squares (B with
// `nrhs` columns), in bytes.
template <typename T>
std::uint64_t lapack_workspace_bytes(const OpSpec& op, std::uint64_t m, std::uint64_t n,
                                     std::optional<std::uint64_t> nrhs) {
  const auto sizes =
      nrhs ? lstsq_workspace<T>(lstsq_driver_named(op.driver).value_or(LstsqDriver::Gelsd), m, n, *nrhs)
           : svd_workspace<T>(svd_driver_named(op.driver).value_or(SvdDriver::Gesdd), op.compute_uv, m, n);
  return static_cast<std::uint64_t>(sizes.work) * sizeof(T) + static_cast<std::uint64_t>(sizes.iwork) * sizeof(int);
}

// A complex SVD's: A's copy with room after it, U and V^H with the same room (see run_svd_op),
// and LAPACK's complex, real and integer workspaces.
std::uint64_t complex_svd_transient_bytes(const OpSpec& op, const TensorMeta& a) {
  const std::uint64_t m = a.shape[0], n = a.shape[1], k = std::min(m, n), item = item_size(a.dtype);
  const std::uint64_t room = complex_overread_room(m, n);
  const SvdDriver driver = svd_driver_named(op.driver).value_or(SvdDriver::Gesdd);
  const auto sizes = a.dtype == DType::Complex128
                         ? complex_svd_workspace<double>(driver, op.compute_uv, static_cast<std::int64_t>(m),
                                                         static_cast<std::int64_t>(n))
                         : complex_svd_workspace<float>(driver, op.compute_uv, static_cast<std::int64_t>(m),
                                                        static_cast<std::int64_t>(n));
  std::uint64_t bytes = (m * n + room + m) * item + HostTensor::kAllocationOverhead;
  if (op.compute_uv) bytes += (m * k + k * n + 2 * room) * item;
  return bytes + static_cast<std::uint64_t>(sizes.work) * item + static_cast<std::uint64_t>(sizes.rwork) * item / 2 +
         static_cast<std::uint64_t>(sizes.iwork) * sizeof(int);
}

// A complex lstsq's: LAPACK's complex, real and integer workspaces.
std::uint64_t complex_lstsq_workspace_bytes(const OpSpec& op, DType dtype, std::uint64_t m, std::uint64_t n,
                                            std::uint64_t nrhs) {
  const LstsqDriver driver = lstsq_driver_named(op.driver).value_or(LstsqDriver::Gelsd);
  const auto rows = static_cast<std::int64_t>(m), cols = static_cast<std::int64_t>(n);
  const auto sizes = dtype == DType::Complex128
                         ? complex_lstsq_workspace<double>(driver, rows, cols, static_cast<std::int64_t>(nrhs))
                         : complex_lstsq_workspace<float>(driver, rows, cols, static_cast<std::int64_t>(nrhs));
  const std::uint64_t item = item_size(dtype);
  return static_cast<std::uint64_t>(sizes.work) * item + static_cast<std::uint64_t>(sizes.rwork) * item / 2 +
         static_cast<std::uint64_t>(sizes.iwork) * sizeof(int);
}

// What a LAPACK driver op holds while it runs: column-major copies of A (and B, with room
// for the solution), the singular values for lstsq, and the workspace LAPACK asks for.
std::uint64_t lapack_transient_bytes(const OpSpec& op, const TensorMeta& a, const TensorMeta* b) {
  const bool complex = kind(a.dtype) == DTypeKind::Complex;
  if (!b && complex) return complex_svd_transient_bytes(op, a);
  if (a.dtype != DType::Float32 && a.dtype != DType::Float64 && !complex) return 0;
  const std::uint64_t m = a.shape[0], n = a.shape[1], item = item_size(a.dtype);
  std::uint64_t bytes = m * n * item + HostTensor::kAllocationOverhead;
  std::optional<std::uint64_t> nrhs;
  if (b) {
    nrhs = b->shape.size() == 2 ? b->shape[1] : 1;
    bytes += (std::max(m, n) * *nrhs + std::min(m, n)) * item + 2 * HostTensor::kAllocationOverhead;
  }
  if (complex) {
    // A's and B's copies have room after them (see run_lstsq_op): whole columns of each.
    const std::uint64_t room = complex_overread_room(m, n);
    bytes += (room + m + room + std::max(m, n)) * item;
    return bytes + complex_lstsq_workspace_bytes(op, a.dtype, m, n, *nrhs);
  }
  return bytes + (a.dtype == DType::Float64 ? lapack_workspace_bytes<double>(op, m, n, nrhs)
                                            : lapack_workspace_bytes<float>(op, m, n, nrhs));
}

class Planner {
 public:
  explicit Planner(WorkloadPlan& plan) : m_plan(plan) {}

  void add_input(const TensorSpec& spec) {
    TensorMeta meta;
    try {
      const TensorRequirement r = requirement_of(spec);
      meta = {r.dtype, r.shape, r.order, 0, r.bytes, true};
      if (const auto* s = std::get_if<SyntheticTensorSource>(&spec.source)) meta.ld = s->ld;
    } catch (const std::exception&) {
      meta.known = false;  // the runner reports why when it tries to load it
    }
    m_plan.tensors[spec.name] = meta;
  }

  void add_op(const OpSpec& op) {
    const TensorMeta* a = find(op.a);
    if (!a) return unknown(op.out);
    switch (op.kind) {
      case OpKind::Gemm: return plan_gemm_op(op, *a);
      case OpKind::Dlascl: return plan_lascl_op(op, *a);
      case OpKind::Svd: {
        if (!check_index(op, op.a, *a) || a->shape.size() != 2) return unknown(op.out);
        transient(lapack_transient_bytes(op, *a, nullptr));
        const std::uint64_t k = std::min(a->shape[0], a->shape[1]);
        if (op.compute_uv) {
          output(op.out + "_u", meta_of(a->dtype, {a->shape[0], k}, MemoryOrder::Fortran));
          output(op.out + "_vt", meta_of(a->dtype, {k, a->shape[1]}, MemoryOrder::Fortran));
        }
        // Singular values are real, whatever A is.
        return output(op.out, meta_of(real_part_dtype(a->dtype), {k}, MemoryOrder::C));
      }
      case OpKind::Lstsq: {
        const TensorMeta* b = find(op.b);
        if (!b || !check_index(op, op.a, *a) || !check_index(op, op.b, *b) || a->shape.size() != 2) {
          return unknown(op.out);
        }
        std::vector<std::uint64_t> shape{a->shape[1]};
        if (b->shape.size() == 2) shape.push_back(b->shape[1]);
        transient(lapack_transient_bytes(op, *a, b));
        return output(op.out, meta_of(a->dtype, shape, MemoryOrder::Fortran));
      }
      case OpKind::Cholesky:
      case OpKind::Lu:
      case OpKind::Solve:
      case OpKind::LuSolve:
      case OpKind::Eigh: return plan_factor_op(op, *a);
      case OpKind::Cast: return output(op.out, meta_of(op.cast_to, a->shape, a->order));
      case OpKind::Gemv:
      case OpKind::Syrk:
      case OpKind::Trsm: return plan_blas_call_op(op, *a);
    }
  }

  // cholesky, lu, solve, lu_solve, eigh: a column-major copy of A (and B) while it runs; the
  // result is the factor (A's shape), the solution (B's) or the eigenvalues (and eigenvectors).
  void plan_factor_op(const OpSpec& op, const TensorMeta& a) {
    const bool solves = op.kind == OpKind::Solve || op.kind == OpKind::LuSolve;
    const TensorMeta* b = solves ? find(op.b) : nullptr;
    if (!check_index(op, op.a, a) || a.shape.size() != 2 || (solves && (!b || !check_index(op, op.b, *b)))) {
      return unknown(op.out);
    }
    const std::uint64_t item = item_size(a.dtype), n = a.shape[1];
    std::uint64_t bytes = a.shape[0] * n * item + HostTensor::kAllocationOverhead;
    if (b) bytes += b->bytes;
    // The parser names the routine of every factorisation op ("potrf" for cholesky, ...).
    const auto workspace =
        factor_workspace(a.dtype, factor_driver_named(op.driver).value_or(FactorDriver::Potrf), op.compute_uv,
                         static_cast<std::int64_t>(a.shape[0]), static_cast<std::int64_t>(n));
    if (const auto [size_name, elements] = largest_workspace(workspace);
        static_cast<std::uint64_t>(elements) > kBlasIntMax) {
      predict({"index-overflow",
               Severity::Error,
               op.index,
               op.a,
               "op " + std::to_string(op.index) + " (" + std::string(core::name(op.kind)) +
                   "): its LAPACK workspace for '" + op.a + "' " + format_shape(a.shape) + " is " +
                   std::to_string(elements) + " elements, beyond 2^31 - 1, the largest " + size_name +
                   " a 32-bit LAPACK takes",
               {{"shape", a.shape}, {"elements", elements}, {"limit", kBlasIntMax}}});
      m_plan.skip_ops.insert(op.index);
      return unknown(op.out);
    }
    // A complex driver's RWORK is of its real part: half an element each.
    bytes += static_cast<std::uint64_t>(workspace.work) * item +
             static_cast<std::uint64_t>(workspace.rwork) * item / 2 +
             static_cast<std::uint64_t>(workspace.iwork) * sizeof(int);
    transient(bytes);
    if (op.kind == OpKind::Eigh) {
      if (op.compute_uv) output(op.out + "_v", meta_of(a.dtype, a.shape, MemoryOrder::Fortran));
      return output(op.out, meta_of(real_part_dtype(a.dtype), {n}, MemoryOrder::C));
    }
    output(op.out, meta_of(a.dtype, b ? b->shape : a.shape, MemoryOrder::Fortran));
  }

  // Memory an op holds only while it runs; the largest of these adds to the peak.
  std::uint64_t transient_peak() const { return m_transient_peak; }

 private:
  void transient(std::uint64_t bytes) { m_transient_peak = std::max(m_transient_peak, bytes); }

  const TensorMeta* find(const std::string& name) const {
    const auto it = m_plan.tensors.find(name);
    return it != m_plan.tensors.end() && it->second.known ? &it->second : nullptr;
  }

  void unknown(const std::string& name) {
    if (!m_plan.tensors.count(name)) m_plan.tensors[name].known = false;
  }

  void output(const std::string& name, TensorMeta meta) {
    m_plan.predicted_peak_bytes += meta.bytes;
    m_plan.tensors[name] = std::move(meta);
  }

  void predict(Detection finding) { m_plan.predictions.push_back(std::move(finding)); }

  // index-overflow: a size a 32-bit BLAS integer cannot hold. The op is skipped.
  bool check_index(const OpSpec& op, const std::string& name, const TensorMeta& t) {
    std::uint64_t largest_dim = 0;
    for (auto d : t.shape) largest_dim = std::max(largest_dim, d);
    const std::uint64_t count = element_count(t);
    if (largest_dim <= kBlasIntMax && count <= kBlasIntMax && (t.shape.size() != 2 || ld_of(t) <= kBlasIntMax)) {
      return true;
    }
    const bool dimension = largest_dim > kBlasIntMax;
    predict({"index-overflow",
             Severity::Error,
             op.index,
             name,
             "op " + std::to_string(op.index) + " (" + std::string(core::name(op.kind)) + "): '" + name + "' " +
                 format_shape(t.shape) + " has " + std::to_string(count) + " elements" +
                 (dimension ? " and a dimension" : "") + " beyond 2^31 - 1, the largest 32-bit BLAS integer",
             {{"shape", t.shape},
              {"elements", count},
              {"bytes", t.bytes},
              {"limit", kBlasIntMax},
              {"dimension_too_large", dimension}}});
    m_plan.skip_ops.insert(op.index);
    return false;
  }

  // buffer-overrun: a legal leading dimension that makes the kernel walk past the data.
  void check_extent(const OpSpec& op, const char* role, const std::string& name, const TensorMeta& t,
                    std::optional<std::int64_t> ld_override) {
    if (t.shape.size() != 2 || outer_of(t) == 0 || inner_of(t) == 0) return;
    const std::int64_t ld = ld_override.value_or(static_cast<std::int64_t>(ld_of(t)));
    if (ld < static_cast<std::int64_t>(inner_of(t))) return;  // illegal: BLAS rejects it (xerbla)
    const std::uint64_t extent = (outer_of(t) - 1) * static_cast<std::uint64_t>(ld) + inner_of(t);
    const std::uint64_t stored = HostTensor::storage_bytes_for(t.dtype, t.shape, t.order, t.ld) / item_size(t.dtype);
    if (extent <= stored) return;
    predict({"buffer-overrun",
             Severity::Error,
             op.index,
             name,
             "op " + std::to_string(op.index) + ": ld" + role + "=" + std::to_string(ld) + " makes the kernel read " +
                 std::to_string(extent) + " elements of '" + name + "', which holds " + std::to_string(stored),
             {{"role", role},
              {"ld", ld},
              {"shape", t.shape},
              {"order", std::string(core::name(t.order))},
              {"elements_read", extent},
              {"elements_stored", stored},
              {"bytes_past_end", (extent - stored) * item_size(t.dtype)}}});
  }

  void check_aliasing(const OpSpec& op, const char* role, const std::string& name, const TensorMeta& t,
                      std::optional<std::int64_t> ld_override) {
    if (t.shape.size() != 2) return;
    const std::int64_t ld = ld_override.value_or(static_cast<std::int64_t>(ld_of(t)));
    const std::uint64_t ld_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(ld, 0)) * item_size(t.dtype);
    if (ld_bytes == 0 || ld_bytes % kAliasingBytes != 0 || outer_of(t) < kAliasingMinOuter) return;
    // A risk until measured: the diagnosis engine raises it when a padded twin runs faster.
    predict({"ld-cache-aliasing",
             Severity::Info,
             op.index,
             name,
             "op " + std::to_string(op.index) + ": '" + name + "' has a leading dimension of " + std::to_string(ld) +
                 " elements = " + std::to_string(ld_bytes) + " bytes, a multiple of 4096",
             {{"role", role}, {"ld", ld}, {"ld_bytes", ld_bytes}, {"rows", outer_of(t)}}});
  }

  void plan_gemm_op(const OpSpec& op, const TensorMeta& a) {
    const TensorMeta* b = find(op.b);
    const TensorMeta* c = op.c.empty() ? nullptr : find(op.c);
    if (!b || a.shape.size() != 2 || b->shape.size() != 2) return unknown(op.out);
    const bool index_ok = check_index(op, op.a, a) && check_index(op, op.b, *b) && (!c || check_index(op, op.c, *c));
    const std::uint64_t m = op.trans_a ? a.shape[1] : a.shape[0];
    const std::uint64_t k = op.trans_a ? a.shape[0] : a.shape[1];
    const std::uint64_t k2 = op.trans_b ? b->shape[1] : b->shape[0];
    const std::uint64_t n = op.trans_b ? b->shape[0] : b->shape[1];
    if (k != k2) return unknown(op.out);  // the op reports the shape mismatch itself
    std::string unused;
    DType dtype = promote_types(a.dtype, b->dtype);
    if (!gemm_supported(dtype, unused)) dtype = blas_compute_dtype(dtype, gemm_supported(DType::BFloat16, unused));
    const DType out_dtype = dtype == DType::BFloat16 ? DType::Float32 : dtype;
    TensorMeta out = meta_of(out_dtype, {m, n}, c ? c->order : MemoryOrder::C);
    if (!index_ok) return unknown(op.out);
    check_extent(op, "a", op.a, a, op.lda);
    check_extent(op, "b", op.b, *b, op.ldb);
    // C in place keeps its own storage (padding included); any other result is a dense copy.
    check_extent(op, "c", op.out, c && op.out == op.c && c->dtype == out_dtype ? *c : out, op.ldc);
    check_aliasing(op, "a", op.a, a, op.lda);
    check_aliasing(op, "b", op.b, *b, op.ldb);
    if (op.c.empty() || op.out != op.c) output(op.out, out);
  }

  // gemv, syrk, trsm: the result is y, C or B (a copy unless in place), or a new y or C.
  void plan_blas_call_op(const OpSpec& op, const TensorMeta& a) {
    if (!check_index(op, op.a, a) || a.shape.size() != 2) return unknown(op.out);
    check_extent(op, "a", op.a, a, op.lda);
    const std::string& overwritten = op.kind == OpKind::Trsm ? op.b : op.c;
    if (!overwritten.empty()) {
      const TensorMeta* given = find(overwritten);
      if (!given) return unknown(op.out);
      // Out of place, the call writes a dense copy: its ld is checked against the copy's storage.
      const TensorMeta written = op.out == overwritten ? *given : meta_of(given->dtype, given->shape, given->order);
      if (op.kind != OpKind::Gemv) {
        check_extent(op, op.kind == OpKind::Trsm ? "b" : "c", op.out, written,
                     op.kind == OpKind::Trsm ? op.ldb : op.ldc);
      }
      if (op.out != overwritten) output(op.out, written);
      return;
    }
    const std::uint64_t n = op.trans_a ? a.shape[1] : a.shape[0];  // y's length, or C's order
    if (op.kind == OpKind::Gemv) {
      const std::uint64_t inc = static_cast<std::uint64_t>(std::llabs(op.incy.value_or(1)));
      return output(op.out, meta_of(a.dtype, {n == 0 || inc == 0 ? n : 1 + (n - 1) * inc}, MemoryOrder::C));
    }
    const TensorMeta c = meta_of(a.dtype, {n, n}, a.order);
    check_extent(op, "c", op.out, c, op.ldc);
    output(op.out, c);
  }

  void plan_lascl_op(const OpSpec& op, const TensorMeta& a) {
    if (!check_index(op, op.a, a)) return unknown(op.out);
    check_extent(op, "a", op.a, a, op.lda);
    if (op.out != op.a) output(op.out, a);
  }

  WorkloadPlan& m_plan;
  std::uint64_t m_transient_peak = 0;
};

}  // namespace

WorkloadPlan plan_workload(const Workload& workload) {
  WorkloadPlan plan;
  Planner planner(plan);
  for (const TensorSpec& spec : workload.tensors) {
    planner.add_input(spec);
    plan.predicted_peak_bytes += plan.tensors[spec.name].bytes;
  }
  for (const OpSpec& op : workload.ops) planner.add_op(op);
  plan.predicted_peak_bytes += planner.transient_peak();
  return plan;
}

}  // namespace blasscope::core
