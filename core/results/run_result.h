#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/detection.h"
#include "results/event_sink.h"
#include "results/kernel_record.h"
#include "results/run_event.h"
#include "text/json.h"

namespace blasscope::core {

// How a worker that the front end stopped because its op ran past its time limit ended.
inline constexpr const char* kTimeLimitEnd = "time limit";

struct CrashInfo {
  std::string signal;  // "SIGSEGV", "exit 3" without a signal, or kTimeLimitEnd
  std::optional<std::size_t> op;
  std::string kernel;
  std::string output;                          // the end of the worker's stderr, or for a time limit how long it ran
  std::uint64_t input_nan = 0, input_inf = 0;  // in the inputs of the op that was running
};

// The run's timelines, reduced from its events so that views never read the events
// themselves. Times are seconds since the run started.
struct MemorySample {
  double t = 0;
  std::uint64_t bytes = 0;  // in use after this event
};

// A tensor, LAPACK workspace or GPU buffer the run allocated.
struct Allocation {
  enum class Kind { Tensor, Workspace, DeviceBuffer };
  Kind kind = Kind::Tensor;
  std::string name;  // the tensor; "WORK"/"IWORK"; the GPU buffer ("A", "cuBLAS workspace ...")
  std::optional<std::size_t> op;
  std::uint64_t bytes = 0;
};

// When one op's kernel ran on one device (from its start to its finish event).
struct KernelSpan {
  std::size_t op = 0;
  Device device = Device::Cpu;
  std::string kernel;
  double start = 0, end = 0;
};

struct RunTimeline {
  double first_t = -1, last_t = 0;  // first memory sample; the last event
  std::uint64_t memory_limit = 0, predicted_peak_bytes = 0;
  std::vector<MemorySample> host_memory, device_memory;
  std::vector<Allocation> allocations;
  std::vector<KernelSpan> kernels;
  std::vector<std::string> out_of_memory;  // what each out-of-memory event said
};

// Everything a run produced, rebuilt from its events wherever it ran.
struct RunResult {
  std::string workload;
  std::optional<std::uint64_t> recorded_call;  // the recorded call the workload replays (a capture)
  RunEnvironment environment;
  std::vector<KernelRecord> ops;
  std::vector<Detection> findings;
  std::optional<CrashInfo> crash;
  std::optional<std::string> rejection;       // the worker refused the workload: why
  std::vector<DeviceComparison> comparisons;  // --device both: CPU against GPU, per op
  std::vector<RunEvent> events;               // kept for sessions and traces; views read `timeline`
  RunTimeline timeline;
  std::uint64_t peak_host_bytes = 0;
  bool completed = false;            // the done event arrived
  std::uint64_t skipped_events = 0;  // events whose fields could not be read, left out

  bool has_errors() const;
};

// Collects a run's events (from the worker's stream or an in-process run) into a RunResult.
class RunCollector : public EventSink {
 public:
  void publish(const RunEvent& event) override;
  // Counts an event that could not be read (a torn line, a damaged session): left out, so
  // the result and a session saved from it stay readable.
  void skipped_event();
  // Marks the run as crashed while `running` (the op whose kernel had started).
  // `ran_seconds`: how long the running op had run when the worker was stopped (a time limit),
  // so the end is placed there rather than at the last event the op sent.
  void crashed(const std::string& signal, const std::string& output = {}, double ran_seconds = 0);
  bool completed() const { return m_result.completed; }
  // Progress while the events arrive: the ops the workload has, how many have finished on
  // every device they run on so far, and the op and kernel running now (if one is).
  struct Progress {
    std::size_t ops_total = 0, ops_finished = 0;
    std::optional<std::size_t> running_op;
    std::string running_kernel;
    std::uint64_t running_flops = 0;  // the running op's estimated work
    double peak_gflops = 0;           // the machine's float64 peak estimate, from run_started
  };
  Progress progress() const;
  // Whether a "rejected" event arrived (the worker refused the workload).
  bool rejected() const { return m_result.rejection.has_value(); }
  // Hands over the result; call once when the stream has ended.
  RunResult finish();

 private:
  void handle(const RunEvent& event);
  void record_crash(const std::string& signal, const std::string& output);

  RunResult m_result;
  std::optional<RunEvent> m_running;           // kernel_started without its kernel_finished
  std::vector<XerblaRecord> m_running_xerbla;  // what the running op reported before it finished
  std::uint64_t m_device_bytes = 0;
  std::size_t m_ops_total = 0;
  std::set<std::size_t> m_ops_finished;  // ops with a kernel_finished event, on any device
};

// The `--json` object of `blasscope-cli run`.
nlohmann::json to_json(const RunResult& result);

}  // namespace blasscope::core
