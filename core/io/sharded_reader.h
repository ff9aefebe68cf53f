#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/mapped_file.h"
#include "io/tensor_file.h"

namespace blasscope::core {

// Sharded checkpoints (Hugging Face save_pretrained with max_shard_size): an index JSON
// (io/shard_index.h) naming the shard file of every tensor, each shard a safetensors file or
// a torch.save archive read by its own reader. The result is one TensorFile of format
// Sharded holding every tensor of every shard; each tensor's bytes stay in its shard's
// mapping (TensorStorage::mapping), nothing is copied. Shards are opened in parallel.
//
// Refused (InputError naming the shard, the tensor and the field): a shard file that is
// missing or malformed, a shard name leaving the index's folder, a tensor the index maps to
// a shard that does not hold it, a tensor held by two shards, an empty weight_map.
// Warnings (TensorFile::warnings): a tensor no weight_map entry lists, a metadata.total_size
// other than the sum of the tensors' bytes.

// `mapping` is the index JSON; shard names are relative to its folder.
TensorFile read_sharded_index(std::shared_ptr<const MappedFile> mapping);

// A folder given as the file: model.safetensors.index.json if present, else
// pytorch_model.bin.index.json, else the single *.index.json; without an index, every
// *.safetensors file (else every *.bin, *.pt, *.pth file) is read as a shard.
TensorFile read_sharded_directory(const std::string& path);

// Reads the named shard files (relative to `folder`) in parallel and joins them into one
// TensorFile; `index` (may be null) is checked against what the shards hold.
struct ShardIndex;
TensorFile read_shards(const std::string& folder, const std::vector<std::string>& shard_names, const ShardIndex* index);

}  // namespace blasscope::core
