#pragma once

#include <string>

#include "results/run_result.h"

namespace blasscope::core {

inline constexpr int kSessionFormatVersion = 1;

// A run saved for later (the GUI opens it): the workload's name and file and every event
// (the crash included), from which the result is rebuilt on load.
void write_session(const std::string& path, const std::string& workload_file, const RunResult& result);

// Throws InputError for a file that is not a session or has a newer format version.
RunResult read_session(const std::string& path);

}  // namespace blasscope::core
