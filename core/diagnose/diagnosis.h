#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/detection.h"
#include "text/json.h"

namespace blasscope::core {

// A detection explained: what was measured, what really happened, and how to fix it, with
// the error texts it shows up as elsewhere. Its id, severity, op and tensor are the
// detection's own, whichever of inspect, the plan or a run detected it.
struct Diagnosis : Detection {
  std::string title;                  // one line, specific to this case
  std::vector<std::string> evidence;  // measured facts
  std::string cause;
  std::string fix;
  std::vector<std::string> seen_as;
};

// A detection with the evidence it rests on (its message first), before the catalogue explains it.
Diagnosis diagnosis_of(const Detection& detection);
// A diagnosis as a detector makes it, before the catalogue explains it.
Diagnosis detected(std::string id, Severity severity, std::optional<std::size_t> op, std::optional<std::string> tensor,
                   std::string title, std::vector<std::string> evidence);

// Fills title (when empty), cause, fix and seen_as from the catalogue entry of d.id.
Diagnosis explained(Diagnosis d);

// Moves the seen_as lines that contain `key`, or one of its alternatives split by '|' (any case),
// before the others, the first alternative's first, keeping their order otherwise:
// a page shared by several failures lists this one's messages first.
void put_seen_as_first(Diagnosis& d, std::string_view key);

nlohmann::json to_json(const Diagnosis& d);
bool has_error(const std::vector<Diagnosis>& diagnoses);

}  // namespace blasscope::core
