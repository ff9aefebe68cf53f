#include "results/run_environment.h"

#include "text/json.h"

namespace blasscope::core {

using nlohmann::json;

namespace {

json string_or_null(const std::string& s) {
  return s.empty() ? json() : json(s);
}

// A field that may be null (not known) or a string; anything else is a damaged file.
std::string string_or_empty(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::string();
  return j[key].get<std::string>();
}

const json& object_field(const json& j, const char* key) {
  static const json empty = json::object();
  if (!j.contains(key) || j[key].is_null()) return empty;
  if (!j[key].is_object()) throw json::type_error::create(302, std::string("\"") + key + "\" must be an object", &j);
  return j[key];
}

}  // namespace

void to_json(json& j, const CpuEnvironment& env) {
  j = {{"openblas_config", env.openblas_config},
       {"openblas_corename", env.openblas_corename},
       {"openblas_coretype_env", string_or_null(env.openblas_coretype_env)},
       {"openblas_threads", env.openblas_threads},
       {"openblas_parallel", env.openblas_parallel},
       {"has_sbgemm", env.has_sbgemm},
       {"cpu_model", env.cpu_model},
       {"logical_cpus", env.logical_cpus},
       {"simd", env.simd},
       {"nominal_ghz", env.nominal_ghz},
       {"measured_ghz", env.measured_ghz},
       {"peak_gflops_fp64", env.peak_gflops_fp64},
       {"peak_gflops_fp32", env.peak_gflops_fp32},
       {"peak_assumption", env.peak_assumption},
       {"memory_total", env.memory_total},
       {"memory_available", env.memory_available},
       {"kernel_mismatch", string_or_null(env.kernel_mismatch)}};
}

void from_json(const json& j, CpuEnvironment& env) {
  // Missing fields keep their defaults: older sessions recorded fewer of them.
  env = CpuEnvironment{};
  env.openblas_config = j.value("openblas_config", "");
  env.openblas_corename = j.value("openblas_corename", "");
  env.openblas_coretype_env = string_or_empty(j, "openblas_coretype_env");
  env.openblas_threads = j.value("openblas_threads", 0);
  env.openblas_parallel = j.value("openblas_parallel", "");
  env.has_sbgemm = j.value("has_sbgemm", false);
  env.cpu_model = j.value("cpu_model", "");
  env.logical_cpus = j.value("logical_cpus", 0u);
  env.simd = j.value("simd", std::vector<std::string>{});
  env.nominal_ghz = j.value("nominal_ghz", 0.0);
  env.measured_ghz = j.value("measured_ghz", 0.0);
  env.peak_gflops_fp64 = j.value("peak_gflops_fp64", 0.0);
  env.peak_gflops_fp32 = j.value("peak_gflops_fp32", 0.0);
  env.peak_assumption = j.value("peak_assumption", "");
  env.memory_total = j.value("memory_total", std::uint64_t{0});
  env.memory_available = j.value("memory_available", std::uint64_t{0});
  env.kernel_mismatch = string_or_empty(j, "kernel_mismatch");
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuDeviceInfo, name, compute_major, compute_minor, sm_count,
                                                memory_total, memory_free, driver_version, runtime_version,
                                                cublas_version, peak_gflops_fp32, peak_gflops_fp64, bandwidth_gbytes,
                                                cupti, cublas_setup_bytes)

void to_json(json& j, const RunEnvironment& env) {
  if (env.empty()) {
    j = json::object();
    return;
  }
  json gpu = {{"available", env.gpu.available}, {"plugin", env.gpu.plugin}};
  if (env.gpu.device) {
    gpu["device"] = *env.gpu.device;
  } else {
    gpu["reason"] = env.gpu.reason;
  }
  j = json::object();
  if (env.cpu) j["cpu"] = *env.cpu;
  j["gpu"] = std::move(gpu);
}

void from_json(const json& j, RunEnvironment& env) {
  env = RunEnvironment{};
  if (j.is_null()) return;
  if (!j.is_object()) throw json::type_error::create(302, "an environment must be an object", &j);
  if (j.contains("cpu") && !j["cpu"].is_null()) env.cpu = object_field(j, "cpu").get<CpuEnvironment>();
  const json& gpu = object_field(j, "gpu");
  env.gpu.available = gpu.value("available", false);
  env.gpu.plugin = string_or_empty(gpu, "plugin");
  env.gpu.reason = string_or_empty(gpu, "reason");
  if (gpu.contains("device") && !gpu["device"].is_null())
    env.gpu.device = object_field(gpu, "device").get<GpuDeviceInfo>();
}

std::optional<RunEnvironment> parse_environment(const std::string& line) {
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cpu")) return std::nullopt;
  try {
    return j.get<RunEnvironment>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::string environment_line(const RunEnvironment& env) {
  return json(env).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace blasscope::core
