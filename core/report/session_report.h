#pragma once

#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "results/run_result.h"

namespace blasscope::core {

// A readable report of a run (from a session file): environment, ops table, and each
// diagnosis with its evidence, cause, fix and the error texts it shows up as.
std::string markdown_report(const RunResult& result, const std::vector<Diagnosis>& diagnoses);
// The same content as a standalone HTML page (no scripts, no external resources).
std::string html_report(const RunResult& result, const std::vector<Diagnosis>& diagnoses);

}  // namespace blasscope::core
