#pragma once

#include <string>

#include "results/run_result.h"

namespace blasscope::core {

inline constexpr int kSessionFormatVersion = 1;

// A run saved for later (the GUI opens it): the workload's name and file (stored absolute,
// so the session reopens with its tensors from anywhere) and every event (the crash
// included), from which the result is rebuilt on load.
void write_session(const std::string& path, const std::string& workload_file, const RunResult& result);

// A session as read back: the run, and the workload file it was run from (absolute; empty
// when unknown, "scenario:ID" for a built-in scenario).
struct SessionFile {
  RunResult run;
  std::string workload_file;
};

// Throws InputError for a file that is not a session or has a newer format version.
SessionFile read_session_file(const std::string& path);
// The same from the session's JSON text, already read (`path` names it in errors and
// resolves a relative workload file).
SessionFile parse_session(const std::string& text, const std::string& path);
RunResult read_session(const std::string& path);

}  // namespace blasscope::core
