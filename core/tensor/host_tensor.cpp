#include "tensor/host_tensor.h"

#include <algorithm>

namespace blasscope::core {

std::uint64_t dense_leading_dim(const std::vector<std::uint64_t>& shape, MemoryOrder order) {
  if (shape.size() != 2) return 0;
  return std::max<std::uint64_t>(1, order == MemoryOrder::C ? shape[1] : shape[0]);
}

std::uint64_t HostTensor::storage_bytes_for(DType dtype, const std::vector<std::uint64_t>& shape, MemoryOrder order,
                                            std::uint64_t ld) {
  std::uint64_t count = 1;
  for (auto d : shape) count *= d;
  if (shape.size() == 2 && ld != 0 && count != 0) {
    const std::uint64_t outer = order == MemoryOrder::C ? shape[0] : shape[1];
    const std::uint64_t inner = order == MemoryOrder::C ? shape[1] : shape[0];
    count = (outer - 1) * ld + inner;
  }
  return count * item_size(dtype);
}

HostTensor::HostTensor(std::string name, DType dtype, std::vector<std::uint64_t> shape, MemoryOrder order,
                       std::uint64_t ld, std::size_t misalign)
    : m_name(std::move(name)), m_dtype(dtype), m_shape(std::move(shape)), m_order(order) {
  m_ld = ld != 0 ? ld : dense_leading_dim(m_shape, m_order);
  m_buffer = GuardedBuffer(storage_bytes_for(m_dtype, m_shape, m_order, m_ld), misalign);
}

std::uint64_t HostTensor::element_count() const {
  std::uint64_t count = 1;
  for (auto d : m_shape) count *= d;
  return count;
}

bool HostTensor::is_padded() const {
  return is_matrix() && m_ld != dense_leading_dim(m_shape, m_order);
}

std::uint64_t HostTensor::offset_of(std::uint64_t i, std::uint64_t j) const {
  const std::uint64_t element = m_order == MemoryOrder::C ? i * m_ld + j : j * m_ld + i;
  return element * item_size(m_dtype);
}

std::uint64_t HostTensor::offset_of_flat(std::uint64_t flat) const {
  if (is_matrix()) return offset_of(flat / cols(), flat % cols());
  if (m_order == MemoryOrder::C || m_shape.size() < 2) return flat * item_size(m_dtype);
  // Fortran order, any rank: turn the C-order index into column-major storage order.
  std::uint64_t storage = 0, stride = 1;
  std::vector<std::uint64_t> index(m_shape.size());
  for (std::size_t d = m_shape.size(); d-- > 0;) {
    index[d] = flat % m_shape[d];
    flat /= m_shape[d];
  }
  for (std::size_t d = 0; d < m_shape.size(); ++d) {
    storage += index[d] * stride;
    stride *= m_shape[d];
  }
  return storage * item_size(m_dtype);
}

}  // namespace blasscope::core
