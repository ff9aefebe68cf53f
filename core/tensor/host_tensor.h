#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/guarded_buffer.h"

namespace blasscope::core {

// A tensor in host memory, as a workload uses it: dense N-d data, or a 2-D matrix whose
// leading dimension (row stride in C order, column stride in Fortran order) may be padded.
class HostTensor {
 public:
  HostTensor() = default;
  // Allocates zeroed storage; `ld` 0 means dense. Throws std::bad_alloc.
  HostTensor(std::string name, DType dtype, std::vector<std::uint64_t> shape, MemoryOrder order, std::uint64_t ld = 0,
             std::size_t misalign = 0);

  const std::string& name() const { return m_name; }
  DType dtype() const { return m_dtype; }
  const std::vector<std::uint64_t>& shape() const { return m_shape; }
  MemoryOrder order() const { return m_order; }
  std::uint64_t element_count() const;
  bool is_matrix() const { return m_shape.size() == 2; }
  std::uint64_t rows() const { return m_shape.size() > 0 ? m_shape[0] : 1; }
  std::uint64_t cols() const { return m_shape.size() > 1 ? m_shape[1] : 1; }
  // Elements between the starts of consecutive rows (C) or columns (F) of a matrix.
  std::uint64_t leading_dim() const { return m_ld; }
  bool is_padded() const;
  std::byte* data() const { return m_buffer.data(); }
  std::size_t storage_bytes() const { return m_buffer.size(); }

  // Byte offset of logical element (i, j) of a matrix, honoring order and padding.
  std::uint64_t offset_of(std::uint64_t i, std::uint64_t j) const;
  // Byte offset of the element with flat C-order index `flat` (any rank, dense or padded).
  std::uint64_t offset_of_flat(std::uint64_t flat) const;

  // What every allocation costs beyond its elements: the guard page and the alignment slack.
  static constexpr std::uint64_t kAllocationOverhead = 4096 + 128;
  // Bytes needed for a tensor of this description (for budget checks before allocating).
  static std::uint64_t storage_bytes_for(DType dtype, const std::vector<std::uint64_t>& shape, MemoryOrder order,
                                         std::uint64_t ld);

 private:
  std::string m_name;
  DType m_dtype = DType::Float64;
  std::vector<std::uint64_t> m_shape;
  MemoryOrder m_order = MemoryOrder::C;
  std::uint64_t m_ld = 0;
  GuardedBuffer m_buffer;
};

// Leading dimension of a dense matrix of this shape and order.
std::uint64_t dense_leading_dim(const std::vector<std::uint64_t>& shape, MemoryOrder order);

}  // namespace blasscope::core
