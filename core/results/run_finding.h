#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analysis/finding.h"

namespace blasscope::core {

// A detection made while (or before) running, with the facts it rests on. The diagnosis
// engine turns these into explained diagnoses.
struct RunFinding {
  std::string id;
  Severity severity = Severity::Info;
  std::optional<std::size_t> op;
  std::optional<std::string> tensor;
  std::string message;
  nlohmann::json facts = nlohmann::json::object();
};

}  // namespace blasscope::core
