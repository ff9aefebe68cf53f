#pragma once

#include <string>

#include "exec/run_result.h"

namespace blasscope::core {

// Human-readable `run` output: the environment, a table of ops, findings, the crash.
std::string to_text(const RunResult& result);

}  // namespace blasscope::core
