#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/kernel_record.h"
#include "kernels/gemm.h"
#include "tensor/host_tensor.h"

namespace blasscope::core {

// What the GPU plugin reports about its device.
struct GpuDeviceInfo {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_total = 0, memory_free = 0;
  int driver_version = 0, runtime_version = 0, cublas_version = 0;
  double peak_gflops_fp32 = 0, peak_gflops_fp64 = 0, bandwidth_gbytes = 0;  // estimates
  std::string cupti = "not started";                                        // "tracing", or why CUPTI is unavailable
  std::uint64_t cublas_setup_bytes = 0;  // what cuBLAS took at its first GEMM (workspace, kernels), measured
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuDeviceInfo, name, compute_major, compute_minor, sm_count,
                                                memory_total, memory_free, driver_version, runtime_version,
                                                cublas_version, peak_gflops_fp32, peak_gflops_fp64, bandwidth_gbytes,
                                                cupti, cublas_setup_bytes)

// One GEMM for the GPU, validated and planned by the runner exactly as for the CPU.
struct GpuGemmRequest {
  std::size_t op = 0;
  DType dtype = DType::Float32;  // A and B (already promoted)
  const HostTensor* a = nullptr;
  const HostTensor* b = nullptr;
  HostTensor* out = nullptr;  // host tensor that receives C (holds C's input values when beta != 0)
  GemmCall call;              // the CBLAS-style call; the plugin turns it column-major for cuBLAS
  double alpha = 1, beta = 0;
  bool tf32 = false;
  int repeat = 1;
};

// One ?LASCL for the GPU: LAPACK's checks have passed, the multipliers are computed.
struct GpuLasclRequest {
  std::size_t op = 0;
  HostTensor* matrix = nullptr;  // scaled in place (column-major view: m x n with lda)
  char type = 'G';
  std::int64_t m = 0, n = 0, lda = 0;
  std::vector<double> multipliers;
  int repeat = 1;
};

using GpuEventEmitter = std::function<void(const nlohmann::json&)>;

// What CUPTI saw of one op, delivered after the run's last op: CUPTI's buffers are flushed
// once per run, since a flush per op costs more than a small GEMM.
struct GpuOpActivity {
  std::size_t op = 0;
  std::vector<DeviceEventRecord> events;
  std::uint64_t dropped = 0;  // records CUPTI could not keep, so far in this process
};

// The interface the CUDA plugin implements. Records come back with device "gpu", CUDA-event
// timings, CUPTI device events, and cublas-error / cuda-error / out-of-memory failures.
class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual GpuDeviceInfo device() = 0;
  virtual KernelRecord gemm(const GpuGemmRequest& request, const GpuEventEmitter& publish) = 0;
  virtual KernelRecord lascl(const GpuLasclRequest& request, const GpuEventEmitter& publish) = 0;
  // The device events of every op run since the last call (empty when CUPTI is off).
  virtual std::vector<GpuOpActivity> take_device_activity() = 0;
};

// The plugin's C entry points (looked up with dlsym).
inline constexpr int kGpuPluginAbiVersion = 2;
inline constexpr const char* kGpuPluginAbiSymbol = "blasscope_gpu_abi_version";
inline constexpr const char* kGpuPluginCreateSymbol = "blasscope_gpu_create";
using GpuPluginAbiFn = int (*)();
// Returns a backend, or nullptr with the reason written to `reason` (NUL-terminated).
using GpuPluginCreateFn = GpuBackend* (*)(char* reason, std::size_t reason_size);

}  // namespace blasscope::core
