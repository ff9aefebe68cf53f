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

// Executes a validated workload in this process and reports everything as events:
// run_started (with the environment), tensor_allocated/freed, memory, out_of_memory,
// kernel_started, xerbla, kernel_finished (with the KernelRecord), output_saved, done.
// Nothing escapes as an exception; a crash (a bad leading dimension) ends the process,
// which is why callers normally run it in blasscope-worker.
void run_workload(const Workload& workload, const RunOptions& options, EventSink& sink);

// {"cpu": {...}, "gpu": {...}}: the environment section of run_started, on its own.
nlohmann::json probe_environment();

}  // namespace blasscope::core
