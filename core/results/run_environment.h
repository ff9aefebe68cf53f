#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "kernels/cpu_environment.h"

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

// Whether the GPU side can run, on what, or why not.
struct GpuEnvironment {
  bool available = false;
  std::string plugin;                   // the plugin's path
  std::string reason;                   // why there is no GPU (when not available)
  std::optional<GpuDeviceInfo> device;  // when available
};

// The machine a run ran on, as its run_started event and `blasscope-worker --environment`
// describe it.
struct RunEnvironment {
  std::optional<CpuEnvironment> cpu;  // absent in sessions that did not record it
  GpuEnvironment gpu;
  // Nothing was described (no run_started arrived): JSON {}.
  bool empty() const { return !cpu && !gpu.available && gpu.plugin.empty() && gpu.reason.empty() && !gpu.device; }
};

void to_json(nlohmann::json& j, const CpuEnvironment& env);
void from_json(const nlohmann::json& j, CpuEnvironment& env);
void to_json(nlohmann::json& j, const GpuDeviceInfo& info);
void from_json(const nlohmann::json& j, GpuDeviceInfo& info);
void to_json(nlohmann::json& j, const RunEnvironment& env);
void from_json(const nlohmann::json& j, RunEnvironment& env);

// `blasscope-worker --environment`'s line, read back; nullopt when it is not one.
std::optional<RunEnvironment> parse_environment(const std::string& line);
std::string environment_line(const RunEnvironment& env);

}  // namespace blasscope::core
