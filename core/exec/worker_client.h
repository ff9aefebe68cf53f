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

}  // namespace blasscope::core
