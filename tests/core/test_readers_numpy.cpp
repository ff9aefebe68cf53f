// Every reader against files NumPy writes at test time (see tests/data/make_tensor_files.py).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/inspect_report.h"
#include "io/tensor_file_reader.h"
#include "report/inspect_json.h"
#include "test_files.h"

using namespace blasscope::core;
using nlohmann::json;

namespace {

class NumPyFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new blasscope::test::TempDir;
    blasscope::test::run_data_script("make_tensor_files.py", s_dir->path().string());
    s_manifest = json::parse(blasscope::test::read_file(s_dir->file("manifest.json")));
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static inline blasscope::test::TempDir* s_dir = nullptr;
  static inline json s_manifest;
};

}  // namespace

TEST_F(NumPyFiles, EveryTensorMatchesWhatNumPySaid) {
  ASSERT_GT(s_manifest["files"].size(), 60u);
  std::size_t tensors_checked = 0;
  for (const json& entry : s_manifest["files"]) {
    const std::string file = entry["file"];
    SCOPED_TRACE(file);
    const InspectReport report = inspect_file(s_dir->file(file));
    EXPECT_EQ(std::string(name(report.format)), entry["format"].get<std::string>());
    ASSERT_EQ(report.tensors.size(), entry["tensors"].size());
    for (const json& want : entry["tensors"]) {
      const auto it = std::find_if(report.tensors.begin(), report.tensors.end(),
                                   [&](const TensorReport& t) { return t.info.name == want["name"]; });
      ASSERT_NE(it, report.tensors.end()) << want["name"];
      const TensorReport& got = *it;
      SCOPED_TRACE(got.info.name);
      EXPECT_EQ(std::string(name(got.info.dtype)), want["dtype"].get<std::string>());
      EXPECT_EQ(json(got.info.shape), want["shape"]);
      EXPECT_EQ(std::string(name(got.info.order)), want["order"].get<std::string>());
      EXPECT_EQ(std::string(name(got.info.byte_order)), want["byte_order"].get<std::string>());
      EXPECT_EQ(got.info.nbytes, want["nbytes"].get<std::uint64_t>());
      ASSERT_TRUE(got.stats.has_value());
      EXPECT_EQ(to_json(*got.stats), want["stats"]);
      ++tensors_checked;
    }
  }
  EXPECT_GT(tensors_checked, 90u);
}

TEST_F(NumPyFiles, NpzMembersAreNamedWithoutTheNpySuffix) {
  const TensorFile file = open_tensor_file(s_dir->file("stored.npz"));
  std::vector<std::string> names;
  for (const auto& t : file.tensors) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  for (const auto& t : file.tensors) EXPECT_EQ(t.storage.kind, TensorStorage::Kind::Mapped);
  const TensorFile deflated = open_tensor_file(s_dir->file("deflated.npz"));
  for (const auto& t : deflated.tensors) EXPECT_EQ(t.storage.kind, TensorStorage::Kind::Deflated);
}

TEST_F(NumPyFiles, LargeFilesAreMappedNotCopied) {
  const TensorFile file = open_tensor_file(s_dir->file("version_2.npy"));
  ASSERT_TRUE(file.mapping);
  EXPECT_EQ(file.mapping->size(), file.file_size);
  const TensorLayout layout = describe_layout(file, file.tensors[0]);
  ASSERT_TRUE(layout.memory_alignment.has_value());
  EXPECT_EQ(*layout.memory_alignment,
            alignment_of(reinterpret_cast<std::uintptr_t>(file.mapping->bytes().data()) + file.tensors[0].data_offset));
}
