// The object header check that runs before libhdf5 reads a header (io/hdf5_object_header.h),
// on headers built byte by byte as the HDF5 format specification lays them out. Real h5py files
// with the same defects are in make_hdf5_files.py (hostile) and tests/fuzz/regressions/hdf5.

#include <gtest/gtest.h>

#include <cstring>

#include "io/hdf5_message_check.h"
#include "io/hdf5_object_header.h"
#include "io/input_error.h"

namespace blasscope::core {
namespace {

class Image {
 public:
  std::uint64_t size() const { return m_bytes.size(); }
  Image& raw(std::initializer_list<int> bytes) {
    for (int b : bytes) m_bytes.push_back(static_cast<std::byte>(b));
    return *this;
  }
  Image& text(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) m_bytes.push_back(static_cast<std::byte>(s[i]));
    return *this;
  }
  Image& le(std::uint64_t value, int width) {
    for (int i = 0; i < width; ++i) m_bytes.push_back(static_cast<std::byte>(value >> (8 * i) & 0xFF));
    return *this;
  }
  Image& zeros(std::size_t n) {
    m_bytes.insert(m_bytes.end(), n, std::byte{0});
    return *this;
  }
  // A version 2 message header (type, size, flags) with no creation order.
  Image& v2_message(int type, std::uint64_t size) { return raw({type}).le(size, 2).raw({0}); }
  std::span<const std::byte> bytes() const { return m_bytes; }

