#include "exec/runner.h"

#include <filesystem>
#include <map>
#include <set>

#include "diagnose/workload_plan.h"
#include "exec/cpu_ops.h"
#include "exec/op_support.h"
#include "exec/run_findings.h"
#include "exec/tensor_factory.h"
#include "io/input_error.h"
#include "io/npy_writer.h"
#include "kernels/cpu_environment.h"

namespace blasscope::core {
namespace {

using nlohmann::json;

std::vector<Device> devices_for(const OpSpec& op, const RunOptions& options) {
  switch (options.device.value_or(op.device)) {
    case DeviceChoice::Cpu: return {Device::Cpu};
    case DeviceChoice::Gpu: return {Device::Gpu};
    case DeviceChoice::Both: break;
  }
  return {Device::Cpu, Device::Gpu};
}

KernelRecord dispatch_cpu(const OpSpec& op, RunState& state) {
  switch (op.kind) {
    case OpKind::Gemm: return run_gemm_op(op, state);
    case OpKind::Dlascl: return run_lascl_op(op, state);
    case OpKind::Svd: return run_svd_op(op, state);
    case OpKind::Lstsq: return run_lstsq_op(op, state);
    case OpKind::Cast: break;
  }
  return run_cast_op(op, state);
}

void emit_out_of_memory(RunState& state, const OutOfBudget& error, const std::string& tensor,
                        std::optional<std::size_t> op) {
  state.emit({{"event", "out_of_memory"},
              {"tensor", tensor},
              {"op", op ? json(*op) : json()},
              {"requested", error.requested},
              {"available", error.available},
              {"limit", error.limit},
              {"message", error.what()}});
}

void emit_finding(RunState& state, const RunFinding& finding) {
  json event = to_json(finding);
  event["event"] = "finding";
  state.emit(event);
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
      m_state.emit({{"event", "tensor_error"}, {"tensor", spec.name}, {"message", error.what()}});
      emit_finding(m_state, {"unreadable-input", Severity::Error, std::nullopt, spec.name, error.what()});
    }
  }

  RunState& m_state;
  std::map<std::string, const TensorSpec*> m_specs;
  std::set<std::string> m_tried;
};

// The operands of an op that did not run, as far as they exist (for the diagnosis).
void describe_operands(const OpSpec& op, RunState& state, KernelRecord& record) {
  const std::pair<const char*, const std::string*> roles[] = {{"a", &op.a}, {"b", &op.b}, {"c", &op.c}};
  for (const auto& [role, name] : roles) {
    if (const HostTensor* t = name->empty() ? nullptr : state.find(*name)) {
      record.operands.push_back(operand_record(role, *t, 0, false));
    }
  }
}

KernelRecord run_on_cpu(const OpSpec& op, RunState& state) {
  try {
    return dispatch_cpu(op, state);
  } catch (const OpRejected& rejected) {
    KernelRecord record = record_for(op);
    describe_operands(op, state, record);
    record.status = rejected.kind == "missing-input" ? "skipped" : "failed";
    record.error_kind = rejected.kind;
    record.error = rejected.what();
    return record;
  } catch (const OutOfBudget& error) {
    emit_out_of_memory(state, error, op.out, op.index);
    KernelRecord record = record_for(op);
    describe_operands(op, state, record);
    record.status = "failed";
    record.error_kind = "out-of-memory";
    record.error = error.what();
    return record;
  }
}

std::string output_file_name(const std::string& tensor) {
  std::string safe;
  for (char c : tensor)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return safe + ".npy";
}

void save_output(const OpSpec& op, RunState& state, const std::string& dir) {
  const HostTensor* out = state.find(op.out);
  if (!out) return;
  const std::string path = (std::filesystem::path(dir) / output_file_name(op.out)).string();
  try {
    write_npy(path, *out);
    state.emit({{"event", "output_saved"}, {"op", op.index}, {"tensor", op.out}, {"path", path}});
  } catch (const InputError& error) {
    state.emit({{"event", "output_error"}, {"op", op.index}, {"tensor", op.out}, {"message", error.what()}});
  }
}

}  // namespace

std::string gpu_unavailable_reason() {
  return "no GPU backend is loaded: this build runs ops on the CPU only (the CUDA plugin comes with the GPU backend)";
}

void run_workload(const Workload& workload, const RunOptions& options, EventSink& sink) {
  RunState state(sink, workload.memory_limit);
  const WorkloadPlan plan = plan_workload(workload);
  state.emit({{"event", "run_started"},
              {"workload", workload.name},
              {"description", workload.description},
              {"memory_limit", state.budget().limit()},
              {"predicted_peak_bytes", plan.predicted_peak_bytes},
              {"ops", workload.ops.size()},
              {"environment",
               {{"cpu", to_json(probe_cpu_environment())},
                {"gpu", {{"available", false}, {"reason", gpu_unavailable_reason()}}}}}});
  InputLoader inputs(workload, state);
  for (const RunFinding& prediction : plan.predictions) emit_finding(state, prediction);
  for (const OpSpec& op : workload.ops) {
    for (Device device : devices_for(op, options)) {
      KernelRecord record;
      if (plan.skip_ops.count(op.index)) {
        record = record_for(op);
        record.device = std::string(name(device));
        record.status = "skipped";
        record.error_kind = "index-overflow";
        record.error = "not run: its sizes exceed what a 32-bit BLAS integer can address (nothing was allocated)";
      } else if (device == Device::Gpu) {
        record = record_for(op);
        record.device = "gpu";
        record.status = "skipped";
        record.error_kind = "no-gpu";
        record.error = gpu_unavailable_reason();
      } else {
        for (const std::string* input : {&op.a, &op.b, &op.c}) inputs.ensure(*input);
        record = run_on_cpu(op, state);
        if (record.status == "ok" && !options.save_outputs_dir.empty())
          save_output(op, state, options.save_outputs_dir);
      }
      state.emit({{"event", "kernel_finished"}, {"op", op.index}, {"record", nlohmann::json(record)}});
      for (const RunFinding& finding : findings_for_record(record)) emit_finding(state, finding);
    }
  }
  const std::uint64_t peak = state.budget().peak();
  state.free_all();
  state.emit({{"event", "done"}, {"peak_host_bytes", peak}});
}

}  // namespace blasscope::core
