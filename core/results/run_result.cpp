#include "results/run_result.h"

#include <algorithm>

#include "results/run_findings.h"

namespace blasscope::core {

using nlohmann::json;

bool RunResult::has_errors() const {
  for (const auto& f : findings) {
    if (f.severity == Severity::Error) return true;
  }
  return false;
}

void RunCollector::publish(const json& event) {
  // An event whose fields cannot be read (a damaged stream or session) is left out whole, so
  // the result and a session saved from it stay readable.
  try {
    handle(event);
  } catch (const json::exception&) {
    ++m_result.skipped_events;
    return;
  }
  m_result.events.push_back(event);
}

void RunCollector::handle(const json& event) {
  if (!event.is_object()) throw json::type_error::create(302, "an event must be a JSON object", &event);
  const std::string type = event.value("event", "");
  RunTimeline& timeline = m_result.timeline;
  const double t = event.value("t", 0.0);
  timeline.last_t = std::max(timeline.last_t, t);
  if (type == "run_started") {
    m_result.workload = event.value("workload", "");
    m_result.environment = event.value("environment", json::object());
    timeline.memory_limit = event.value("memory_limit", std::uint64_t{0});
    timeline.predicted_peak_bytes = event.value("predicted_peak_bytes", std::uint64_t{0});
    m_ops_total = event.value("ops", std::size_t{0});
  } else if (type == "kernel_started") {
    m_running = event;
  } else if (type == "kernel_finished") {
    KernelRecord record = event.at("record").get<KernelRecord>();
    if (m_running && m_running->value("op", std::size_t{0}) == record.op &&
        m_running->value("device", "cpu") == record.device) {
      timeline.kernels.push_back({record.op, record.device, record.kernel, m_running->value("t", t), t});
    }
    m_ops_finished.insert(record.op);
    m_result.ops.push_back(std::move(record));
    m_running.reset();
  } else if (type == "tensor_allocated") {
    timeline.allocations.push_back(
        {Allocation::Kind::Tensor, event.value("tensor", ""), std::nullopt, event.value("bytes", std::uint64_t{0})});
  } else if (type == "workspace_allocated") {
    // LAPACK's own names for them, WORK and IWORK, keep labels short.
    const bool integer = event.value("workspace", std::string()).find("integer") != std::string::npos;
    timeline.allocations.push_back({Allocation::Kind::Workspace, integer ? "IWORK" : "WORK",
                                    event.value("op", std::size_t{0}), event.value("bytes", std::uint64_t{0})});
  } else if (type == "device_allocated" || type == "device_freed") {
    const std::uint64_t bytes = event.value("bytes", std::uint64_t{0});
    const bool allocated = type == "device_allocated";
    m_device_bytes = allocated ? m_device_bytes + bytes : m_device_bytes - std::min(m_device_bytes, bytes);
    timeline.device_memory.push_back({t, m_device_bytes});
    if (allocated) {
      timeline.allocations.push_back(
          {Allocation::Kind::DeviceBuffer, event.value("buffer", ""), event.value("op", std::size_t{0}), bytes});
    }
  } else if (type == "out_of_memory") {
    timeline.out_of_memory.push_back(event.value("message", ""));
  } else if (type == "device_activity") {
    // CUPTI's records of a GPU op, delivered after the run's last op.
    const std::size_t op = event.value("op", std::size_t{0});
    for (auto it = m_result.ops.rbegin(); it != m_result.ops.rend(); ++it) {
      if (it->op == op && it->device == "gpu") {
        it->device_events = event.value("device_events", std::vector<DeviceEventRecord>{});
        it->cupti_dropped = event.value("cupti_dropped", std::uint64_t{0});
        break;
      }
    }
  } else if (type == "memory") {
    // Kept up to date from the counters, so a crashed run still reports its peak.
    const std::uint64_t bytes = event.value("host_bytes", std::uint64_t{0});
    m_result.peak_host_bytes = std::max(m_result.peak_host_bytes, bytes);
    if (timeline.first_t < 0) timeline.first_t = t;
    timeline.host_memory.push_back({t, bytes});
  } else if (type == "comparison") {
    m_result.comparisons.push_back(event.get<DeviceComparison>());
  } else if (type == "finding") {
    m_result.findings.push_back(run_finding_from_json(event));
  } else if (type == "rejected") {
    m_result.rejection = event.value("message", std::string("the worker refused the workload"));
  } else if (type == "crashed") {
    record_crash(event.value("signal", "unknown signal"));
  } else if (type == "done") {
    m_result.completed = true;
    m_result.peak_host_bytes = std::max(m_result.peak_host_bytes, event.value("peak_host_bytes", std::uint64_t{0}));
  }
}

void RunCollector::crashed(const std::string& signal) {
  // Kept as an event too, so a saved session replays to the same result.
  publish({{"event", "crashed"}, {"signal", signal}});
}

void RunCollector::record_crash(const std::string& signal) {
  CrashInfo crash{signal, std::nullopt, ""};
  if (m_running) {
    crash.op = m_running->value("op", std::size_t{0});
    crash.kernel = m_running->value("kernel", "");
    // The op that was running gets a record of its own, so tables show where it stopped.
    KernelRecord record;
    record.op = *crash.op;
    record.op_kind = m_running->value("op_kind", "");
    record.kernel = crash.kernel;
    record.device = m_running->value("device", "cpu");
    record.status = "crashed";
    record.error_kind = "worker-crashed";
    record.error = "the worker died with " + signal + " inside " + crash.kernel;
    m_result.ops.push_back(record);
    m_running.reset();
  }
  m_result.crash = crash;
  m_result.findings.push_back(finding_for_crash(crash));
}

RunCollector::Progress RunCollector::progress() const {
  Progress p;
  p.ops_total = m_ops_total;
  p.ops_finished = m_ops_finished.size();
  if (m_running) {
    p.running_op = m_running->value("op", std::size_t{0});
    p.running_kernel = m_running->value("kernel", "");
  }
  return p;
}

RunResult RunCollector::finish() {
  return std::move(m_result);
}

json to_json(const RunResult& result) {
  json ops = json::array();
  for (const auto& r : result.ops) {
    json entry = {{"index", r.op},      {"op", r.op_kind},    {"device", r.device}, {"kernel", r.kernel},
                  {"dtype", r.dtype},   {"m", nullptr},       {"n", nullptr},       {"k", nullptr},
                  {"status", r.status}, {"seconds", nullptr}, {"gflops", nullptr},  {"info", nullptr},
                  {"error", nullptr},   {"record", json(r)}};
    if (r.m) entry["m"] = *r.m;
    if (r.n) entry["n"] = *r.n;
    if (r.k) entry["k"] = *r.k;
    if (r.seconds) entry["seconds"] = *r.seconds;
    if (r.gflops) entry["gflops"] = *r.gflops;
    if (r.info) entry["info"] = *r.info;
    if (r.error) entry["error"] = *r.error;
    ops.push_back(std::move(entry));
  }
  json findings = json::array();
  for (const auto& f : result.findings) findings.push_back(to_json(f));
  json crash = nullptr;
  if (result.crash) {
    crash = {{"signal", result.crash->signal},
             {"op", result.crash->op ? json(*result.crash->op) : json()},
             {"kernel", result.crash->kernel}};
  }
  return {{"workload", result.workload},
          {"environment", result.environment},
          {"ops", ops},
          {"findings", findings},
          {"crash", crash},
          {"comparisons", result.comparisons},
          {"peak_host_bytes", result.peak_host_bytes}};
}

}  // namespace blasscope::core
