#pragma once

#include <vector>

#include "results/kernel_record.h"
#include "results/run_result.h"
#include "text/json.h"

namespace blasscope::core {

// The findings one op's record implies: dlascl-invalid-cfrom, illegal-argument,
// shape-mismatch, dtype-mismatch, unsupported-dtype, out-of-memory, lapack-failed, no-gpu,
// non-finite-input, subnormal-values, non-finite-output, cast-overflow, cast-precision-loss.
// The worker emits them as "finding" events.
std::vector<Detection> findings_for_record(const KernelRecord& record);

// An input tensor that did not fit the memory budget.
Detection finding_for_unallocated_input(const std::string& tensor, const std::string& message,
                                        const nlohmann::json& facts = nlohmann::json::object());

// The worker died: worker-crashed, with the op that was running.
Detection finding_for_crash(const CrashInfo& crash);

nlohmann::json to_json(const Detection& finding);
Detection run_finding_from_json(const nlohmann::json& j);

}  // namespace blasscope::core
