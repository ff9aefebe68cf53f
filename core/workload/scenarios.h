#pragma once

#include <optional>
#include <string>
#include <vector>

#include "workload/workload.h"

namespace blasscope::core {

// The built-in scenarios (resources/scenarios/*.json, compiled in), sorted by id.
const std::vector<Workload>& builtin_scenarios();
const Workload* find_scenario(const std::string& id);

// A workload file path, or a built-in scenario id where no such file exists.
// Throws InputError naming both possibilities when neither is found.
Workload load_workload(const std::string& path_or_scenario);

}  // namespace blasscope::core
