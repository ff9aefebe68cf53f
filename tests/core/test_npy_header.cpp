#include <gtest/gtest.h>

#include <filesystem>
#include <span>

#include "io/input_error.h"
#include "io/npy_header.h"
#include "test_files.h"

using namespace blasscope::core;
using blasscope::test::make_npy;

namespace {

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

NpyHeader parse(const std::string& stream) {
  return parse_npy_header(as_bytes(stream), stream.size());
}

std::string error_of(const std::string& stream) {
  try {
    parse(stream);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST(NpyHeader, ReadsDtypeOrderShapeAndOffset) {
  const std::string stream =
      make_npy("{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3), }", std::string(48, '\0'));
  const NpyHeader h = parse(stream);
  EXPECT_EQ(h.dtype, DType::Float64);
  EXPECT_EQ(h.byte_order, ByteOrder::Big);
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(h.data_offset, stream.size() - 48);
  EXPECT_EQ(h.data_offset % 64, 0u);
  EXPECT_EQ(h.nbytes, 48u);
}

TEST(NpyHeader, AnyKeyOrderZeroDAndEmpty) {
  const NpyHeader scalar =
      parse(make_npy("{'shape': (), 'fortran_order': False, 'descr': '<c16'}", std::string(16, '\0')));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.nbytes, 16u);
  const NpyHeader empty = parse(make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (0, 5), }", ""));
  EXPECT_EQ(empty.nbytes, 0u);
  EXPECT_EQ(empty.byte_order, ByteOrder::NotApplicable);
}

TEST(NpyHeader, DescriptorTable) {
  const std::pair<const char*, DType> cases[] = {
      {"|b1", DType::Bool},      {"|i1", DType::Int8},        {"<i2", DType::Int16},   {"<i4", DType::Int32},
      {"<i8", DType::Int64},     {"|u1", DType::UInt8},       {"<u2", DType::UInt16},  {"<u4", DType::UInt32},
      {"<u8", DType::UInt64},    {"<f2", DType::Float16},     {"<f4", DType::Float32}, {"=f8", DType::Float64},
      {"<c8", DType::Complex64}, {">c16", DType::Complex128}, {"|?", DType::Bool}};
  for (const auto& [descr, dtype] : cases) {
    DType got{};
    ByteOrder order{};
    parse_npy_descr(descr, got, order);
    EXPECT_EQ(got, dtype) << descr;
  }
}

TEST(NpyHeader, MalformedHeadersNameTheProblem) {
  const std::string ok = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  std::string bad_version = ok;
  bad_version[6] = 9;
  const std::pair<std::string, const char*> cases[] = {
      {"\x93NUMPZ" + ok.substr(6), "magic"},
      {bad_version, "format version 9.0"},
      {ok.substr(0, 9), "truncated"},
      {ok.substr(0, 30), "truncated header"},
      {make_npy("{'descr': '<f4', 'shape': (1,), }", ""), "missing key 'fortran_order'"},
      {make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 0}", ""), "unexpected key 'x'"},
      {make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""), "negative dimension"},
      {make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
       "overflows 64 bits"},
      {make_npy("{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,), }", ""), "fortran_order"},
      {make_npy("{'descr': 4, 'fortran_order': False, 'shape': (1,), }", ""), "descr: expected a string"},
      {make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", ""), "shape: expected a tuple"},
      // Descriptors that look like unread kinds but are not well formed stay errors.
      {make_npy("{'descr': '|Ox', 'fortran_order': False, 'shape': (1,), }", ""), "object arrays"},
      {make_npy("{'descr': '<U', 'fortran_order': False, 'shape': (1,), }", ""), "string dtype"},
      {make_npy("{'descr': '<M8[n s]', 'fortran_order': False, 'shape': (1,), }", ""), "datetime"},
      {make_npy("{'descr': '<f10', 'fortran_order': False, 'shape': (1,), }", ""), "'<f10'"},
      {make_npy("{'descr': '<U3', 'fortran_order': False, 'shape': (-1,), }", ""), "negative dimension"},
      {make_npy("{'descr': '|O', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
       "overflows 64 bits"},
  };
  for (const auto& [stream, expected] : cases) {
    EXPECT_NE(error_of(stream).find(expected), std::string::npos) << expected << " / got: " << error_of(stream);
  }
}

TEST(NpyHeader, HeaderLengthOverTheLimitIsRefusedBeforeReadingIt) {
  std::string stream = "\x93NUMPY\x02";
  stream += '\0';
  stream += std::string("\xF0\xFF\xFF\x7F", 4);
  stream += "{";
  EXPECT_NE(error_of(stream).find("exceeds the limit"), std::string::npos);
}

namespace {

// A .npy stream of any format version (make_npy writes 1.0 only).
std::string npy_version(int major, const std::string& header_dict, const std::string& data) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = header_dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

}  // namespace

TEST(NpyHeader, Python2LongIntegersInVersion1And2AsNumPyReadsThem) {
  const std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (2L, 3L), }";
  for (int major : {1, 2}) {
    const NpyHeader h = parse(npy_version(major, header, std::string(48, '\0')));
    EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{2, 3})) << major;
    EXPECT_EQ(h.nbytes, 48u);
  }
  // NumPy filters the suffix only below version 3.0, and never a lowercase l.
  EXPECT_NE(error_of(npy_version(3, header, std::string(48, '\0'))).find("long suffix 'L'"), std::string::npos);
  EXPECT_NE(error_of(make_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2l,), }", std::string(16, '\0')))
                .find("expected an integer"),
            std::string::npos);
}

