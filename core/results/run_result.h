#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "results/event_sink.h"
#include "results/kernel_record.h"

namespace blasscope::core {

// A detection made while (or before) running, with the facts it rests on. The diagnosis
// engine turns these into explained diagnoses.
struct RunFinding {
  std::string id;
  Severity severity = Severity::Info;
  std::optional<std::size_t> op;
  std::optional<std::string> tensor;
  std::string message;
  nlohmann::json facts = nlohmann::json::object();
};

struct CrashInfo {
  std::string signal;  // "SIGSEGV", or "exit 3" when the worker ended without a signal
  std::optional<std::size_t> op;
  std::string kernel;
};

// Everything a run produced, rebuilt from its events wherever it ran.
struct RunResult {
  std::string workload;
  nlohmann::json environment = nlohmann::json::object();
  std::vector<KernelRecord> ops;
  std::vector<RunFinding> findings;
  std::optional<CrashInfo> crash;
  std::optional<std::string> rejection;       // the worker refused the workload: why
  std::vector<DeviceComparison> comparisons;  // --device both: CPU against GPU, per op
  std::vector<nlohmann::json> events;
  std::uint64_t peak_host_bytes = 0;
  bool completed = false;            // the done event arrived
  std::uint64_t skipped_events = 0;  // events whose fields could not be read, left out

  bool has_errors() const;
};

// Collects a run's events (from the worker's stream or an in-process run) into a RunResult.
class RunCollector : public EventSink {
 public:
  void publish(const nlohmann::json& event) override;
  // Marks the run as crashed while `running` (the op whose kernel had started).
  void crashed(const std::string& signal);
  // Whether a "rejected" event arrived (the worker refused the workload).
  bool rejected() const { return m_result.rejection.has_value(); }
  // Hands over the result; call once when the stream has ended.
  RunResult finish();

 private:
  void handle(const nlohmann::json& event);  // throws json::exception for unreadable fields
  void record_crash(const std::string& signal);

  RunResult m_result;
  std::optional<nlohmann::json> m_running;  // kernel_started without its kernel_finished
};

// The `--json` object of `blasscope-cli run`.
nlohmann::json to_json(const RunResult& result);

}  // namespace blasscope::core
