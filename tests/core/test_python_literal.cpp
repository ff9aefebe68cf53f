#include <gtest/gtest.h>

#include "io/input_error.h"
#include "io/python_literal.h"

using namespace blasscope::core;

TEST(PythonLiteral, ParsesDictsAsNumPyWritesThem) {
  const PyValue v = parse_python_literal("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }   \n", "h");
  ASSERT_EQ(v.type, PyValue::Type::Dict);
  ASSERT_EQ(v.entries.size(), 3u);
  EXPECT_EQ(v.entries[0].second.text, "<f4");
  EXPECT_EQ(v.entries[1].second.type, PyValue::Type::Bool);
  EXPECT_FALSE(v.entries[1].second.boolean);
  EXPECT_EQ(v.entries[2].second.items.size(), 2u);
  EXPECT_EQ(v.entries[2].second.items[1].integer, 4);
}

TEST(PythonLiteral, TupleForms) {
  EXPECT_EQ(parse_python_literal("()", "h").type, PyValue::Type::Tuple);
  EXPECT_EQ(parse_python_literal("()", "h").items.size(), 0u);
  const PyValue one = parse_python_literal("(3,)", "h");
  EXPECT_EQ(one.type, PyValue::Type::Tuple);
  EXPECT_EQ(one.items.size(), 1u);
  EXPECT_EQ(parse_python_literal("(3)", "h").type, PyValue::Type::Int);  // Python: just 3
  EXPECT_EQ(parse_python_literal("[1, 2, ]", "h").items.size(), 2u);
}

TEST(PythonLiteral, IntegersKeepTheirRangeAndFlagOverflow) {
  EXPECT_EQ(parse_python_literal("-9223372036854775808", "h").integer, INT64_MIN);
  EXPECT_EQ(parse_python_literal("9223372036854775807", "h").integer, INT64_MAX);
  EXPECT_TRUE(parse_python_literal("9223372036854775808", "h").integer_overflow);
  EXPECT_TRUE(parse_python_literal("123456789012345678901234567890", "h").integer_overflow);
}

TEST(PythonLiteral, StringsWithBothQuotesAndEscapes) {
  EXPECT_EQ(parse_python_literal(R"("a'b")", "h").text, "a'b");
  EXPECT_EQ(parse_python_literal(R"('a\'b')", "h").text, "a'b");
}

TEST(PythonLiteral, RejectsWhatIsNotALiteral) {
  for (const char* text :
       {"{'a': 1", "{'a' 1}", "(1, 2", "'abc", "__import__('os')", "1.5", "{'a': 1} x", "", "Truex"}) {
    EXPECT_THROW(parse_python_literal(text, "h"), InputError) << text;
  }
}

TEST(PythonLiteral, DeepNestingIsRefusedNotRecursedInto) {
  const std::string deep = std::string(10000, '(') + std::string(10000, ')');
  try {
    parse_python_literal(deep, "header");
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("nesting deeper"), std::string::npos);
  }
}
