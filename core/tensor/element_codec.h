#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>

#include "tensor/dtype.h"

namespace blasscope::core {

// IEEE binary16 and bfloat16 conversions, rounding to nearest even (as NumPy and ml_dtypes do).
std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(std::uint16_t bits);

// Reads/writes one element of any scannable dtype as a complex double (the imaginary part
// is 0 for real types). Writes round as NumPy's astype does; integers wrap like C casts
// of in-range values and saturate out of range, so callers check ranges first.
std::complex<double> load_element(DType dtype, const std::byte* p);
void store_element(DType dtype, std::byte* p, std::complex<double> value);

}  // namespace blasscope::core
