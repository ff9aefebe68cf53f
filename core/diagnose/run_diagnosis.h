#pragma once

#include <vector>

#include "analysis/inspect_report.h"
#include "diagnose/diagnosis.h"
#include "results/run_result.h"

namespace blasscope::core {

// Turns a run's findings into explained diagnoses with their evidence, and adds what only
// the whole run shows: misaligned-buffer and ld-cache-aliasing with measured costs against a
// twin op, non-contiguous-layout, blas-kernel-mismatch. One diagnosis per (id, op, tensor).
std::vector<Diagnosis> diagnose_run(const RunResult& result);

// Diagnoses of an inspected file: non-finite-input, subnormal-values, misaligned-buffer.
std::vector<Diagnosis> diagnose_inspect(const InspectReport& report);

// Ids that describe the machine rather than a workload (blas-kernel-mismatch).
bool is_environment_diagnosis(const std::string& id);

}  // namespace blasscope::core
