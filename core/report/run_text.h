#pragma once

#include <string>

#include "diagnose/diagnosis.h"
#include "results/run_result.h"

namespace blasscope::core {

// Human-readable `run` output: the environment, a table of ops, diagnoses, the crash.
std::string to_text(const RunResult& result, const std::vector<Diagnosis>& diagnoses);

// Diagnoses as text: severity, id and title, then the evidence.
std::string diagnoses_text(const std::vector<Diagnosis>& diagnoses);

}  // namespace blasscope::core
