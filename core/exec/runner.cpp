#include "exec/runner.h"

#include <filesystem>
#include <map>
#include <set>

#include "exec/cpu_ops.h"
#include "exec/gpu_ops.h"
#include "exec/op_support.h"
#include "gpu_model/gpu_loader.h"
#include "io/input_error.h"
#include "io/npy_writer.h"
#include "kernels/cpu_environment.h"
#include "plan/workload_plan.h"
#include "results/run_findings.h"
#include "workload/tensor_factory.h"

namespace blasscope::core {
namespace {

using nlohmann::json;

std::vector<Device> devices_for(const OpSpec& op, const RunOptions& options) {
  switch (options.device.value_or(op.device)) {
    case DeviceChoice::Cpu: return {Device::Cpu};
    case DeviceChoice::Gpu: return {Device::Gpu};
    case DeviceChoice::Both: break;
  }
  // The GPU first: it works on copies, so an op that scales in place on the CPU cannot
  // change the GPU's input.
  return {Device::Gpu, Device::Cpu};
}

KernelRecord dispatch_cpu(const OpSpec& op, RunState& state) {
  switch (op.kind) {
    case OpKind::Gemm: return run_gemm_op(op, state);
    case OpKind::Dlascl: return run_lascl_op(op, state);
    case OpKind::Svd: return run_svd_op(op, state);
    case OpKind::Lstsq: return run_lstsq_op(op, state);
    case OpKind::Cholesky:
    case OpKind::Lu:
    case OpKind::Solve:
    case OpKind::LuSolve:
    case OpKind::Eigh: return run_factor_op(op, state);
    case OpKind::Gemv:
    case OpKind::Syrk:
    case OpKind::Trsm: return run_blas_call_op(op, state);
    case OpKind::Cast: break;
  }
  return run_cast_op(op, state);
}

void emit_out_of_memory(RunState& state, const OutOfBudget& error, const std::string& tensor,
                        std::optional<std::size_t> op) {
  state.publish(events::OutOfMemory{tensor, op, error.requested, error.available, error.limit, error.what()});
}

void emit_finding(RunState& state, const Detection& finding) {
  state.publish(events::FindingRaised{finding});
}

// Inputs are made when an op first needs them, so an op that is skipped (an index
// overflow) never allocates its tensors, and the memory timeline follows the ops.
class InputLoader {
 public:
  InputLoader(const Workload& workload, RunState& state) : m_state(state) {
    for (const TensorSpec& spec : workload.tensors) m_specs.emplace(spec.name, &spec);
  }

  void ensure(const std::string& name) {
    const auto it = m_specs.find(name);
    if (it == m_specs.end() || m_state.find(name) || !m_tried.insert(name).second) return;
    load(*it->second);
  }

 private:
  void load(const TensorSpec& spec) {
    try {
      const TensorRequirement need = requirement_of(spec);
      m_state.reserve(need.bytes, "tensor '" + spec.name + "'");
      try {
        const bool from_file = std::holds_alternative<FileTensorSource>(spec.source);
        m_state.adopt(make_tensor(spec), need.bytes, from_file ? "file" : "synthetic");
      } catch (...) {
        m_state.release(need.bytes);
        throw;
      }
    } catch (const OutOfBudget& error) {
      emit_out_of_memory(m_state, error, spec.name, std::nullopt);
      emit_finding(m_state, finding_for_unallocated_input(spec.name, error.what(),
                                                          {{"requested", error.requested},
                                                           {"available", error.available},
                                                           {"limit", error.limit},
                                                           {"in_use", m_state.budget().used()}}));
    } catch (const std::bad_alloc&) {
      const OutOfBudget error("tensor '" + spec.name + "': the system refused the allocation", 0, 0,
                              m_state.budget().limit());
      emit_out_of_memory(m_state, error, spec.name, std::nullopt);
      emit_finding(m_state, finding_for_unallocated_input(spec.name, error.what()));
    } catch (const InputError& error) {
      m_state.publish(events::TensorError{spec.name, error.what()});
      emit_finding(m_state, {"unreadable-input", Severity::Error, std::nullopt, spec.name, error.what()});
    }
  }

