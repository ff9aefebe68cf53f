#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "text/json.h"

namespace blasscope::core {

enum class Severity : std::uint8_t { Error, Warning, Info };

inline std::string_view name(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: break;
  }
  return "info";
}

// Something detected about a tensor or an op, with a stable id that is the same whether
// `inspect`, the plan or a run found it. The diagnosis engine explains it (a Diagnosis is a
// detection with its explanation).
struct Detection {
  std::string id;
  Severity severity = Severity::Info;
  std::optional<std::size_t> op;
  std::optional<std::string> tensor;
  std::string message;
  nlohmann::json facts = nlohmann::json::object();  // the measured values it rests on
};

}  // namespace blasscope::core
