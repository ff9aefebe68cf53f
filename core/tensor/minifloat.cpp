#include "tensor/minifloat.h"

#include <bit>
#include <cmath>

namespace blasscope::core {
namespace {

enum class SpecialValues { Ieee, FiniteOnlyNanAllOnes };

// Decodes a sign/exponent/mantissa float narrower than float32.
DecodedValue decode_small_float(std::uint32_t bits, int exponent_bits, int mantissa_bits, SpecialValues specials) {
  const std::uint32_t mantissa_mask = (1u << mantissa_bits) - 1;
  const std::uint32_t exponent_max = (1u << exponent_bits) - 1;
  const bool negative = (bits >> (exponent_bits + mantissa_bits)) & 1u;
  const std::uint32_t exponent = (bits >> mantissa_bits) & exponent_max;
  const std::uint32_t mantissa = bits & mantissa_mask;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const float sign = negative ? -1.0f : 1.0f;
  if (specials == SpecialValues::Ieee && exponent == exponent_max) {
    if (mantissa != 0) return {ValueClass::NaN, NAN};
    return {negative ? ValueClass::NegInf : ValueClass::PosInf, sign * INFINITY};
  }
  if (specials == SpecialValues::FiniteOnlyNanAllOnes && exponent == exponent_max && mantissa == mantissa_mask) {
    return {ValueClass::NaN, NAN};
  }
  if (exponent == 0) {
    if (mantissa == 0) return {ValueClass::Zero, sign * 0.0f};
    return {ValueClass::Subnormal, sign * std::ldexp(static_cast<float>(mantissa), 1 - bias - mantissa_bits)};
  }
  const float significand = 1.0f + std::ldexp(static_cast<float>(mantissa), -mantissa_bits);
  return {ValueClass::Normal, sign * std::ldexp(significand, static_cast<int>(exponent) - bias)};
}

}  // namespace

DecodedValue decode_float16(std::uint16_t bits) {
  return decode_small_float(bits, 5, 10, SpecialValues::Ieee);
}

DecodedValue decode_bfloat16(std::uint16_t bits) {
  const float value = std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
  switch (std::fpclassify(value)) {
    case FP_NAN: return {ValueClass::NaN, value};
    case FP_INFINITE: return {value > 0 ? ValueClass::PosInf : ValueClass::NegInf, value};
    case FP_ZERO: return {ValueClass::Zero, value};
    case FP_SUBNORMAL: return {ValueClass::Subnormal, value};
    default: return {ValueClass::Normal, value};
  }
}

DecodedValue decode_float8_e4m3fn(std::uint8_t bits) {
  return decode_small_float(bits, 4, 3, SpecialValues::FiniteOnlyNanAllOnes);
}

DecodedValue decode_float8_e5m2(std::uint8_t bits) {
  return decode_small_float(bits, 5, 2, SpecialValues::Ieee);
}

DecodedValue decode_float8_e8m0fnu(std::uint8_t bits) {
  // Unsigned power of two: no sign, no zero, no subnormals; all ones is NaN.
  if (bits == 0xFF) return {ValueClass::NaN, NAN};
  return {ValueClass::Normal, std::ldexp(1.0f, static_cast<int>(bits) - 127)};
}

}  // namespace blasscope::core