 private:
  std::vector<std::byte> m_bytes;
};

// A v2 attribute message (version 3), 30 + name_size bytes with its header: name, an int8
// datatype, a scalar dataspace and its one byte of value.
Image& attribute_v3(Image& image, const char* name, std::size_t name_size) {
  image.v2_message(0x0C, 26 + name_size).raw({3, 0}).le(name_size, 2).le(12, 2).le(4, 2).raw({0});
  image.text(name, name_size).raw({0x10, 0x08, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0});
  return image.raw({2, 0, 0, 0}).raw({7});
}

std::string failure(const Image& image, std::uint64_t address) {
  try {
    check_hdf5_object_header(image.bytes(), Hdf5Layout{}, address, "g/d");
  } catch (const InputError& e) {
    EXPECT_EQ(e.kind(), InputError::Kind::Malformed);
    return e.what();
  }
  return "";
}

TEST(Hdf5ObjectHeader, Version2HeaderListsCompactAttributeNamesAndDenseStorage) {
  Image image;
  image.text("OHDR", 4).raw({2, 0}).le((30 + 5) + (4 + 18), 1);
  attribute_v3(image, "bias", 5);
  image.v2_message(0x15, 2 + 8 + 8).raw({0, 0}).le(4096, 8).le(8192, 8);  // attribute info: a fractal heap
  image.zeros(4);                                                         // checksum (not verified here)
  image.zeros(8192);
  const Hdf5ObjectHeader header = check_hdf5_object_header(image.bytes(), Hdf5Layout{}, 0, "g/d");
  EXPECT_EQ(header.attribute_names, std::vector<std::string>{"bias"});
  EXPECT_TRUE(header.dense_attributes);
  EXPECT_FALSE(header.shared_attributes);
}

TEST(Hdf5ObjectHeader, AttributeNameWithoutItsNulIsRefusedNamingTheObject) {
  Image image;
  image.text("OHDR", 4).raw({2, 0}).le(30 + 4, 1);
  attribute_v3(image, "kern", 4);
  image.zeros(4);
  EXPECT_EQ(failure(image, 0), "HDF5 object 'g/d': an attribute name of 4 bytes has no terminating NUL");
}

TEST(Hdf5ObjectHeader, MessageOverrunningItsChunkIsRefused) {
  Image image;
  image.text("OHDR", 4).raw({2, 0}).le(8, 1).v2_message(0x01, 200).zeros(4).zeros(4);
  EXPECT_NE(failure(image, 0).find("a header message of 200 bytes at offset 11 overruns its chunk"), std::string::npos);
}

TEST(Hdf5ObjectHeader, ContinuationChunksThatLoopAreRefused) {
  Image image;
  image.text("OHDR", 4).raw({2, 0}).le(4 + 16, 1).v2_message(0x10, 16).le(31, 8).le(4 + 20 + 4, 8).zeros(4);
  ASSERT_EQ(image.size(), 31u);
  image.text("OCHK", 4).v2_message(0x10, 16).le(31, 8).le(4 + 20 + 4, 8).zeros(4);  // points at itself
  EXPECT_NE(failure(image, 0).find("a continuation chunk at offset 31 repeats"), std::string::npos);
}

TEST(Hdf5ObjectHeader, LocalHeapClaimingMoreThanTheFileIsRefusedBeforeLibhdf5AllocatesIt) {
  Image image;  // version 1 header: prefix, padding to 16, one symbol table message
  image.raw({1, 0}).le(1, 2).le(1, 4).le(8 + 16, 4).zeros(4);
  image.le(0x11, 2).le(16, 2).raw({0, 0, 0, 0}).le(0, 8).le(40, 8);
  ASSERT_EQ(image.size(), 40u);
  image.text("HEAP", 4).raw({0, 0, 0, 0}).le(std::uint64_t{1} << 40, 8).le(0, 8).le(72, 8);
  EXPECT_EQ(failure(image, 0),
            "HDF5 object 'g/d': its local heap's data segment (1099511627776 bytes at address 72) lies past the end "
            "of the file (72 bytes)");
}

TEST(Hdf5ObjectHeader, HeaderPastTheEndAndUnknownVersionsAreRefused) {
  Image image;
  image.raw({7, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_NE(failure(image, 0).find("has version 7"), std::string::npos);
  EXPECT_NE(failure(image, 1u << 20).find("lies past the end of the file"), std::string::npos);
  EXPECT_NE(failure(image, ~std::uint64_t{0}).find("lies past the end of the file"), std::string::npos);
}

}  // namespace
}  // namespace blasscope::core

namespace blasscope::core {
namespace {

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

TEST(Hdf5MessageCheck, DatatypesDecodeInsideTheirMessage) {
  // float64, little-endian: class 1 version 1, bit fields, size 8, 12 bytes of properties.
  const auto f64 = bytes({0x11, 0x20, 0x3F, 0, 8, 0, 0, 0, 0, 0, 64, 0, 52, 11, 0, 52, 0xFF, 3, 0, 0});
  EXPECT_EQ(check_hdf5_datatype(f64), "");
  EXPECT_EQ(check_hdf5_datatype(std::span(f64).first(12)),
            "a header message ends before a floating-point datatype's properties");
}

TEST(Hdf5MessageCheck, EnumerationWhoseValuesOutgrowTheMessageIsRefused) {
  // enum (class 8, version 3) of 2 members over a base integer claiming 0xFFFFFFF9 bytes: libhdf5
  // 1.10 would copy 2 x that many bytes of values (found by fuzz_hdf5).
  const auto e =
      bytes({0x38, 2,   0, 0,   0xF9, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0, 0xF9, 0xFF, 0xFF, 0xFF, 0, 0, 8, 0,  //
             'N',  'O', 0, 'Y', 'E',  'S',  0,    0,    1});
  EXPECT_EQ(check_hdf5_datatype(e), "a header message ends before an enumeration's values");
}

TEST(Hdf5MessageCheck, CompoundMemberNameWithoutNulIsRefused) {
  const auto c = bytes({0x36, 1, 0, 0, 4, 0, 0, 0, 'a', 'b', 'c'});  // version 3 compound, 1 member
  EXPECT_EQ(check_hdf5_datatype(c), "a compound member's name has no terminating NUL inside its message");
}

TEST(Hdf5MessageCheck, AttributeValueLargerThanItsMessageIsRefused) {
  // version 3 attribute "w": int32 datatype, dataspace of 1000 elements, 4 bytes of value.
  std::vector<std::byte> a = bytes({3, 0, 2, 0, 12, 0, 12, 0, 0, 'w', 0});
  const auto i32 = bytes({0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0});
  const auto space = bytes({2, 1, 0, 1, 0xE8, 3, 0, 0, 0, 0, 0, 0});
  a.insert(a.end(), i32.begin(), i32.end());
  a.insert(a.end(), space.begin(), space.end());
  a.insert(a.end(), 4, std::byte{0});
  Hdf5AttributeCheck check;
  EXPECT_EQ(check_hdf5_attribute(a, check), "an attribute's value needs 1000 x 4 bytes but its message holds 4");
  a.insert(a.end(), 3996, std::byte{0});
  EXPECT_EQ(check_hdf5_attribute(a, check), "");
  EXPECT_EQ(check.name, "w");
}

TEST(Hdf5MessageCheck, FillValuesFilterNamesAndLinkNamesStayInsideTheMessage) {
  EXPECT_EQ(check_hdf5_fill_value(bytes({2, 1, 1, 1, 0x10, 0, 0, 0, 1, 2}), false),
            "a header message ends before a fill value");
  EXPECT_EQ(check_hdf5_fill_value(bytes({2, 1, 1, 1, 2, 0, 0, 0, 1, 2}), false), "");
  // version 2 pipeline: filter 300 with a 4-byte name lacking its NUL.
  EXPECT_EQ(check_hdf5_filter_pipeline(bytes({2, 1, 0x2C, 1, 4, 0, 0, 0, 0, 0, 'a', 'b', 'c', 'd'})),
            "a filter's name has no terminating NUL");
  // version 1 link, 1-byte name length 9 with 3 bytes of name.
  EXPECT_EQ(check_hdf5_link(bytes({1, 0, 9, 'a', 'b', 'c'}), 8), "a header message ends before a link name");
}

}  // namespace
}  // namespace blasscope::core
