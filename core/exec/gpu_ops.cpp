#include "exec/gpu_ops.h"

#include <algorithm>
#include <cmath>

#include "exec/gemm_prep.h"
#include "exec/lascl_prep.h"
#include "kernels/dlascl.h"
#include "tensor/element_codec.h"

namespace blasscope::core {
namespace {

GemmDeviceTraits gpu_gemm_traits() {
  auto supported = [](DType d, std::string& reason) {
    switch (d) {
      case DType::Float16:
      case DType::BFloat16:
      case DType::Float32:
      case DType::Float64:
      case DType::Complex64:
      case DType::Complex128: return true;
      default: reason = "cuBLAS GEMM takes float16, bfloat16, float32, float64, complex64 and complex128"; return false;
    }
  };
  return {"GPU", supported, [](DType) { return DType::Float32; }, [](DType d) { return d; }};
}

template <typename T>
std::vector<double> multipliers_of(double cfrom, double cto) {
  const auto muls = lascl_multipliers<T>(static_cast<T>(cfrom), static_cast<T>(cto));
  return {muls.begin(), muls.end()};
}

// The plugin fills what it measured; the shape, operands and casts stay the runner's.
void take_device_measurements(KernelRecord& record, const KernelRecord& device) {
  record.seconds_each = device.seconds_each;
  record.seconds = device.seconds;
  record.device_seconds = device.device_seconds;
  record.device_events = device.device_events;
  record.cupti_dropped = device.cupti_dropped;
  record.device_memory_predicted = device.device_memory_predicted;
  record.device_memory_measured = device.device_memory_measured;
  record.status = device.status;
  record.error_kind = device.error_kind;
  record.error = device.error;
}

}  // namespace

KernelRecord run_gemm_on_gpu(const OpSpec& op, RunState& state, GpuBackend& gpu, const std::string& out_name) {
  KernelRecord record = record_for(op);
  record.device = Device::Gpu;
  ScopedTemporaries temporaries(state);
  const PreparedGemm g = prepare_gemm(op, state, temporaries, record, gpu_gemm_traits(), out_name);
  GpuGemmRequest request{op.index, g.dtype, g.a, g.b, g.out, g.call, op.alpha, op.beta, op.tf32, op.repeat};
  record.kernel = "cublasGemmEx";
  emit_kernel_started(state, record);
  KernelRecord device = gpu.gemm(request, [&state](const events::DeviceBuffer& e) { state.publish(e); });
  record.kernel = device.kernel;
  take_device_measurements(record, device);
  if (record.status == OpStatus::Ok) finish_gemm_record(record, g);
  return record;
}

KernelRecord run_lascl_on_gpu(const OpSpec& op, RunState& state, GpuBackend& gpu, const std::string& out_name) {
  KernelRecord record = record_for(op);
  record.device = Device::Gpu;
  const PreparedLascl p = prepare_lascl(op, state, record, out_name);
  const bool is_double = p.matrix->dtype() == DType::Float64;
  record.kernel = is_double ? "blasscope_dlascl_cuda" : "blasscope_slascl_cuda";
  emit_kernel_started(state, record);
  // LAPACK's argument checks run on the host, reported exactly as the CPU kernel does.
  XerblaCapture capture;
  const int info =
      is_double ? lascl_check<double>(p.type, p.cfrom, op.cto, p.m, p.n, p.lda)
                : lascl_check<float>(p.type, static_cast<float>(p.cfrom), static_cast<float>(op.cto), p.m, p.n, p.lda);
  record.info = info;
  if (info != 0) {
    report_argument_error(is_double ? "DLASCL" : "SLASCL", -info);
    record_argument_errors(state, record, capture.calls(), [&](int q) { return lascl_argument_meaning(p, q); });
    return record;
  }
  GpuLasclRequest request{op.index,
                          p.matrix,
                          p.type,
                          p.m,
                          p.n,
                          p.lda,
                          is_double ? multipliers_of<double>(p.cfrom, op.cto) : multipliers_of<float>(p.cfrom, op.cto),
                          op.repeat};
  KernelRecord device = gpu.lascl(request, [&state](const events::DeviceBuffer& e) { state.publish(e); });
  take_device_measurements(record, device);
  if (record.status == OpStatus::Ok) finish_lascl_record(record, p);
  return record;
}

double device_tolerance(DType dtype, bool tf32, std::uint64_t k) {
  // Unit roundoff of the computation, grown with the length of the dot products.
  double u = 0;
  switch (dtype) {
    case DType::Float64:
    case DType::Complex128: u = std::ldexp(1.0, -53); break;
    case DType::Float16: u = std::ldexp(1.0, -11); break;
    case DType::BFloat16: u = std::ldexp(1.0, -8); break;
    default: u = tf32 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24); break;
  }
  return 4 * u * std::sqrt(static_cast<double>(std::max<std::uint64_t>(k, 1))) + 4 * u;
}

DeviceComparison compare_results(const HostTensor& cpu, const HostTensor& gpu, double tolerance) {
  DeviceComparison c;
  c.tolerance = tolerance;
  double largest = 0;
  const std::uint64_t count = std::min(cpu.element_count(), gpu.element_count());
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto x = load_element(cpu.dtype(), cpu.data() + cpu.offset_of_flat(i));
    const auto y = load_element(gpu.dtype(), gpu.data() + gpu.offset_of_flat(i));
    // NaN against NaN, and the same infinity on both sides, agree (DLASCL overflows to inf on both).
    const auto same = [](double p, double q) { return p == q || (std::isnan(p) && std::isnan(q)); };
    if (same(x.real(), y.real()) && same(x.imag(), y.imag())) continue;
    const double diff = std::abs(x - y);
    if (std::isnan(diff)) {
      c.max_abs_diff = std::numeric_limits<double>::infinity();
      continue;
    }
    c.max_abs_diff = std::max(c.max_abs_diff, diff);
    if (std::isfinite(std::abs(x))) largest = std::max(largest, std::abs(x));
  }
  c.max_rel_diff = largest > 0 ? c.max_abs_diff / largest : c.max_abs_diff;
  c.agree = c.max_rel_diff <= tolerance;
  return c;
}

}  // namespace blasscope::core
