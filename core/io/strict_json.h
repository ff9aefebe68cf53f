#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace blasscope::core {

// Parses JSON, rejecting duplicate keys at any depth (nlohmann would silently keep the last)
// and nesting deeper than `max_depth`. Throws InputError(Malformed) prefixed with `context`.
nlohmann::json parse_strict_json(std::string_view text, const std::string& context, int max_depth);

}  // namespace blasscope::core
