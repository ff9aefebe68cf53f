#include <gtest/gtest.h>

#include "tensor/dtype.h"

using namespace blasscope::core;

TEST(DType, NamesRoundTripAndSizesMatchNumPy) {
  const std::pair<const char*, std::size_t> expected[] = {
      {"bool", 1},          {"int8", 1},        {"int16", 2},         {"int32", 4},     {"int64", 8},
      {"uint8", 1},         {"uint16", 2},      {"uint32", 4},        {"uint64", 8},    {"float16", 2},
      {"bfloat16", 2},      {"float32", 4},     {"float64", 8},       {"complex64", 8}, {"complex128", 16},
      {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"float8_e8m0fnu", 1}};
  for (const auto& [text, size] : expected) {
    const auto dtype = dtype_from_name(text);
    ASSERT_TRUE(dtype.has_value()) << text;
    EXPECT_EQ(name(*dtype), text);
    EXPECT_EQ(item_size(*dtype), size) << text;
    EXPECT_TRUE(is_scannable(*dtype)) << text;
  }
  EXPECT_FALSE(dtype_from_name("float128").has_value());
}

TEST(DType, PackedSubByteTypesHaveBitWidthsButNoItemSize) {
  EXPECT_EQ(bit_width(DType::Float4E2M1FN), 4u);
  EXPECT_EQ(bit_width(DType::Float6E3M2FN), 6u);
  EXPECT_EQ(item_size(DType::Float4E2M1FN), 0u);
  EXPECT_FALSE(is_scannable(DType::Float6E2M3FN));
}
