#pragma once

#include <optional>
#include <string>

#include "exec/run_state.h"
#include "workload/workload.h"

namespace blasscope::core {

struct RunOptions {
  std::optional<DeviceChoice> device;  // overrides every op's device
  std::string save_outputs_dir;        // write each op's output as DIR/NAME.npy
};

// Executes a validated workload in this process and reports everything as events (see
// results/run_event.h), from RunStarted with the environment to Done.
// Nothing escapes as an exception; a crash (a bad leading dimension) ends the process,
// which is why callers normally run it in blasscope-worker.
void run_workload(const Workload& workload, const RunOptions& options, EventSink& sink);

// The machine's CPU and GPU, as RunStarted describes them, on their own.
RunEnvironment probe_environment();

}  // namespace blasscope::core
