#include "exec/runner.h"

#include <filesystem>

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

void allocate_inputs(const Workload& workload, RunState& state) {
  for (const TensorSpec& spec : workload.tensors) {
    try {
      const TensorRequirement need = requirement_of(spec);
      state.reserve(need.bytes, "tensor '" + spec.name + "'");
      try {
        const bool from_file = std::holds_alternative<FileTensorSource>(spec.source);
        state.adopt(make_tensor(spec), need.bytes, from_file ? "file" : "synthetic");
      } catch (...) {
        state.release(need.bytes);
        throw;
      }
    } catch (const OutOfBudget& error) {
      emit_out_of_memory(state, error, spec.name, std::nullopt);
      emit_finding(state, finding_for_unallocated_input(spec.name, error.what()));
    } catch (const std::bad_alloc&) {
      const OutOfBudget error("tensor '" + spec.name + "': the system refused the allocation", 0, 0,
                              state.budget().limit());
      emit_out_of_memory(state, error, spec.name, std::nullopt);
      emit_finding(state, finding_for_unallocated_input(spec.name, error.what()));
    } catch (const InputError& error) {
      state.emit({{"event", "tensor_error"}, {"tensor", spec.name}, {"message", error.what()}});
      emit_finding(state, {"unreadable-input", Severity::Error, std::nullopt, spec.name, error.what()});
    }
  }
}

KernelRecord run_on_cpu(const OpSpec& op, RunState& state) {
  try {
    return dispatch_cpu(op, state);
  } catch (const OpRejected& rejected) {
    KernelRecord record = record_for(op);
    record.status = rejected.kind == "missing-input" ? "skipped" : "failed";
    record.error_kind = rejected.kind;
    record.error = rejected.what();
    return record;
  } catch (const OutOfBudget& error) {
    emit_out_of_memory(state, error, op.out, op.index);
    KernelRecord record = record_for(op);
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
  state.emit({{"event", "run_started"},
              {"workload", workload.name},
              {"description", workload.description},
              {"memory_limit", state.budget().limit()},
              {"ops", workload.ops.size()},
              {"environment",
               {{"cpu", to_json(probe_cpu_environment())},
                {"gpu", {{"available", false}, {"reason", gpu_unavailable_reason()}}}}}});
  allocate_inputs(workload, state);
  for (const OpSpec& op : workload.ops) {
    for (Device device : devices_for(op, options)) {
      KernelRecord record;
      if (device == Device::Gpu) {
        record = record_for(op);
        record.device = "gpu";
        record.status = "skipped";
        record.error_kind = "no-gpu";
        record.error = gpu_unavailable_reason();
      } else {
        record = run_on_cpu(op, state);
        if (record.status == "ok" && !options.save_outputs_dir.empty())
          save_output(op, state, options.save_outputs_dir);
      }
      state.emit({{"event", "kernel_finished"}, {"op", op.index}, {"record", to_json(record)}});
      for (const RunFinding& finding : findings_for_record(record)) emit_finding(state, finding);
    }
  }
  const std::uint64_t peak = state.budget().peak();
  state.free_all();
  state.emit({{"event", "done"}, {"peak_host_bytes", peak}});
}

}  // namespace blasscope::core
