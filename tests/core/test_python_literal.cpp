#include <gtest/gtest.h>

#include "io/input_error.h"
#include "io/python_literal.h"

using namespace blasscope::core;

TEST(PythonLiteral, ParsesDictsAsNumPyWritesThem) {
  const PyValue v = parse_python_literal("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }   \n", "h");
  ASSERT_EQ(v.type, PyValue::Type::Dict);
  ASSERT_EQ(v.entries.size(), 3u);
  EXPECT_EQ(v.entries[0].value.text, "<f4");
  EXPECT_EQ(v.entries[1].value.type, PyValue::Type::Bool);
  EXPECT_FALSE(v.entries[1].value.boolean);
  EXPECT_EQ(v.entries[2].value.items.size(), 2u);
  EXPECT_EQ(v.entries[2].value.items[1].integer, 4);
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

TEST(PythonLiteral, EntriesKeepTheirKeys) {
  const PyValue v = parse_python_literal("{'a': 1, 2: 'b'}", "h");
  ASSERT_EQ(v.entries.size(), 2u);
  EXPECT_EQ(v.entries[0].key.text, "a");
  EXPECT_EQ(v.entries[1].key.integer, 2);
  EXPECT_EQ(v.entries[1].value.text, "b");
}

namespace {

PyValue parse_python2(std::string_view text) {
  return parse_python_literal(text, "h", {.python2_long_suffix = true});
}

}  // namespace

// What NumPy 1.24's _filter_header accepts: an `L` name token right after a number.
TEST(PythonLiteral, Python2LongSuffixWhereNumPyDropsIt) {
  const PyValue shape = parse_python2("(2L, 3L)");
  ASSERT_EQ(shape.items.size(), 2u);
  EXPECT_EQ(shape.items[0].integer, 2);
  EXPECT_EQ(shape.items[1].integer, 3);
  EXPECT_EQ(parse_python2("(0L,)").items.at(0).integer, 0);
  EXPECT_EQ(parse_python2("(2 L,)").items.at(0).integer, 2);  // the tokenizer skips the space too
  EXPECT_EQ(parse_python2("-5L").integer, -5);
  EXPECT_TRUE(parse_python2("99999999999999999999L").integer_overflow);
  EXPECT_EQ(parse_python2("{'shape': (2L,), }").entries.at(0).value.items.at(0).integer, 2);
}

TEST(PythonLiteral, LongSuffixIsNothingBroaderThanNumPys) {
  // NumPy refuses these too: lowercase l, a doubled suffix, a longer name, L after a float or a name.
  for (const char* text : {"(2l,)", "(2LL,)", "(2L1,)", "(2La,)", "(2.L,)", "(L,)", "(2,L)", "(True L,)"}) {
    EXPECT_THROW(parse_python2(text), InputError) << text;
  }
  // Without the option (a version 3.0 header) the suffix is an error that says what it is.
  try {
    parse_python_literal("(2L,)", "header");
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("long suffix 'L'"), std::string::npos) << error.what();
  }
}
