#pragma once

#include <string>
#include <string_view>

#include "text/json.h"

namespace blasscope::core {

// Parses JSON, rejecting duplicate keys at any depth (nlohmann would silently keep the last)
// and nesting deeper than `max_depth`. Throws InputError(Malformed) prefixed with `context`.
nlohmann::json parse_strict_json(std::string_view text, const std::string& context, int max_depth);

}  // namespace blasscope::core
