#pragma once

#include <cstdint>
#include <string>

#include "report/inspect_report.h"

namespace blasscope::core {

// Human-readable `inspect` output: a tensor table, then the findings.
std::string to_text(const InspectReport& report);

// Small formatting helpers shared by the text report and the GUI.
std::string format_bytes(std::uint64_t bytes);
std::string format_shape(const std::vector<std::uint64_t>& shape);
std::string format_scalar(const Scalar& value);
// Replaces bytes that are not valid UTF-8 (names and messages from a malformed file) by
// \xNN escapes, so what reaches a terminal or log is always valid text.
std::string printable_utf8(std::string_view text);

}  // namespace blasscope::core
