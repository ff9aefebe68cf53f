#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace blasscope::core {

// A text file from the repository's resources/ folder, compiled in.
struct EmbeddedResource {
  std::string_view path;  // relative to resources/: "explanations/no-gpu.md"
  std::string_view text;
};

const std::vector<EmbeddedResource>& embedded_resources();

inline std::optional<std::string_view> find_embedded_resource(std::string_view path) {
  for (const auto& r : embedded_resources()) {
    if (r.path == path) return r.text;
  }
  return std::nullopt;
}

}  // namespace blasscope::core
