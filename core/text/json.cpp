#include "text/json.h"

namespace blasscope::core {

namespace {

bool find_path(const nlohmann::json& node, const void* target, std::string& path) {
  if (&node == target) return true;
  const std::size_t length = path.size();
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      path += (path.empty() ? "" : ".") + it.key();
      if (find_path(it.value(), target, path)) return true;
      path.resize(length);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      path += "[" + std::to_string(i) + "]";
      if (find_path(node[i], target, path)) return true;
      path.resize(length);
    }
  }
  return false;
}

}  // namespace

std::string json_path(const nlohmann::json& root, const void* target) {
  std::string path;
  return find_path(root, target, path) ? path : std::string();
}

}  // namespace blasscope::core
