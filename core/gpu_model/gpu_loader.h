#pragma once

#include <memory>
#include <string>

#include "gpu_model/gpu_backend.h"

namespace blasscope::core {

struct GpuLoad {
  std::shared_ptr<GpuBackend> backend;  // empty when the GPU cannot be used
  std::string reason;                   // why not, in words (the no-gpu diagnosis)
  std::string plugin_path;
};

// Loads the GPU plugin with dlopen and creates its backend. Every way it can fail gives a
// precise reason: the plugin was not built, its file is missing, a CUDA library it needs
// cannot be loaded (named), a symbol is missing, or the CUDA runtime has no driver or device.
// `path` overrides where the plugin is looked for (BLASSCOPE_GPU_PLUGIN does too).
GpuLoad load_gpu_backend(const std::string& path = "");

// <directory of this executable>/../lib/libblasscope_gpu.so
std::string default_gpu_plugin_path();

// Whether this build includes the GPU plugin (CUDA toolkit found at configure time).
bool gpu_plugin_built();

}  // namespace blasscope::core
