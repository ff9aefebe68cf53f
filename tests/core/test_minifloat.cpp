#include <gtest/gtest.h>

#include <cmath>

#include "tensor/minifloat.h"

using namespace blasscope::core;

TEST(Minifloat, Float16KnownValues) {
  EXPECT_EQ(decode_float16(0x3C00).value, 1.0f);
  EXPECT_EQ(decode_float16(0x7BFF).value, 65504.0f);               // largest finite
  EXPECT_EQ(decode_float16(0x0001).value, std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(decode_float16(0x0001).cls, ValueClass::Subnormal);
  EXPECT_EQ(decode_float16(0x0400).cls, ValueClass::Normal);  // smallest normal
  EXPECT_EQ(decode_float16(0x7C00).cls, ValueClass::PosInf);
  EXPECT_EQ(decode_float16(0xFC00).cls, ValueClass::NegInf);
  EXPECT_EQ(decode_float16(0x7E00).cls, ValueClass::NaN);
  EXPECT_EQ(decode_float16(0x8000).cls, ValueClass::Zero);
  EXPECT_EQ(decode_float16(0xC000).value, -2.0f);
}

TEST(Minifloat, BFloat16IsTheTopHalfOfFloat32) {
  EXPECT_EQ(decode_bfloat16(0x3F80).value, 1.0f);
  EXPECT_EQ(decode_bfloat16(0x0001).cls, ValueClass::Subnormal);
  EXPECT_EQ(decode_bfloat16(0x7F80).cls, ValueClass::PosInf);
  EXPECT_EQ(decode_bfloat16(0x7FC0).cls, ValueClass::NaN);
  EXPECT_EQ(decode_bfloat16(0x7F7F).value, 3.38953139e38f);
}

TEST(Minifloat, Float8E4M3FNHasNoInfinityAndOneNaNPattern) {
  EXPECT_EQ(decode_float8_e4m3fn(0x7E).value, 448.0f);            // largest finite
  EXPECT_EQ(decode_float8_e4m3fn(0x78).cls, ValueClass::Normal);  // exponent all ones is still finite
  EXPECT_EQ(decode_float8_e4m3fn(0x7F).cls, ValueClass::NaN);
  EXPECT_EQ(decode_float8_e4m3fn(0xFF).cls, ValueClass::NaN);
  EXPECT_EQ(decode_float8_e4m3fn(0x01).value, std::ldexp(1.0f, -9));
  EXPECT_EQ(decode_float8_e4m3fn(0x01).cls, ValueClass::Subnormal);
}

TEST(Minifloat, Float8E5M2IsIeeeLike) {
  EXPECT_EQ(decode_float8_e5m2(0x7B).value, 57344.0f);
  EXPECT_EQ(decode_float8_e5m2(0x7C).cls, ValueClass::PosInf);
  EXPECT_EQ(decode_float8_e5m2(0x7D).cls, ValueClass::NaN);
  EXPECT_EQ(decode_float8_e5m2(0x01).value, std::ldexp(1.0f, -16));
}

TEST(Minifloat, Float8E8M0IsAnUnsignedPowerOfTwo) {
  EXPECT_EQ(decode_float8_e8m0fnu(127).value, 1.0f);
  EXPECT_EQ(decode_float8_e8m0fnu(130).value, 8.0f);
  EXPECT_EQ(decode_float8_e8m0fnu(0).value, std::ldexp(1.0f, -127));
  EXPECT_EQ(decode_float8_e8m0fnu(0xFF).cls, ValueClass::NaN);
}
