#pragma once

#include <string>
#include <string_view>

#include "workload/workload.h"

namespace blasscope::core {

// Reads and validates a workload file before anything runs: unknown keys, unknown tensor
// names, wrong types and out-of-range values are InputErrors naming the field
// (e.g. "ops[1].lda: must be an integer"). Relative paths resolve against the file's folder.
Workload parse_workload_file(const std::string& path);
Workload parse_workload_text(std::string_view text, const std::string& base_dir);

}  // namespace blasscope::core
