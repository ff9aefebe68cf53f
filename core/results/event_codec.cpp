#include "results/event_codec.h"

#include "results/run_findings.h"
#include "text/json.h"

namespace blasscope::core {

using nlohmann::json;

namespace {

using namespace events;

json optional_op(const std::optional<std::size_t>& op) {
  return op ? json(*op) : json();
}

// The JSON fields of each event (without "event" and "t"), and its name.
struct Encoder {
  std::string name;
  json fields;

  void operator()(const RunStarted& e) {
    name = "run_started";
    fields = {{"workload", e.workload},
              {"description", e.description},
              {"memory_limit", e.memory_limit},
              {"predicted_peak_bytes", e.predicted_peak_bytes},
              {"ops", e.ops},
              {"environment", e.environment}};
    if (e.recorded_call) fields["recorded_call"] = *e.recorded_call;
  }
  void operator()(const KernelStarted& e) {
    name = "kernel_started";
    fields = {{"op", e.op},       {"op_kind", e.op_kind},     {"kernel", e.kernel},      {"device", e.device},
              {"flops", e.flops}, {"input_nan", e.input_nan}, {"input_inf", e.input_inf}};
    if (e.dtype) fields["dtype"] = *e.dtype;
    if (e.m) fields["m"] = *e.m;
    if (e.n) fields["n"] = *e.n;
    if (e.k) fields["k"] = *e.k;
  }
  void operator()(const KernelFinished& e) {
    name = "kernel_finished";
    fields = {{"op", e.record.op}, {"record", e.record}};
  }
  void operator()(const Xerbla& e) {
    name = "xerbla";
    fields = {{"op", e.op}, {"routine", e.call.routine}, {"parameter", e.call.parameter}, {"meaning", e.call.meaning}};
  }
  void operator()(const TensorAllocated& e) {
    name = "tensor_allocated";
    fields = {{"tensor", e.tensor}, {"dtype", e.dtype},         {"shape", e.shape},  {"order", e.order},
              {"bytes", e.bytes},   {"alignment", e.alignment}, {"source", e.source}};
  }
  void operator()(const TensorFreed& e) {
    name = "tensor_freed";
    fields = {{"tensor", e.tensor}, {"bytes", e.bytes}};
  }
  void operator()(const Workspace& e) {
    name = e.allocated ? "workspace_allocated" : "workspace_freed";
    fields = {{"op", e.op}, {"workspace", e.workspace}, {"bytes", e.bytes}};
  }
  void operator()(const DeviceBuffer& e) {
    name = e.allocated ? "device_allocated" : "device_freed";
    fields = {{"op", e.op}, {"buffer", e.buffer}, {"bytes", e.bytes}};
  }
  void operator()(const HostMemory& e) {
    name = "memory";
    fields = {{"host_bytes", e.host_bytes}};
  }
  void operator()(const OutOfMemory& e) {
    name = "out_of_memory";
    fields = {{"tensor", e.tensor},       {"op", optional_op(e.op)}, {"requested", e.requested},
              {"available", e.available}, {"limit", e.limit},        {"message", e.message}};
  }
  void operator()(const FindingRaised& e) {
    name = "finding";
    fields = to_json(e.finding);
  }
  void operator()(const TensorError& e) {
    name = "tensor_error";
    fields = {{"tensor", e.tensor}, {"message", e.message}};
  }
  void operator()(const Comparison& e) {
    name = "comparison";
    fields = e.comparison;
  }
  void operator()(const OutputSaved& e) {
    name = e.error.empty() ? "output_saved" : "output_error";
    fields = {{"op", e.op}, {"tensor", e.tensor}};
    if (e.error.empty()) {
      fields["path"] = e.path;
    } else {
      fields["message"] = e.error;
    }
  }
  void operator()(const DeviceActivity& e) {
    name = "device_activity";
    fields = {{"op", e.op}, {"device_events", e.device_events}, {"cupti_dropped", e.cupti_dropped}};
  }
  void operator()(const Done& e) {
    name = "done";
    fields = {{"peak_host_bytes", e.peak_host_bytes}};
  }
  void operator()(const Rejected& e) {
    name = "rejected";
    fields = {{"message", e.message}};
  }
  void operator()(const Crashed& e) {
    name = "crashed";
    fields = {{"signal", e.signal}};
    if (!e.output.empty()) fields["stderr"] = e.output;
  }
};

std::uint64_t bytes_of(const json& j, const char* key = "bytes") {
  return j.value(key, std::uint64_t{0});
}

RunEventBody decode_body(const std::string& name, const json& j) {
  if (name == "run_started") {
    return RunStarted{j.value("workload", ""),
                      j.value("description", ""),
                      bytes_of(j, "memory_limit"),
                      bytes_of(j, "predicted_peak_bytes"),
                      j.value("ops", std::size_t{0}),
                      j.contains("environment") ? j["environment"].get<RunEnvironment>() : RunEnvironment{},
                      j.contains("recorded_call") && j["recorded_call"].is_number_unsigned()
                          ? std::optional(j["recorded_call"].get<std::uint64_t>())
                          : std::nullopt};
  }
  if (name == "kernel_started") {
    KernelStarted started{j.value("op", std::size_t{0}),
                          j.at("op_kind").get<OpKind>(),
                          j.value("kernel", ""),
                          j.value("device", Device::Cpu),
                          j.value("flops", std::uint64_t{0}),
                          j.value("input_nan", std::uint64_t{0}),
                          j.value("input_inf", std::uint64_t{0})};
    // Older sessions have no dtype and sizes here.
    if (j.contains("dtype")) started.dtype = j.at("dtype").get<DType>();
    if (j.contains("m")) started.m = j.at("m").get<std::int64_t>();
    if (j.contains("n")) started.n = j.at("n").get<std::int64_t>();
    if (j.contains("k")) started.k = j.at("k").get<std::int64_t>();
    return started;
  }
  if (name == "kernel_finished") return KernelFinished{j.at("record").get<KernelRecord>()};
  if (name == "xerbla") {
    return Xerbla{j.value("op", std::size_t{0}),
                  {j.value("routine", ""), j.value("parameter", 0), j.value("meaning", "")}};
  }
  if (name == "tensor_allocated") {
    return TensorAllocated{j.value("tensor", ""),
                           j.at("dtype").get<DType>(),
                           j.value("shape", std::vector<std::uint64_t>{}),
                           j.value("order", MemoryOrder::C),
                           bytes_of(j),
                           bytes_of(j, "alignment"),
                           j.value("source", "")};
  }
  if (name == "tensor_freed") return TensorFreed{j.value("tensor", ""), bytes_of(j)};
  if (name == "workspace_allocated" || name == "workspace_freed") {
    return Workspace{name == "workspace_allocated", j.value("op", std::size_t{0}), j.value("workspace", ""),
                     bytes_of(j)};
  }
  if (name == "device_allocated" || name == "device_freed") {
    return DeviceBuffer{name == "device_allocated", j.value("op", std::size_t{0}), j.value("buffer", ""), bytes_of(j)};
  }
  if (name == "memory") return HostMemory{bytes_of(j, "host_bytes")};
  if (name == "out_of_memory") {
    std::optional<std::size_t> op;
    if (j.contains("op") && !j["op"].is_null()) op = j["op"].get<std::size_t>();
    return OutOfMemory{j.value("tensor", ""),    op,
                       bytes_of(j, "requested"), bytes_of(j, "available"),
                       bytes_of(j, "limit"),     j.value("message", "")};
  }
  if (name == "finding") return FindingRaised{run_finding_from_json(j)};
  if (name == "tensor_error") return TensorError{j.value("tensor", ""), j.value("message", "")};
  if (name == "comparison") return Comparison{j.get<DeviceComparison>()};
  if (name == "output_saved" || name == "output_error") {
    return OutputSaved{j.value("op", std::size_t{0}), j.value("tensor", ""), j.value("path", ""),
                       name == "output_error" ? j.value("message", "the output could not be written") : ""};
  }
  if (name == "device_activity") {
    return DeviceActivity{j.value("op", std::size_t{0}), j.value("device_events", std::vector<DeviceEventRecord>{}),
                          bytes_of(j, "cupti_dropped")};
  }
  if (name == "done") return Done{bytes_of(j, "peak_host_bytes")};
  if (name == "rejected") return Rejected{j.value("message", "the worker refused the workload")};
  if (name == "crashed") return Crashed{j.value("signal", "unknown signal"), j.value("stderr", "")};
  throw UnknownEvent("unknown event '" + name + "'");
}

}  // namespace

json encode_event(const RunEvent& event) {
  Encoder encoder;
  std::visit(encoder, event.body);
  json j = std::move(encoder.fields);
  j["event"] = encoder.name;
  j["t"] = event.t;
  return j;
}

RunEvent decode_event(const json& j) {
  if (!j.is_object()) throw json::type_error::create(302, "an event must be a JSON object", &j);
  const json& name = j.contains("event") ? j["event"] : json();
  if (!name.is_string()) throw json::type_error::create(302, "an event needs an \"event\" name", &j);
  const json& t = j.contains("t") ? j["t"] : json(0.0);
  if (!t.is_number()) throw json::type_error::create(302, "an event's time \"t\" must be a number", &j);
  return RunEvent{t.get<double>(), decode_body(name.get<std::string>(), j)};
}

std::string event_name(const RunEvent& event) {
  // Some kinds have two names (workspace_allocated/_freed): the event itself decides.
  Encoder encoder;
  std::visit(encoder, event.body);
  return encoder.name;
}

}  // namespace blasscope::core
