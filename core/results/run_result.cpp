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

void RunCollector::publish(const RunEvent& event) {
  handle(event);
  m_result.events.push_back(event);
}

void RunCollector::handle(const RunEvent& event) {
  using namespace events;
  RunTimeline& timeline = m_result.timeline;
  const double t = event.t;
  timeline.last_t = std::max(timeline.last_t, t);
  if (const auto* e = event.as<RunStarted>()) {
    m_result.workload = e->workload;
    m_result.recorded_call = e->recorded_call;
    m_result.environment = e->environment;
    timeline.memory_limit = e->memory_limit;
    timeline.predicted_peak_bytes = e->predicted_peak_bytes;
    m_ops_total = e->ops;
  } else if (event.as<KernelStarted>()) {
    m_running = event;
    m_running_xerbla.clear();
  } else if (const auto* e = event.as<Xerbla>()) {
    // Kept for an op that never finishes; a finished op's record carries its own.
    const KernelStarted* started = m_running ? m_running->as<KernelStarted>() : nullptr;
    if (started && started->op == e->op) m_running_xerbla.push_back(e->call);
  } else if (const auto* e = event.as<KernelFinished>()) {
    KernelRecord record = e->record;
    const KernelStarted* started = m_running ? m_running->as<KernelStarted>() : nullptr;
    if (started && started->op == record.op && started->device == record.device) {
      timeline.kernels.push_back({record.op, record.device, record.kernel, m_running->t, t});
    }
    m_ops_finished.insert(record.op);
    m_result.ops.push_back(std::move(record));
    m_running.reset();
  } else if (const auto* e = event.as<TensorAllocated>()) {
    timeline.allocations.push_back({Allocation::Kind::Tensor, e->tensor, std::nullopt, e->bytes});
  } else if (const auto* e = event.as<Workspace>()) {
    // LAPACK's own names for them, WORK and IWORK, keep labels short.
    if (e->allocated) {
      const bool integer = e->workspace.find("integer") != std::string::npos;
      timeline.allocations.push_back({Allocation::Kind::Workspace, integer ? "IWORK" : "WORK", e->op, e->bytes});
    }
  } else if (const auto* e = event.as<DeviceBuffer>()) {
    m_device_bytes = e->allocated ? m_device_bytes + e->bytes : m_device_bytes - std::min(m_device_bytes, e->bytes);
    timeline.device_memory.push_back({t, m_device_bytes});
    if (e->allocated) timeline.allocations.push_back({Allocation::Kind::DeviceBuffer, e->buffer, e->op, e->bytes});
  } else if (const auto* e = event.as<OutOfMemory>()) {
    timeline.out_of_memory.push_back(e->message);
  } else if (const auto* e = event.as<DeviceActivity>()) {
    // CUPTI's records of a GPU op, delivered after the run's last op.
    for (auto it = m_result.ops.rbegin(); it != m_result.ops.rend(); ++it) {
      if (it->op == e->op && it->device == Device::Gpu) {
        it->device_events = e->device_events;
        it->cupti_dropped = e->cupti_dropped;
        break;
      }
    }
  } else if (const auto* e = event.as<HostMemory>()) {
    // Kept up to date from the counters, so a crashed run still reports its peak.
    m_result.peak_host_bytes = std::max(m_result.peak_host_bytes, e->host_bytes);
    if (timeline.first_t < 0) timeline.first_t = t;
    timeline.host_memory.push_back({t, e->host_bytes});
  } else if (const auto* e = event.as<Comparison>()) {
    m_result.comparisons.push_back(e->comparison);
  } else if (const auto* e = event.as<FindingRaised>()) {
    m_result.findings.push_back(e->finding);
  } else if (const auto* e = event.as<Rejected>()) {
    m_result.rejection = e->message;
  } else if (const auto* e = event.as<Crashed>()) {
    record_crash(e->signal, e->output);
  } else if (const auto* e = event.as<Done>()) {
    m_result.completed = true;
    m_result.peak_host_bytes = std::max(m_result.peak_host_bytes, e->peak_host_bytes);
  }
}

void RunCollector::skipped_event() {
  ++m_result.skipped_events;
}

void RunCollector::crashed(const std::string& signal, const std::string& output, double ran_seconds) {
  double t = m_result.timeline.last_t;
  if (m_running && ran_seconds > 0) t = std::max(t, m_running->t + ran_seconds);
  // Kept as an event too, so a saved session replays to the same result.
  publish({t, events::Crashed{signal, output}});
}

void RunCollector::record_crash(const std::string& signal, const std::string& output) {
  CrashInfo crash{signal, std::nullopt, "", output};
  if (const auto* started = m_running ? m_running->as<events::KernelStarted>() : nullptr) {
    crash.op = started->op;
    crash.kernel = started->kernel;
    crash.input_nan = started->input_nan;
    crash.input_inf = started->input_inf;
    // The op that was running gets a record of its own, so tables show where it stopped.
    KernelRecord record;
    record.op = started->op;
    record.op_kind = started->op_kind;
    record.kernel = crash.kernel;
    record.device = started->device;
    record.dtype = started->dtype, record.m = started->m, record.n = started->n, record.k = started->k;
    const bool hung = signal == kTimeLimitEnd;
    record.status = hung ? OpStatus::Hung : OpStatus::Crashed;
    record.error_kind = hung ? ErrorKind::KernelHang : ErrorKind::WorkerCrashed;
    record.error = hung ? crash.kernel + " never returned: " + output + "; the worker was stopped"
                        : "the worker died with " + signal + " inside " + crash.kernel;
    record.xerbla = std::move(m_running_xerbla);
    m_result.ops.push_back(record);
    m_running.reset();
  }
  m_result.crash = crash;
  m_result.findings.push_back(finding_for_crash(crash));
  // What the op reported before it stopped (a DLASCL that refused a NaN norm), and the NaN/Inf
  // it was given: the same findings as for an op that returned.
  if (crash.op && !m_result.ops.empty() && m_result.ops.back().op == *crash.op) {
    KernelRecord reported = m_result.ops.back();
    reported.error.reset();  // the hang's own text is kernel-hang's, not theirs
    for (Detection& d : findings_for_record(reported)) m_result.findings.push_back(std::move(d));
  }
  if (crash.op && crash.input_nan + crash.input_inf > 0) {
    m_result.findings.push_back({"non-finite-input", Severity::Warning, crash.op, std::nullopt,
                                 "op " + std::to_string(*crash.op) + " (" + crash.kernel + "): its inputs held " +
                                     std::to_string(crash.input_nan) + " NaN and " + std::to_string(crash.input_inf) +
                                     " Inf values"});
  }
}

RunCollector::Progress RunCollector::progress() const {
  Progress p;
  p.ops_total = m_ops_total;
  p.ops_finished = m_ops_finished.size();
  if (m_result.environment.cpu) p.peak_gflops = m_result.environment.cpu->peak_gflops_fp64;
  if (const auto* started = m_running ? m_running->as<events::KernelStarted>() : nullptr) {
    p.running_op = started->op;
    p.running_kernel = started->kernel;
    p.running_flops = started->flops;
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
