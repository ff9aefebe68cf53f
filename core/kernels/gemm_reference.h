#pragma once

#include <complex>
#include <cstdint>

#include "kernels/gemm.h"
#include "tensor/element_codec.h"

namespace blasscope::core {

// The plain triple loop every GEMM path is tested against: C = alpha op(A) op(B) + beta C,
// element by element through each operand's own order and leading dimension, accumulated
// in complex<long double>. Also returns, per element, sum |a||b| for error bounds.
struct ReferenceGemmElement {
  std::complex<long double> value;
  long double magnitude;
};

inline std::uint64_t element_offset(const MatrixView& v, std::uint64_t i, std::uint64_t j) {
  return (v.order == MemoryOrder::C ? i * v.ld + j : j * v.ld + i) * item_size(v.dtype);
}

inline ReferenceGemmElement reference_gemm_element(const MatrixView& a, bool trans_a, const MatrixView& b, bool trans_b,
                                                   const MatrixView& c, double alpha, double beta, std::uint64_t i,
                                                   std::uint64_t j) {
  const std::uint64_t k = trans_a ? a.rows : a.cols;
  std::complex<long double> sum = 0;
  long double magnitude = 0;
  for (std::uint64_t p = 0; p < k; ++p) {
    const auto av = load_element(a.dtype, a.data + (trans_a ? element_offset(a, p, i) : element_offset(a, i, p)));
    const auto bv = load_element(b.dtype, b.data + (trans_b ? element_offset(b, j, p) : element_offset(b, p, j)));
    sum += std::complex<long double>(av) * std::complex<long double>(bv);
    magnitude += std::abs(std::complex<long double>(av)) * std::abs(std::complex<long double>(bv));
  }
  const auto cv = beta != 0 ? load_element(c.dtype, c.data + element_offset(c, i, j)) : std::complex<double>();
  return {static_cast<long double>(alpha) * sum + static_cast<long double>(beta) * std::complex<long double>(cv),
          std::abs(static_cast<long double>(alpha)) * magnitude +
              std::abs(static_cast<long double>(beta)) * std::abs(std::complex<long double>(cv))};
}

}  // namespace blasscope::core
