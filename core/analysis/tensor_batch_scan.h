#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "analysis/stats_scanner.h"

namespace blasscope::core {

// Tensors below this size are scanned by one thread each (stats_scanner.cpp splits only
// bigger ones), so several of them are scanned at once instead.
inline constexpr std::uint64_t kBatchScanMaxBytes = 32ull << 20;

// Whether scan_tensor would use a single thread for `tensor`: small mapped data, or a
// deflated member (inflated by one thread whatever its size).
bool scans_single_threaded(const TensorInfo& tensor);

// Scans file.tensors[first, last) several at a time on a small pool (options.threads, 0:
// one per hardware thread); each result goes to `results[i]`. On the calling thread:
// `progress(bytes done within the batch)` as tensors finish, and `done(i)` for each tensor
// in the order they finish. Stops promptly on options.stop (throws ScanCancelled); an
// InputError from a tensor is rethrown after the pool stops (the first failing tensor in
// index order).
void scan_batch(const TensorFile& file, std::size_t first, std::size_t last, const ScanOptions& options,
                std::vector<std::optional<TensorStats>>& results, const std::function<void(std::uint64_t)>& progress,
                const std::function<void(std::size_t)>& done);

}  // namespace blasscope::core
