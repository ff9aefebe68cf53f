#pragma once

#include <string>
#include <vector>

#include "analysis/detection.h"

namespace blasscope::core {

// The general explanation of one diagnosis id, read from resources/explanations/ID.md:
// what really happens, how to fix it, and the error texts it shows up as.
struct Explanation {
  std::string id;
  Severity severity = Severity::Info;
  std::string title;
  std::string cause;
  std::string fix;
  std::vector<std::string> seen_as;
  std::string text;  // the whole file, for `blasscope-cli explain`
};

// Every diagnosis id the engine produces, in catalogue order.
const std::vector<std::string>& diagnosis_ids();

// The parsed explanation texts (one per file); throws std::runtime_error on a malformed file.
const std::vector<Explanation>& explanation_catalogue();

// nullptr for an unknown id.
const Explanation* find_explanation(const std::string& id);

// Parses one explanation file (exposed for tests).
Explanation parse_explanation(const std::string& text);

}  // namespace blasscope::core
