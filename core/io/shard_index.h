#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blasscope::core {

// The index of a sharded checkpoint, as Hugging Face's save_pretrained writes it
// (model.safetensors.index.json, pytorch_model.bin.index.json):
//   {"metadata": {"total_size": N, ...}, "weight_map": {"tensor.name": "shard-file", ...}}
struct ShardIndex {
  std::vector<std::pair<std::string, std::string>> weight_map;  // tensor -> shard, in file order
  std::vector<std::string> shards;                              // distinct shard names, sorted
  std::optional<std::uint64_t> total_size;                      // metadata.total_size
  std::vector<std::pair<std::string, std::string>> metadata;    // the other metadata values
};

inline constexpr std::uint64_t kMaxShardIndexBytes = 64ull << 20;
inline constexpr std::size_t kMaxShards = 10000;

// Parses and validates an index: every error is an InputError naming the field
// ("weight_map.'lm_head.weight': expected a file name, got 3").
ShardIndex parse_shard_index(std::string_view text);

// A shard name must stay inside the checkpoint's folder: relative, no '..' component, no
// empty component, no NUL or backslash. Throws InputError naming `field` and the name.
void check_shard_name(const std::string& name, const std::string& field);

}  // namespace blasscope::core
