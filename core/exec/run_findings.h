#pragma once

#include <vector>

#include "exec/run_result.h"

namespace blasscope::core {

// Findings that follow from the records and events of a run: illegal-argument,
// non-finite-input, non-finite-output, out-of-memory, shape-mismatch, dtype-mismatch,
// unsupported-dtype, worker-crashed (and no-gpu, lapack-failed, cast-overflow).
std::vector<RunFinding> derive_run_findings(const RunResult& result);

}  // namespace blasscope::core
