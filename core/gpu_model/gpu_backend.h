#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/gemm.h"
#include "results/kernel_record.h"
#include "results/run_event.h"
#include "tensor/host_tensor.h"

namespace blasscope::core {

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

// Reports the GPU buffers an op allocates and frees, as they happen.
using GpuEventEmitter = std::function<void(const events::DeviceBuffer&)>;

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
inline constexpr int kGpuPluginAbiVersion = 3;
inline constexpr const char* kGpuPluginAbiSymbol = "blasscope_gpu_abi_version";
inline constexpr const char* kGpuPluginCreateSymbol = "blasscope_gpu_create";
using GpuPluginAbiFn = int (*)();
// Returns a backend, or nullptr with the reason written to `reason` (NUL-terminated).
using GpuPluginCreateFn = GpuBackend* (*)(char* reason, std::size_t reason_size);

}  // namespace blasscope::core
