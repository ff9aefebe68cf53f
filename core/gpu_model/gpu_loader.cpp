#include "gpu_model/gpu_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

namespace blasscope::core {
namespace {

// "libcublas.so.13: cannot open shared object file" -> a reason naming the library.
std::string explain_dlopen_error(const std::string& plugin, const std::string& error) {
  std::smatch match;
  static const std::regex missing(R"((lib[A-Za-z0-9_+\-]+\.so[.0-9]*): cannot open shared object file)");
  if (std::regex_search(error, match, missing) && match[1].str().find("blasscope_gpu") == std::string::npos) {
    return "a CUDA library the GPU plugin needs could not be loaded: " + match[1].str() +
           " (install the CUDA runtime libraries or add their folder to LD_LIBRARY_PATH; " + error + ")";
  }
  return "the GPU plugin " + plugin + " could not be loaded: " + error;
}

}  // namespace

bool gpu_plugin_built() {
  return BLASSCOPE_GPU_PLUGIN_BUILT != 0;
}

std::string default_gpu_plugin_path() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return (self.parent_path().parent_path() / "lib" / "libblasscope_gpu.so").string();
}

GpuLoad load_gpu_backend(const std::string& path_override) {
  GpuLoad load;
  const char* env = std::getenv("BLASSCOPE_GPU_PLUGIN");
  load.plugin_path = !path_override.empty() ? path_override : env ? env : default_gpu_plugin_path();
  if (path_override.empty() && !env && !gpu_plugin_built()) {
    load.reason = "the GPU plugin was not built: no CUDA toolkit was found when this BLAScope was compiled";
    return load;
  }
  std::error_code error;
  if (!std::filesystem::exists(load.plugin_path, error)) {
    load.reason = "the GPU plugin is missing: " + load.plugin_path + " does not exist";
    return load;
  }
  // Kept loaded for the life of the process: CUDA libraries do not like being unloaded.
  void* handle = ::dlopen(load.plugin_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* message = ::dlerror();
    load.reason = explain_dlopen_error(load.plugin_path, message ? message : "unknown error");
    return load;
  }
  const auto abi = reinterpret_cast<GpuPluginAbiFn>(::dlsym(handle, kGpuPluginAbiSymbol));
  const auto create = reinterpret_cast<GpuPluginCreateFn>(::dlsym(handle, kGpuPluginCreateSymbol));
  if (abi == nullptr || create == nullptr) {
    load.reason = "the GPU plugin " + load.plugin_path + " lacks the symbol " +
                  (abi == nullptr ? kGpuPluginAbiSymbol : kGpuPluginCreateSymbol) + " (not a BLAScope plugin?)";
    return load;
  }
  if (abi() != kGpuPluginAbiVersion) {
    load.reason = "the GPU plugin was built for another BLAScope (interface version " + std::to_string(abi()) +
                  ", this one needs " + std::to_string(kGpuPluginAbiVersion) + ")";
    return load;
  }
  char reason[1024] = {};
  GpuBackend* backend = create(reason, sizeof reason);
  if (backend == nullptr) {
    load.reason = reason[0] != '\0' ? reason : "the GPU plugin could not start (no reason given)";
    return load;
  }
  load.backend.reset(backend);
  return load;
}

}  // namespace blasscope::core
