#pragma once

#include <string>
#include <vector>

#include "results/run_result.h"

namespace blasscope::core {

// Runs `worker` with `args` in a child process, feeds each JSON line it writes to
// `collector` as it arrives, and reports a crash (signal, or an exit without the done
// event) with the op that was running. Never lets the child take the caller down.
// Returns false only when the worker could not be started (`error` says why).
bool run_in_worker(const std::string& worker, const std::vector<std::string>& args, RunCollector& collector,
                   std::string& error);

// Name of a signal number: "SIGSEGV".
std::string signal_name(int signal);

// blasscope-worker's exit status when it refused the workload (after a "rejected" event).
inline constexpr int kWorkerExitRejected = 3;

// Splits the worker's stdout into events: bytes go in as they arrive, each complete line
// that parses as JSON comes out; a line torn by a crash, stray output, or an event whose
// fields the consumer cannot read, is skipped.
class WorkerStreamFramer {
 public:
  template <typename Publish>
  void feed(const char* data, std::size_t size, Publish&& publish) {
    m_pending.append(data, size);
    std::size_t start = 0, newline;
    while ((newline = m_pending.find('\n', start)) != std::string::npos) {
      if (newline > start) {
        nlohmann::json event =
            nlohmann::json::parse(m_pending.begin() + static_cast<std::ptrdiff_t>(start),
                                  m_pending.begin() + static_cast<std::ptrdiff_t>(newline), nullptr, false);
        try {
          if (!event.is_discarded()) publish(event);
        } catch (const nlohmann::json::exception&) {
          // An event with malformed fields is skipped like a torn line: the stream goes on.
        }
      }
      start = newline + 1;
    }
    m_pending.erase(0, start);
  }

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
void record_worker_exit(RunCollector& collector, const WorkerExit& exit);

}  // namespace blasscope::core
