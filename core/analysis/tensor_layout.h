#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "io/tensor_file.h"

namespace blasscope::core {

// Alignments above a page say nothing more for BLAS, so they are reported as 4096.
inline constexpr std::uint64_t kMaxReportedAlignment = 4096;

// Largest power of two dividing `address`, capped at kMaxReportedAlignment.
std::uint64_t alignment_of(std::uint64_t address);

struct TensorLayout {
  MemoryOrder order = MemoryOrder::C;
  bool contiguous = true;  // files store dense arrays
  std::uint64_t file_alignment = 0;
  // Where the mapped data sits in this process; empty for deflated members, which have
  // no fixed address until a consumer copies them.
  std::optional<std::uint64_t> memory_alignment;
};

// The NumPy index (one entry per axis) of the element at position `flat` in storage
// order: row-major for C order, column-major for Fortran order.
std::vector<std::uint64_t> unravel_storage_index(std::uint64_t flat, const std::vector<std::uint64_t>& shape,
                                                 MemoryOrder order);

TensorLayout describe_layout(const TensorFile& file, const TensorInfo& tensor);

}  // namespace blasscope::core
