// The object header check that runs before libhdf5 reads a header (io/hdf5_object_header.h),
// on headers built byte by byte as the HDF5 format specification lays them out. Real h5py files
// with the same defects are in make_hdf5_files.py (hostile) and tests/fuzz/regressions/hdf5.

#include <gtest/gtest.h>

#include <cstring>

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

// A v2 attribute message (version 3): name, then a 1-byte datatype and dataspace stand-in.
Image& attribute_v3(Image& image, const char* name, std::size_t name_size) {
  image.v2_message(0x0C, 9 + name_size + 2).raw({3, 0}).le(name_size, 2).le(1, 2).le(1, 2).raw({0});
  return image.text(name, name_size).raw({0, 0});
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
  image.text("OHDR", 4).raw({2, 0}).le((15 + 5) + (4 + 18), 1);
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
  image.text("OHDR", 4).raw({2, 0}).le(15 + 4, 1);
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
