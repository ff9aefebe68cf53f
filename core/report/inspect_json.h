#pragma once

#include "analysis/inspect_report.h"
#include "io/input_error.h"
#include "text/json.h"

namespace blasscope::core {

// The `blasscope-cli inspect --json` contract (see README).
nlohmann::json to_json(const InspectReport& report);
nlohmann::json to_json(const TensorStats& stats);
nlohmann::json to_json(const Scalar& value);
nlohmann::json error_json(const InputError& error);

}  // namespace blasscope::core