TEST(NpyHeader, NumPysOwnPython2TestFile) {
  const std::string path = "/usr/lib/python3/dist-packages/numpy/lib/tests/data/win64python2.npy";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not installed";
  const std::string stream = blasscope::test::read_file(path);
  ASSERT_NE(stream.find("(2L,)"), std::string::npos);  // the case this test is about
  const NpyHeader h = parse(stream);
  EXPECT_EQ(h.dtype, DType::Float64);
  EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{2}));
}

TEST(NpyHeader, UnreadDtypesAreDescribedNotRefused) {
  struct Case {
    const char* descr;
    const char* category;
    const char* name;
    const char* says;
  };
  const Case cases[] = {
      {"'<U3'", "strings", "<U3", "holds text"},
      {"'|S5'", "strings", "|S5", "holds text"},
      {"'|O'", "object", "object", "would run code"},
      {"'|O8'", "object", "object", "never unpickles"},  // as Python 2 wrote it
      {"'<f16'", "float128", "float128", "long double"},
      {"'<f12'", "float96", "float96", "long double"},
      {"'>c32'", "complex256", "complex256", "long double"},
      {"'<M8[ns]'", "datetime", "<M8[ns]", "datetime64"},
      {"'<m8'", "datetime", "<m8", "timedelta64"},
      {"'|V8'", "structured", "|V8", "raw records"},
      {"[('x', '<f4'), (('title', 'y'), '<i8', (2,)), ('z', [('a', '|u1')])]", "structured", "structured",
       "[x <f4, y <i8, z (nested)]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.descr);
    const std::string data(40, '\x7f');
    const NpyHeader h =
        parse(make_npy(std::string("{'descr': ") + c.descr + ", 'fortran_order': False, 'shape': (2, 3), }", data));
    ASSERT_TRUE(h.unread.has_value());
    EXPECT_EQ(h.unread->category, c.category);
    EXPECT_EQ(h.unread->name, c.name);
    EXPECT_NE(h.unread->reason.find(c.says), std::string::npos) << h.unread->reason;
    EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(h.nbytes, data.size());  // whatever follows the header, never sized from it
  }
  const NpyHeader numeric = parse(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd"));
  EXPECT_FALSE(numeric.unread.has_value());
}
