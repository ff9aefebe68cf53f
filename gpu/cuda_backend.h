#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "gpu_model/gpu_backend.h"

namespace blasscope::gpu {

struct GpuFailure;
class EventSeries;

// The GPU backend on CUDA: cuBLAS GEMM (cublasGemmEx), BLAScope's DLASCL kernel, CUDA-event
// timing and CUPTI device events. Every CUDA and cuBLAS call is checked; a failure becomes a
// failed record (cuda-error, cublas-error, out-of-memory) with the status name.
class CudaBackend : public core::GpuBackend {
 public:
  // nullptr with the reason when there is no usable device.
  static CudaBackend* create(std::string& reason);
  ~CudaBackend() override;

  core::GpuDeviceInfo device() override;
  core::KernelRecord gemm(const core::GpuGemmRequest& request, const core::GpuEventEmitter& publish) override;
  core::KernelRecord lascl(const core::GpuLasclRequest& request, const core::GpuEventEmitter& publish) override;
  std::vector<core::GpuOpActivity> take_device_activity() override;

 private:
  explicit CudaBackend(int device) : m_device(device) {}
  // Fails the op at once when an earlier op left a sticky error.
  void checkUsable() const;
  void fail(core::KernelRecord& record, const GpuFailure& failure, std::size_t op);
  void setUpCublas(const core::GpuEventEmitter& publish, std::size_t op);
  // After the repetitions: their CUDA-event times and the median.
  void finishTimedOp(core::KernelRecord& record, EventSeries& events, int repetitions);

  int m_device;
  cudaStream_t m_stream = nullptr;
  cublasHandle_t m_handle = nullptr;  // made at the first GEMM: its failure is that op's error
  core::GpuDeviceInfo m_info;
  bool m_tracing = false;
  std::string m_broken;  // the sticky error that made the context unusable, if any
};

// Why the CUDA runtime cannot give us a device, in words users can act on.
std::string describe_runtime_error(cudaError_t error);

}  // namespace blasscope::gpu
