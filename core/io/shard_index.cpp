#include "io/shard_index.h"

#include <algorithm>
#include <set>

#include "io/input_error.h"
#include "io/strict_json.h"

namespace blasscope::core {
namespace {

using nlohmann::json;

constexpr int kMaxIndexDepth = 16;
constexpr std::size_t kMaxShardNameBytes = 4096;

std::string in_quotes(const std::string& text) {
  return "'" + text + "'";
}

std::string describe(const json& value) {
  if (value.is_string()) return value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (value.is_number() || value.is_boolean() || value.is_null()) return value.dump();
  return std::string(value.type_name());
}

std::string metadata_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::uint64_t read_total_size(const json& value) {
  try {
    return value.get<std::uint64_t>();  // checked: negative, fractional, boolean values throw
  } catch (const json::exception&) {
    fail_malformed("metadata.total_size: expected a byte count, got " + describe(value));
  }
}

}  // namespace

void check_shard_name(const std::string& name, const std::string& field) {
  auto refuse = [&](const std::string& why) { fail_malformed(field + ": shard file " + in_quotes(name) + " " + why); };
  if (name.empty()) fail_malformed(field + ": expected a file name, got \"\"");
  if (name.size() > kMaxShardNameBytes) refuse("is longer than " + std::to_string(kMaxShardNameBytes) + " bytes");
  if (name.front() == '/') refuse("is an absolute path (shards must be inside the checkpoint's folder)");
  if (name.find('\0') != std::string::npos) refuse("holds a NUL byte");
  if (name.find('\\') != std::string::npos) refuse("holds a backslash (shard names are relative POSIX paths)");
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part(name.data() + start, end - start);
    if (part == "..") refuse("has a '..' component (shards must be inside the checkpoint's folder)");
    if (part.empty() || part == ".") refuse("has an empty or '.' path component");
    start = end + 1;
  }
}

ShardIndex parse_shard_index(std::string_view text) {
  if (text.size() > kMaxShardIndexBytes) {
    fail_malformed("index: " + std::to_string(text.size()) + " bytes exceed the limit of " +
                   std::to_string(kMaxShardIndexBytes) + " for a checkpoint index");
  }
  const json document = parse_strict_json(text, "index", kMaxIndexDepth);
  if (!document.is_object()) fail_malformed("index: expected a JSON object, got " + describe(document));
  ShardIndex index;
  if (const auto metadata = document.find("metadata"); metadata != document.end()) {
    if (!metadata->is_object() && !metadata->is_null()) {
      fail_malformed("metadata: expected an object, got " + describe(*metadata));
    }
    if (metadata->is_object()) {
      for (const auto& [key, value] : metadata->items()) {
        if (key == "total_size") {
          index.total_size = read_total_size(value);
        } else {
          index.metadata.emplace_back(key, metadata_text(value));
        }
      }
    }
  }
  const auto weight_map = document.find("weight_map");
  if (weight_map == document.end()) fail_malformed("weight_map: missing (not a sharded checkpoint index)");
  if (!weight_map->is_object()) fail_malformed("weight_map: expected an object, got " + describe(*weight_map));
  if (weight_map->empty()) fail_malformed("weight_map: empty (the index lists no tensor)");
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : weight_map->items()) {
    const std::string field = "weight_map." + in_quotes(tensor);
    if (!shard.is_string()) fail_malformed(field + ": expected a file name, got " + describe(shard));
    const std::string& name = shard.get_ref<const std::string&>();
    check_shard_name(name, field);
    if (shards.insert(name).second && shards.size() > kMaxShards) {
      fail_malformed("weight_map: names more than " + std::to_string(kMaxShards) + " shard files");
    }
    index.weight_map.emplace_back(tensor, name);
  }
  index.shards.assign(shards.begin(), shards.end());
  return index;
}

}  // namespace blasscope::core
