#pragma once

#include <cstdint>

namespace blasscope::core {

// How a value is classified by the stats scan.
enum class ValueClass : std::uint8_t { NaN, PosInf, NegInf, Zero, Subnormal, Normal };

struct DecodedValue {
  ValueClass cls;
  float value;  // exact: every format here fits in float32
};

// The 8- and 16-bit float formats, decoded exactly (used to build lookup tables).
DecodedValue decode_float16(std::uint16_t bits);
DecodedValue decode_bfloat16(std::uint16_t bits);
DecodedValue decode_float8_e4m3fn(std::uint8_t bits);
DecodedValue decode_float8_e5m2(std::uint8_t bits);
DecodedValue decode_float8_e8m0fnu(std::uint8_t bits);

}  // namespace blasscope::core
