#include <gtest/gtest.h>

#include "analysis/inspect_report.h"
#include "io/input_error.h"
#include "io/tensor_file_reader.h"
#include "test_files.h"

using namespace blasscope::core;
using blasscope::test::TempDir;

namespace {

std::string safetensors(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string error_of(const std::string& path) {
  try {
    open_tensor_file(path);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST(SafetensorsReader, OffsetsMetadataAndOrderByOffset) {
  TempDir dir;
  const std::string header = R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"__metadata__":{"format":"pt"},)"
                             R"("a":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}})";
  blasscope::test::write_file(dir.file("m.safetensors"), safetensors(header, std::string(16, '\0')));
  const TensorFile file = open_tensor_file(dir.file("m.safetensors"));
  ASSERT_EQ(file.tensors.size(), 2u);
  EXPECT_EQ(file.tensors[0].name, "a");  // sorted by offset, as the reference does
  EXPECT_EQ(file.tensors[0].dtype, DType::BFloat16);
  EXPECT_EQ(file.tensors[0].data_offset, 8 + header.size());
  EXPECT_EQ(file.tensors[1].data_offset, 8 + header.size() + 8);
  ASSERT_EQ(file.metadata.size(), 1u);
  EXPECT_EQ(file.metadata[0], (std::pair<std::string, std::string>{"format", "pt"}));
}

TEST(SafetensorsReader, PackedSubByteTypesMustFillWholeBytes) {
  TempDir dir;
  blasscope::test::write_file(
      dir.file("f4.safetensors"),
      safetensors(R"({"w":{"dtype":"F4","shape":[3,4],"data_offsets":[0,6]}})", std::string(6, '\0')));
  const InspectReport report = inspect_file(dir.file("f4.safetensors"));
  EXPECT_EQ(report.tensors[0].info.nbytes, 6u);
  EXPECT_EQ(report.tensors[0].info.dtype, DType::Float4E2M1FN);
  EXPECT_FALSE(report.tensors[0].stats.has_value());  // packed values are listed, not scanned
  blasscope::test::write_file(
      dir.file("odd.safetensors"),
      safetensors(R"({"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", std::string(2, '\0')));
  EXPECT_NE(error_of(dir.file("odd.safetensors")).find("do not fill whole bytes"), std::string::npos);
}

TEST(SafetensorsReader, DuplicateKeysAreFoundAtAnyDepth) {
  TempDir dir;
  blasscope::test::write_file(
      dir.file("dup.safetensors"),
      safetensors(R"({"a":{"dtype":"F32","dtype":"F64","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0')));
  EXPECT_NE(error_of(dir.file("dup.safetensors")).find("duplicate key 'dtype'"), std::string::npos);
}

TEST(SafetensorsReader, EmptyFileWithOnlyMetadataIsValid) {
  TempDir dir;
  blasscope::test::write_file(dir.file("e.safetensors"), safetensors(R"({"__metadata__":{}}      )", ""));
  const TensorFile file = open_tensor_file(dir.file("e.safetensors"));
  EXPECT_TRUE(file.tensors.empty());
}