  RunState& m_state;
  std::map<std::string, const TensorSpec*> m_specs;
  std::set<std::string> m_tried;
};

// The operands of an op that did not run, as far as they exist (for the diagnosis).
void describe_operands(const OpSpec& op, RunState& state, KernelRecord& record) {
  const std::pair<const char*, const std::string*> roles[] = {
      {"a", &op.a}, {"b", &op.b}, {"c", &op.c}, {"pivots", &op.pivots}};
  for (const auto& [role, name] : roles) {
    if (const HostTensor* t = name->empty() ? nullptr : state.find(*name)) {
      record.operands.push_back(operand_record(role, *t, 0, false));
    }
  }
}

template <typename Run>
KernelRecord run_guarded(const OpSpec& op, RunState& state, Device device, Run&& run) {
  try {
    return run();
  } catch (const OpRejected& rejected) {
    KernelRecord record = record_for(op);
    record.device = device;
    describe_operands(op, state, record);
    record.status = rejected.kind == ErrorKind::MissingInput ? OpStatus::Skipped : OpStatus::Failed;
    record.error_kind = rejected.kind;
    record.error = rejected.what();
    return record;
  } catch (const OutOfBudget& error) {
    emit_out_of_memory(state, error, op.out, op.index);
    KernelRecord record = record_for(op);
    record.device = device;
    describe_operands(op, state, record);
    record.status = OpStatus::Failed;
    record.error_kind = ErrorKind::OutOfMemory;
    record.error = error.what();
    return record;
  }
}

// The GPU half of an op: gemm and dlascl run on the plugin, the rest stays on the CPU.
KernelRecord run_on_gpu(const OpSpec& op, RunState& state, const GpuLoad& gpu, const std::string& out_name) {
  KernelRecord record = record_for(op);
  record.device = Device::Gpu;
  if (!gpu.backend) {
    record.status = OpStatus::Skipped;
    record.error_kind = ErrorKind::NoGpu;
    record.error = gpu.reason;
    return record;
  }
  if (op.kind != OpKind::Gemm && op.kind != OpKind::Dlascl) {
    record.status = OpStatus::Skipped;
    record.error = "the GPU backend runs gemm and dlascl; " + std::string(name(op.kind)) + " runs on the CPU only";
    return record;
  }
  return run_guarded(op, state, Device::Gpu, [&] {
    return op.kind == OpKind::Gemm ? run_gemm_on_gpu(op, state, *gpu.backend, out_name)
                                   : run_lascl_on_gpu(op, state, *gpu.backend, out_name);
  });
}

// --device both: the two results side by side, and a finding when they disagree.
void compare_devices(const OpSpec& op, RunState& state, const KernelRecord& cpu, const KernelRecord& gpu,
                     const std::string& gpu_out) {
  const HostTensor* a = state.find(op.out);
  const HostTensor* b = state.find(gpu_out);
  if (cpu.status != OpStatus::Ok || gpu.status != OpStatus::Ok || !a || !b) return;
  // The coarser of the two results sets the bar (float16 on the GPU against float32 here).
  const auto k = static_cast<std::uint64_t>(cpu.k.value_or(1));
  const double tolerance = op.kind == OpKind::Dlascl ? 0.0
                                                     : std::max(device_tolerance(a->dtype(), op.tf32, k),
                                                                device_tolerance(b->dtype(), op.tf32, k));
  DeviceComparison c = compare_results(*a, *b, tolerance);
  c.op = op.index;
  c.cpu_seconds = cpu.seconds;
  c.gpu_seconds = gpu.device_seconds ? gpu.device_seconds : gpu.seconds;
  if (c.cpu_seconds && c.gpu_seconds && *c.gpu_seconds > 0) c.speedup = *c.cpu_seconds / *c.gpu_seconds;
  state.publish(events::Comparison{c});
  if (!c.agree) {
    emit_finding(
        state, {"cpu-gpu-disagreement", Severity::Warning, op.index, op.out,
                "op " + std::to_string(op.index) + ": CPU and GPU results differ by " + std::to_string(c.max_rel_diff) +
                    " (normwise relative), above the " + std::to_string(c.tolerance) + " the dtype allows",
                nlohmann::json(c)});
  }
}

std::string output_file_name(const std::string& tensor) {
  std::string safe;
  for (char c : tensor)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return safe + ".npy";
}

void save_tensor(const OpSpec& op, const std::string& name, RunState& state, const std::string& dir) {
  const HostTensor* out = state.find(name);
  if (!out) return;
  const std::string path = (std::filesystem::path(dir) / output_file_name(name)).string();
  try {
    write_npy(path, *out);
    state.publish(events::OutputSaved{op.index, name, path, ""});
  } catch (const InputError& error) {
    state.publish(events::OutputSaved{op.index, name, path, error.what()});
  }
}

// Every result of the op: its output, svd's U and V^T and eigh's eigenvectors when it computed them.
void save_output(const OpSpec& op, RunState& state, const std::string& dir) {
  save_tensor(op, op.out, state, dir);
  if (op.kind == OpKind::Svd && op.compute_uv) {
    save_tensor(op, op.out + "_u", state, dir);
    save_tensor(op, op.out + "_vt", state, dir);
  }
  if (op.kind == OpKind::Eigh && op.compute_uv) save_tensor(op, op.out + "_v", state, dir);
}

}  // namespace

namespace {

GpuEnvironment gpu_environment(const GpuLoad& gpu) {
  GpuEnvironment env{gpu.backend != nullptr, gpu.plugin_path, gpu.backend ? "" : gpu.reason, std::nullopt};
  if (gpu.backend) env.device = gpu.backend->device();
  return env;
}

}  // namespace

RunEnvironment probe_environment() {
  return {probe_cpu_environment(), gpu_environment(load_gpu_backend())};
}

void run_workload(const Workload& workload, const RunOptions& options, EventSink& sink) {
  RunState state(sink, workload.memory_limit);
  const WorkloadPlan plan = plan_workload(workload);
  const GpuLoad gpu = load_gpu_backend();
  state.publish(events::RunStarted{
      workload.name, workload.description, state.budget().limit(), plan.predicted_peak_bytes, workload.ops.size(),
      RunEnvironment{probe_cpu_environment(), gpu_environment(gpu)}, workload.recorded_call});
  InputLoader inputs(workload, state);
  for (const Detection& prediction : plan.predictions) emit_finding(state, prediction);
  for (const OpSpec& op : workload.ops) {
    const std::vector<Device> devices = devices_for(op, options);
    const bool both = devices.size() == 2;
    const std::string gpu_out = both ? op.out + "@gpu" : op.out;
    KernelRecord cpu_record, gpu_record;
    for (Device device : devices) {
      KernelRecord record;
      if (plan.skip_ops.count(op.index)) {
        record = record_for(op);
        record.device = device;
        record.status = OpStatus::Skipped;
        record.error_kind = ErrorKind::IndexOverflow;
        record.error = "not run: its sizes exceed what a 32-bit BLAS integer can address (nothing was allocated)";
      } else {
        for (const std::string* input : {&op.a, &op.b, &op.c, &op.pivots}) inputs.ensure(*input);
        if (device == Device::Gpu) {
          record = run_on_gpu(op, state, gpu, gpu_out);
        } else {
          record = run_guarded(op, state, Device::Cpu, [&] { return dispatch_cpu(op, state); });
          if (record.status == OpStatus::Ok && !options.save_outputs_dir.empty()) {
            save_output(op, state, options.save_outputs_dir);
          }
        }
      }
      state.publish(events::KernelFinished{record});
      for (const Detection& finding : findings_for_record(record)) emit_finding(state, finding);
      (device == Device::Gpu ? gpu_record : cpu_record) = std::move(record);
    }
    if (both) compare_devices(op, state, cpu_record, gpu_record, gpu_out);
  }
  if (gpu.backend) {
    for (GpuOpActivity& activity : gpu.backend->take_device_activity()) {
      state.publish(events::DeviceActivity{activity.op, std::move(activity.events), activity.dropped});
    }
  }
  const std::uint64_t peak = state.budget().peak();
  state.free_all();
  state.publish(events::Done{peak});
}

}  // namespace blasscope::core
