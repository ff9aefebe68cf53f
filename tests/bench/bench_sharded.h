#pragma once

#include <cstdint>

namespace blasscope::bench {

// The sharded case of blasscope-bench-inspect: writes 4 safetensors shards of `gib` x 256 MiB
// holding 200 tensors of about 5 MiB (float32 and bfloat16) plus a model.safetensors.index.json,
// times `inspect` of the index against a plain multi-threaded mmap read of the same shard
// files, and prints the ratio (goal >= 0.90).
void run_sharded_case(std::uint64_t gib);

}  // namespace blasscope::bench
