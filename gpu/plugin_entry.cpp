// The plugin's C entry points, the only symbols it exports (everything else is hidden).
#include <cstring>
#include <new>

#include "cuda_backend.h"
#include "cupti_tracer.h"

extern "C" __attribute__((visibility("default"))) int blasscope_gpu_abi_version() {
  return blasscope::core::kGpuPluginAbiVersion;
}

extern "C" __attribute__((visibility("default"))) blasscope::core::GpuBackend* blasscope_gpu_create(
    char* reason, std::size_t reason_size) {
  std::string why;
  blasscope::core::GpuBackend* backend = nullptr;
  try {
    backend = blasscope::gpu::CudaBackend::create(why);
  } catch (const std::exception& error) {
    why = std::string("the GPU plugin failed to start: ") + error.what();
  }
  if (!backend && reason && reason_size > 0) {
    std::strncpy(reason, why.c_str(), reason_size - 1);
    reason[reason_size - 1] = '\0';
  }
  return backend;
}

// Pauses (1) or resumes (0) CUPTI tracing in this process, between runs: blasscope-bench-gpu
// measures the traced kinds' cost in one process, run by run, which the noise between processes
// hides. 0 when done, -1 where CUPTI refused.
extern "C" __attribute__((visibility("default"))) int blasscope_gpu_pause_tracing(int paused) {
  return blasscope::gpu::CuptiTracer::pause(paused != 0) ? 0 : -1;
}
