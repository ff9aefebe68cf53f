#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/detection.h"
#include "analysis/stats_scanner.h"
#include "analysis/tensor_layout.h"
#include "analysis/tensor_stats.h"
#include "io/tensor_file.h"

namespace blasscope::core {

struct TensorReport {
  TensorInfo info;
  TensorLayout layout;
  std::optional<TensorStats> stats;  // empty until scanned, or for non-numeric data
  bool scanned = false;
};

// What `inspect` says about one file. Built in two stages so a caller can show the
// tensor table at once and fill in the values as each scan finishes.
struct InspectReport {
  std::string file;
  FileFormat format = FileFormat::Npy;
  std::uint64_t file_size = 0;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<ShardSummary> shards;  // a sharded checkpoint's files, in name order
  std::vector<TensorReport> tensors;
  std::vector<Detection> findings;
};

// Stage 1: headers and layout only; no data is read.
InspectReport describe_file(const TensorFile& file);

// Stage 2: scans every tensor (progress is over the bytes of all tensors) and adds the
// findings. `tensor_done(i)` is called after tensor i has its stats.
void scan_report(const TensorFile& file, InspectReport& report, const ScanOptions& options = {},
                 const std::function<void(std::size_t)>& tensor_done = {});

// Both stages.
InspectReport inspect_file(const std::string& path, const ScanOptions& options = {});

}  // namespace blasscope::core
