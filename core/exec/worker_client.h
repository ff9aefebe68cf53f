#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/run_result.h"

namespace blasscope::core {

// Name of a signal number: "SIGSEGV".
std::string signal_name(int signal);

// blasscope-worker's exit status when it refused the workload (after a "rejected" event).
inline constexpr int kWorkerExitRejected = 3;

// Splits the worker's stdout into events: bytes go in as they arrive, each complete line is
// decoded and published to the collector; a line torn by a crash, stray output, or an event
// whose fields cannot be read is counted as skipped and the stream goes on.
class WorkerStreamFramer {
 public:
  // Returns how many events were published.
  std::size_t feed(const char* data, std::size_t size, RunCollector& collector);

 private:
  std::string m_pending;
};

// How the worker process ended.
struct WorkerExit {
  bool signaled = false;  // killed by `code` (a signal number)
  int code = 0;           // the signal, or the exit status
  bool stopped_by_user = false;
};

// Records the end of the worker's stream in the collector, the same way for the CLI and the
// GUI: a stop, a signal or an unexpected exit status is a crash in the op that was running;
// exit 3 after a "rejected" event is the workload's rejection, not a crash.
// `output` is the end of the worker's stderr, kept with a crash.
void record_worker_exit(RunCollector& collector, const WorkerExit& exit, const std::string& output = {});

// How long an op may run before it is taken for hung: its own limit ("timeout" on the op),
// else the run's (--timeout, the workload's "timeout"), else 1000 times what its size takes at
// the machine's peak, never under 10 s.
struct TimeLimits {
  std::optional<double> run_seconds;
  std::map<std::size_t, double> op_seconds;
  double seconds_for(std::size_t op, std::uint64_t flops, double peak_gflops) const;
};
inline constexpr double kMinimumDefaultTimeLimit = 10;

// The op running now, for a progress line: how long it has run and its limit.
struct RunningOp {
  std::size_t op = 0;
  std::string kernel;
  double seconds = 0, limit = 0;
};

// One blasscope-worker child: spawned, its event stream read into a collector as it arrives,
// its stderr passed through or kept, stopped on request, and its end mapped to a crash,
// a rejection or success. Never lets the child take the caller down. The CLI drives it with
// run(); the GUI watches events_fd() and stderr_fd() from its event loop.
class WorkerProcess {
 public:
  struct Options {
    bool capture_stderr = false;  // keep the worker's stderr (its last 64 KiB) instead of passing it through
    TimeLimits time_limits;
    // Called by run() about five times a second while an op runs (a CLI progress line).
    std::function<void(const RunningOp&)> on_running;
  };

  WorkerProcess() = default;
  ~WorkerProcess();  // a worker still running is killed and reaped
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Returns false when the worker could not be started (`error` says why) or one is running.
  bool start(const std::string& worker, const std::vector<std::string>& args, const Options& options,
             std::string& error);
  bool running() const { return m_pid > 0; }
  int events_fd() const { return m_events_fd; }  // -1 once the stream has ended
  int stderr_fd() const { return m_stderr_fd; }  // -1 unless stderr is captured and open

  // Read what is there without blocking (at most 1 MiB of events a call, so a fast worker
  // cannot hold a GUI thread). read_events returns false once the stream ended.
  bool read_events(RunCollector& collector);
  void read_stderr();
  // Kills the worker; its end is recorded as "stopped by the user".
  void stop();
  // After the event stream ended: reaps the worker (waiting for it when `wait`) and records
  // its end in the collector. Returns false when `wait` is false and it has not exited yet.
  bool finish(RunCollector& collector, bool wait = true);
  // Runs to the end, blocking: reads events and stderr until the worker exits.
  void run(RunCollector& collector);
  // The op running now and for how long; stops the worker when that is past its time limit
  // (the end is then recorded as kernel-hang). Call it every so often while events arrive.
  std::optional<RunningOp> watch_running_op(const RunCollector& collector);

  const std::string& stderr_text() const { return m_stderr; }

 private:
  void close_fd(int& fd);

  pid_t m_pid = -1;
  int m_events_fd = -1, m_stderr_fd = -1;
  bool m_stopped = false;
  bool m_more_events = false;  // the last read_events stopped at its cap
  WorkerStreamFramer m_framer;
  TimeLimits m_limits;
  std::function<void(const RunningOp&)> m_on_running;
  std::optional<std::size_t> m_watched_op;  // the op running when last watched, and since when
  std::chrono::steady_clock::time_point m_watched_since;
  std::optional<RunningOp> m_overran;  // the op stopped for running past its limit
  std::string m_stderr;
};

// Runs `worker` with `args` to its end, its stderr passed through, feeding each event to
// `collector`. Returns false only when the worker could not be started (`error` says why).
bool run_in_worker(const std::string& worker, const std::vector<std::string>& args, RunCollector& collector,
                   std::string& error, const WorkerProcess::Options& options = {});

}  // namespace blasscope::core
