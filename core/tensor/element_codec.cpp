#include "tensor/element_codec.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/minifloat.h"

namespace blasscope::core {
namespace {

template <typename T>
T read(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void write(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
T saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

}  // namespace

std::uint16_t float_to_half(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t abs = f & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0u));
  if (abs >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // 65536 and up: inf
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): add the value to 0.5 so the FPU rounds at the right bit.
    const float shifted = std::bit_cast<float>(abs) + 0.5f;
    return static_cast<std::uint16_t>(sign | (std::bit_cast<std::uint32_t>(shifted) - 0x3F000000u));
  }
  const std::uint32_t mantissa_odd = (abs >> 13) & 1u;
  const std::uint32_t rounded = abs + 0xC8000FFFu + mantissa_odd;  // rebias exponent, round to nearest even
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

float half_to_float(std::uint16_t bits) {
  return decode_float16(bits).value;
}

std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((f >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t rounded = f + 0x7FFFu + ((f >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

float bfloat16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::complex<double> load_element(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::Bool: return read<std::uint8_t>(p) != 0 ? 1.0 : 0.0;
    case DType::Int8: return read<std::int8_t>(p);
    case DType::Int16: return read<std::int16_t>(p);
    case DType::Int32: return read<std::int32_t>(p);
    case DType::Int64: return static_cast<double>(read<std::int64_t>(p));
    case DType::UInt8: return read<std::uint8_t>(p);
    case DType::UInt16: return read<std::uint16_t>(p);
    case DType::UInt32: return read<std::uint32_t>(p);
    case DType::UInt64: return static_cast<double>(read<std::uint64_t>(p));
    case DType::Float16: return half_to_float(read<std::uint16_t>(p));
    case DType::BFloat16: return bfloat16_to_float(read<std::uint16_t>(p));
    case DType::Float32: return read<float>(p);
    case DType::Float64: return read<double>(p);
    case DType::Complex64: return std::complex<double>(read<std::complex<float>>(p));
    case DType::Complex128: return read<std::complex<double>>(p);
    case DType::Float8E4M3FN: return decode_float8_e4m3fn(read<std::uint8_t>(p)).value;
    case DType::Float8E5M2: return decode_float8_e5m2(read<std::uint8_t>(p)).value;
    case DType::Float8E8M0FNU: return decode_float8_e8m0fnu(read<std::uint8_t>(p)).value;
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

void store_element(DType dtype, std::byte* p, std::complex<double> value) {
  const double v = value.real();
  switch (dtype) {
    case DType::Bool: return write<std::uint8_t>(p, v != 0 || value.imag() != 0);
    case DType::Int8: return write(p, saturate<std::int8_t>(v));
    case DType::Int16: return write(p, saturate<std::int16_t>(v));
    case DType::Int32: return write(p, saturate<std::int32_t>(v));
    case DType::Int64: return write(p, saturate<std::int64_t>(v));
    case DType::UInt8: return write(p, saturate<std::uint8_t>(v));
    case DType::UInt16: return write(p, saturate<std::uint16_t>(v));
    case DType::UInt32: return write(p, saturate<std::uint32_t>(v));
    case DType::UInt64: return write(p, saturate<std::uint64_t>(v));
    case DType::Float16: return write(p, float_to_half(static_cast<float>(v)));
    case DType::BFloat16: return write(p, float_to_bfloat16(static_cast<float>(v)));
    case DType::Float32: return write(p, static_cast<float>(v));
    case DType::Float64: return write(p, v);
    case DType::Complex64: return write(p, std::complex<float>(value));
    case DType::Complex128: return write(p, value);
    default: return;  // fp8 and packed types are never written by BLAScope
  }
}

}  // namespace blasscope::core
