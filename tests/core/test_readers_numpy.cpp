// Every reader against files NumPy writes at test time (see tests/data/make_tensor_files.py).
#include <gtest/gtest.h>

#include <map>

#include "analysis/inspect_report.h"
#include "io/input_error.h"
#include "io/tensor_file_reader.h"
#include "report/inspect_json.h"
#include "test_files.h"
#include "text/json.h"
#include "workload/tensor_factory.h"

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

namespace {

// Files with members inspect lists but does not read, and PyTorch/pickle files it names
// (see tests/data/make_unscanned_files.py).
class UnscannedFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new blasscope::test::TempDir;
    blasscope::test::run_data_script("make_unscanned_files.py", s_dir->path().string());
    s_manifest = json::parse(blasscope::test::read_file(s_dir->file("manifest.json")));
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static std::string refusal_of(const std::string& file) {
    try {
      open_tensor_file(s_dir->file(file));
    } catch (const InputError& error) {
      EXPECT_EQ(error.kind(), InputError::Kind::Unsupported) << error.what();
      return error.what();
    }
    return "no error";
  }
  static inline blasscope::test::TempDir* s_dir = nullptr;
  static inline json s_manifest;
};

const Detection* finding_for(const InspectReport& report, const std::string& id, const std::string& tensor) {
  for (const Detection& d : report.findings) {
    if (d.id == id && d.tensor == tensor) return &d;
  }
  return nullptr;
}

}  // namespace

TEST_F(UnscannedFiles, NpzListsEveryMemberScansTheNumericOnesAndMarksTheRest) {
  const std::map<std::string, std::string> category = {{"words", "strings"},      {"raw", "strings"},
                                                       {"records", "structured"}, {"wide", "float128"},
                                                       {"when", "datetime"},      {"objects", "object"}};
  for (const json& file : s_manifest["npz"]["files"]) {
    SCOPED_TRACE(file.get<std::string>());
    const InspectReport report = inspect_file(s_dir->file(file));
    ASSERT_EQ(report.tensors.size(), s_manifest["npz"]["members"].size());
    for (const json& member : s_manifest["npz"]["members"]) {
      const std::string name = member["name"];
      SCOPED_TRACE(name);
      const auto it = std::find_if(report.tensors.begin(), report.tensors.end(),
                                   [&](const TensorReport& t) { return t.info.name == name; });
      ASSERT_NE(it, report.tensors.end());
      EXPECT_EQ(json(it->info.shape), member["shape"]);
      if (name == "numbers") {
        ASSERT_TRUE(it->stats.has_value());
        EXPECT_EQ(it->stats->nan, 1u);
        EXPECT_NE(finding_for(report, "non-finite-input", name), nullptr);
        continue;
      }
      EXPECT_FALSE(it->stats.has_value());
      ASSERT_TRUE(it->info.unread.has_value());
      EXPECT_EQ(it->info.unread->category, category.at(name));
      const Detection* d = finding_for(report, "not-scanned", name);
      ASSERT_NE(d, nullptr);
      EXPECT_EQ(d->severity, Severity::Info);
      EXPECT_TRUE(d->message.starts_with("not scanned: " + category.at(name))) << d->message;
    }
    const json out = to_json(report);
    EXPECT_EQ(out["tensors"][1]["dtype"], "<U5");
    EXPECT_EQ(out["tensors"][1]["not_scanned"], "strings");
    EXPECT_FALSE(out["tensors"][0].contains("not_scanned"));
  }
}

TEST_F(UnscannedFiles, ASingleNpyOfAnUnreadDtypeIsListedWithItsReason) {
  for (const json& entry : s_manifest["npy"]) {
    const std::string file = entry["file"];
    SCOPED_TRACE(file);
    const InspectReport report = inspect_file(s_dir->file(file));
    ASSERT_EQ(report.tensors.size(), 1u);
    EXPECT_EQ(json(report.tensors[0].info.shape), entry["shape"]);
    EXPECT_FALSE(report.tensors[0].stats.has_value());
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].id, "not-scanned");
  }
  const InspectReport objects = inspect_file(s_dir->file("objects.npy"));
  EXPECT_EQ(objects.tensors[0].info.dtype_name(), "object");
  EXPECT_NE(objects.findings[0].message.find("object array"), std::string::npos);
  EXPECT_NE(objects.findings[0].message.find("would run code"), std::string::npos);
  EXPECT_EQ(inspect_file(s_dir->file("wide.npy")).tensors[0].info.dtype_name(), "float128");
}

TEST_F(UnscannedFiles, AWorkloadCannotComputeWithAnUnreadMember) {
  const TensorFile file = open_tensor_file(s_dir->file("mixed.npz"));
  try {
    find_file_tensor(file, {s_dir->file("mixed.npz"), "words"}, "A");
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("tensors.A: 'words' is not read: string dtype"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(find_file_tensor(file, {s_dir->file("mixed.npz"), "numbers"}, "A").dtype, DType::Float32);
}

TEST_F(UnscannedFiles, PicklesAndPyTorchCheckpointsAreNamedNotParsed) {
  EXPECT_NE(refusal_of("state.pkl").find("a Python pickle (protocol 4)"), std::string::npos);
  if (s_manifest.contains("skipped")) GTEST_SKIP() << s_manifest["skipped"].get<std::string>();
  EXPECT_EQ(open_tensor_file(s_dir->file("checkpoint.pt")).format, FileFormat::PyTorch);  // read since issue 13
  EXPECT_NE(refusal_of("legacy.pth").find("legacy torch.save format"), std::string::npos);
  EXPECT_NE(refusal_of("scripted.pt").find("TorchScript"), std::string::npos);
}
