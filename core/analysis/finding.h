#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// Something worth telling the user about a tensor, with a stable id.
struct Finding {
  std::string id;
  Severity severity = Severity::Info;
  std::string tensor;
  std::string message;
};

}  // namespace blasscope::core
