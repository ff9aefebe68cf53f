#pragma once

#include <memory>
#include <span>
#include <string>

#include "io/tensor_file.h"

namespace blasscope::core {

// Opens a tensor file, choosing the reader by magic bytes (never by extension). A folder, or
// a JSON index (model.safetensors.index.json), opens as a sharded checkpoint
// (io/sharded_reader.h). Throws InputError naming what was wrong; the message does not
// repeat the path.
TensorFile open_tensor_file(const std::string& path);

// One file holding tensors itself (.npy, .npz, safetensors, torch.save): no folder, no index.
// Shards are opened with this, so an index naming another index is refused, not followed.
TensorFile open_single_tensor_file(const std::string& path);

// The bytes start (after white space) with '{' and are not a safetensors header: a JSON text.
bool looks_like_json_object(std::span<const std::byte> bytes);

}  // namespace blasscope::core
