#pragma once

#include <cstdint>
#include <string>

#include "analysis/inspect_report.h"
#include "text/format.h"

namespace blasscope::core {

// Human-readable `inspect` output: a tensor table, then the findings.
std::string to_text(const InspectReport& report);

}  // namespace blasscope::core
