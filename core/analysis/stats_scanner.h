#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>

#include "analysis/tensor_stats.h"
#include "io/tensor_file.h"

namespace blasscope::core {

struct ScanOptions {
  unsigned threads = 0;  // 0: one per hardware thread
  std::stop_token stop;  // cancellation: the scan throws ScanCancelled
  // Called on the calling thread as bytes are scanned (done, total).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

struct ScanCancelled : std::exception {
  const char* what() const noexcept override { return "scan cancelled"; }
};

// One pass over a tensor's values: mapped data is scanned in place by several threads,
// deflated npz members are inflated and HDF5 chunked/filtered data decoded in bounded chunks. Big-endian data is swapped in
// small buffers. Throws InputError for corrupt compressed data, ScanCancelled on stop.
// Returns nullopt for dtypes whose values are not scanned (packed sub-byte floats).
std::optional<TensorStats> scan_tensor(const TensorFile& file, const TensorInfo& tensor,
                                       const ScanOptions& options = {});

// The same scan over bytes in memory (little- or big-endian), for callers without a file.
TensorStats scan_bytes(DType dtype, ByteOrder order, std::span<const std::byte> bytes, const ScanOptions& options = {});

}  // namespace blasscope::core
