#include "io/strict_json.h"

#include <set>
#include <vector>

#include "io/input_error.h"

namespace blasscope::core {

using nlohmann::json;

json parse_strict_json(std::string_view text, const std::string& context, int max_depth) {
  std::vector<std::set<std::string>> keys_per_object;
  std::string duplicate;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    // Refusing deep input early keeps a small malicious document from building a huge tree.
    if (depth > max_depth) fail_malformed(context + ": JSON nested deeper than " + std::to_string(max_depth));
    if (event == json::parse_event_t::object_start) {
      keys_per_object.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      keys_per_object.pop_back();
    } else if (event == json::parse_event_t::key && !keys_per_object.empty()) {
      if (!keys_per_object.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
        duplicate = parsed.get<std::string>();
      }
    }
    return true;
  };
  json document;
  try {
    document = json::parse(text.begin(), text.end(), callback);
  } catch (const json::exception& error) {
    fail_malformed(context + ": not valid JSON: " + error.what());
  }
  if (!duplicate.empty()) fail_malformed(context + ": duplicate key '" + duplicate + "'");
  return document;
}

}  // namespace blasscope::core
