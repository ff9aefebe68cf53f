#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/finding.h"

namespace blasscope::core {

// A detected failure or slowdown, explained: what was measured, what really happened, and
// how to fix it, with the error texts it shows up as elsewhere.
struct Diagnosis {
  std::string id;
  Severity severity = Severity::Info;
  std::optional<std::size_t> op;
  std::optional<std::string> tensor;
  std::string title;                  // one line, specific to this case
  std::vector<std::string> evidence;  // measured facts
  std::string cause;
  std::string fix;
  std::vector<std::string> seen_as;
};

// A diagnosis as a detector makes it, before the catalogue explains it.
Diagnosis detected(std::string id, Severity severity, std::optional<std::size_t> op, std::optional<std::string> tensor,
                   std::string title, std::vector<std::string> evidence);

// Fills title (when empty), cause, fix and seen_as from the catalogue entry of d.id.
Diagnosis explained(Diagnosis d);

nlohmann::json to_json(const Diagnosis& d);
bool has_error(const std::vector<Diagnosis>& diagnoses);

}  // namespace blasscope::core
