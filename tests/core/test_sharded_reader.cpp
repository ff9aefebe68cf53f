// Sharded checkpoints (io/sharded_reader.h) on checkpoints tests/data/make_sharded_files.py
// writes at test time: safetensors shards laid out as save_pretrained does, torch.save shards,
// a folder without an index, and hostile variants. Compared field by field and count by count
// with what the writer (numpy/torch) reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "analysis/inspect_report.h"
#include "io/input_error.h"
#include "io/shard_index.h"
#include "io/tensor_data.h"
#include "io/tensor_file_reader.h"
#include "report/inspect_json.h"
#include "test_files.h"
#include "text/json.h"
#include "workload/tensor_factory.h"

using namespace blasscope::core;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool says(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

std::string refusal(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

class ShardedFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new blasscope::test::TempDir;
    blasscope::test::run_data_script("make_sharded_files.py", s_dir->path().string());
    s_manifest = json::parse(blasscope::test::read_file(s_dir->file("manifest.json")));
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static const json& checkpoint(const std::string& folder) {
    for (const json& c : s_manifest["checkpoints"]) {
      if (c["folder"] == folder) return c;
    }
    throw std::runtime_error("no checkpoint " + folder + " in the manifest");
  }
  // Every field of every shard and tensor, and every value count, as the writer reports them.
  static void expect_matches(const std::string& path, const json& want) {
    SCOPED_TRACE(path);
    const TensorFile file = open_tensor_file(s_dir->file(path));
    EXPECT_EQ(file.format, FileFormat::Sharded);
    ASSERT_EQ(file.shards.size(), want["shards"].size());
    std::uint64_t shard_bytes = 0;
    for (std::size_t s = 0; s < file.shards.size(); ++s) {
      const json& w = want["shards"][s];
      EXPECT_EQ(file.shards[s].name, w["name"]);
      EXPECT_EQ(name(file.shards[s].format), w["format"].get<std::string>());
      EXPECT_EQ(file.shards[s].file_size, w["file_size"].get<std::uint64_t>());
      EXPECT_EQ(file.shards[s].tensor_count, w["tensor_count"].get<std::size_t>());
      EXPECT_EQ(file.shards[s].tensor_bytes, w["tensor_bytes"].get<std::uint64_t>());
      shard_bytes += file.shards[s].file_size;
    }
    EXPECT_GE(file.file_size, shard_bytes);
    InspectReport report = describe_file(file);
    EXPECT_EQ(report.shards.size(), file.shards.size());
    scan_report(file, report);
    ASSERT_EQ(report.tensors.size(), want["tensors"].size());
    for (std::size_t i = 0; i < report.tensors.size(); ++i) {
      const TensorReport& got = report.tensors[i];
      const json& w = want["tensors"][i];
      SCOPED_TRACE(w["name"].get<std::string>());
      EXPECT_EQ(got.info.name, w["name"]);
      EXPECT_EQ(got.info.dtype_name(), w["dtype"]);
      EXPECT_EQ(got.info.shape, w["shape"].get<std::vector<std::uint64_t>>());
      EXPECT_EQ(got.info.nbytes, w["nbytes"].get<std::uint64_t>());
      EXPECT_EQ(got.info.shard, w["shard"]);
      ASSERT_TRUE(got.stats);
      const json stats = to_json(*got.stats);
      for (const char* field : {"nan", "posinf", "neginf", "zero", "subnormal", "finite", "first_nonfinite"}) {
        EXPECT_EQ(stats[field], w["stats"][field]) << field;
      }
    }
  }
  static inline blasscope::test::TempDir* s_dir = nullptr;
  static inline json s_manifest;
};

}  // namespace

TEST_F(ShardedFiles, SafetensorsIndexMatchesTheWriterFieldByField) {
  const json& want = checkpoint("st");
  expect_matches(want["path"], want);
  const TensorFile file = open_tensor_file(s_dir->file(want["path"]));
  ASSERT_GE(file.metadata.size(), 3u);
  EXPECT_EQ(file.metadata[0], (std::pair<std::string, std::string>{"index", "model.safetensors.index.json"}));
  EXPECT_EQ(file.metadata[1], (std::pair<std::string, std::string>{"shards", "3"}));
  EXPECT_EQ(file.metadata[2].second, std::to_string(want["total_size"].get<std::uint64_t>()));
  EXPECT_TRUE(file.warnings.empty()) << "total_size is the sum of the tensors' bytes, as save_pretrained writes it";
}

TEST_F(ShardedFiles, AFolderReadsLikeItsIndex) {
  expect_matches("st", checkpoint("st"));
  expect_matches("single", checkpoint("single"));
  const TensorFile single = open_tensor_file(s_dir->file("single"));
  EXPECT_TRUE(says(single.metadata.at(0).second, "none")) << "a folder without an index says so";
}

TEST_F(ShardedFiles, TorchSaveShardsMatchTorch) {
  if (s_manifest.contains("torch_skipped")) GTEST_SKIP() << s_manifest["torch_skipped"].get<std::string>();
  const json& want = checkpoint("pt");
  expect_matches("pt", want);
  expect_matches("pt/pytorch_model.bin.index.json", want);
}

TEST_F(ShardedFiles, EachTensorReadsItsOwnShardsBytes) {
  const TensorFile sharded = open_tensor_file(s_dir->file("st"));
  const TensorFile single = open_tensor_file(s_dir->file("single/model.safetensors"));
  ASSERT_EQ(sharded.tensors.size(), single.tensors.size());
  for (std::size_t i = 0; i < single.tensors.size(); ++i) {
    const TensorInfo& a = sharded.tensors[i];
    ASSERT_TRUE(a.storage.mapping) << "a shard's tensor keeps its shard's mapping";
    EXPECT_EQ(a.storage.mapping->path(), (fs::path(s_dir->file("st")) / a.shard).string());
    std::vector<std::byte> x(a.nbytes), y(single.tensors[i].nbytes);
    read_tensor_bytes(sharded, a, x.data());
    read_tensor_bytes(single, single.tensors[i], y.data());
    EXPECT_EQ(x, y) << a.name;
  }
}

TEST_F(ShardedFiles, AWorkloadNamesATensorInACheckpointFolderOrIndex) {
  for (const std::string path : {"st", "st/model.safetensors.index.json"}) {
    const TensorFile file = open_tensor_file(s_dir->file(path));
    const TensorInfo& t = find_file_tensor(file, {s_dir->file(path), "model.layers.1.mlp.down_proj.weight"}, "A");
    EXPECT_EQ(t.shard, "model-00002-of-00003.safetensors");
    EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{16, 24}));
  }
}

TEST_F(ShardedFiles, HostileCheckpointsAreRefusedNamingTheFieldOrFile) {
  ASSERT_GE(s_manifest["hostile"].size(), 15u);
  for (const json& entry : s_manifest["hostile"]) {
    const std::string path = entry["path"];
    SCOPED_TRACE(path);
    const std::string message = refusal([&] { open_tensor_file(s_dir->file(path)); });
    EXPECT_TRUE(says(message, entry["says"].get<std::string>())) << message;
  }
}

TEST_F(ShardedFiles, InconsistenciesThatDoNotStopReadingAreFindings) {
  ASSERT_EQ(s_manifest["warned"].size(), 2u);
  for (const json& entry : s_manifest["warned"]) {
    SCOPED_TRACE(entry["path"].get<std::string>());
    const InspectReport report = describe_file(open_tensor_file(s_dir->file(entry["path"])));
    std::size_t matched = 0;
    for (const Detection& d : report.findings) {
      if (d.id != entry["id"]) continue;
      ++matched;
      EXPECT_EQ(d.severity, Severity::Warning);
      EXPECT_EQ(d.tensor.value_or(""), entry["tensor"]);
      EXPECT_TRUE(says(d.message, entry["says"])) << d.message;
    }
    EXPECT_EQ(matched, 1u);
  }
}

TEST_F(ShardedFiles, BothIndexesInAFolderPreferSafetensorsAndSaySo) {
  const fs::path both = s_dir->path() / "both";
  fs::copy(s_dir->path() / "st", both);
  blasscope::test::write_file((both / "pytorch_model.bin.index.json").string(),
                              R"({"weight_map": {"x": "pytorch_model-00001-of-00001.bin"}})");
  const TensorFile file = open_tensor_file(both.string());
  EXPECT_EQ(file.metadata.at(0).second, "model.safetensors.index.json");
  EXPECT_TRUE(says(file.metadata.at(1).second, "pytorch_model.bin.index.json also present")) << file.metadata[1].second;
  EXPECT_EQ(file.path, both.string());

  const fs::path two = s_dir->path() / "two-indexes";
  fs::create_directory(two);
  blasscope::test::write_file((two / "a.index.json").string(), "{}");
  blasscope::test::write_file((two / "b.index.json").string(), "{}");
  EXPECT_TRUE(
      says(refusal([&] { open_tensor_file(two.string()); }), "several index files (a.index.json, b.index.json)"));
}

TEST(ShardIndex, NamesTheFieldOfEveryMistake) {
  auto parse_error = [](const std::string& text) { return refusal([&] { parse_shard_index(text); }); };
  EXPECT_TRUE(says(parse_error(R"([1])"), "index: expected a JSON object, got array"));
  EXPECT_TRUE(says(parse_error(R"({"weight_map": {"w": null}})"), "weight_map.'w': expected a file name, got null"));
  EXPECT_TRUE(says(parse_error(R"({"weight_map": {"w": ""}})"), "weight_map.'w': expected a file name"));
  EXPECT_TRUE(says(parse_error(R"({"weight_map": {"w": "a//b"}})"), "empty or '.' path component"));
  EXPECT_TRUE(says(parse_error(R"({"weight_map": {"w": "a/./b"}})"), "empty or '.' path component"));
  EXPECT_TRUE(says(parse_error(R"({"weight_map": {"w": "a\\b"}})"), "backslash"));
  EXPECT_TRUE(says(parse_error(R"({"weight_map": {"w": "sub/../../x"}})"), "'..' component"));
  EXPECT_TRUE(says(parse_error(R"({"metadata": 3, "weight_map": {"w": "a"}})"), "metadata: expected an object"));
  EXPECT_TRUE(says(parse_error(R"({"metadata": {"total_size": 2.5}, "weight_map": {"w": "a"}})"),
                   "metadata.total_size: expected a byte count, got 2.5"));
  EXPECT_TRUE(says(parse_error(R"({"metadata": {"total_size": "12"}, "weight_map": {"w": "a"}})"),
                   "metadata.total_size: expected a byte count, got \"12\""));

  const ShardIndex index = parse_shard_index(
      R"({"metadata": {"total_size": 12, "format": "pt"}, "weight_map": {"b": "s2", "a": "s1", "c": "sub/s1"}})");
  EXPECT_EQ(index.total_size, 12u);
  EXPECT_EQ(index.shards, (std::vector<std::string>{"s1", "s2", "sub/s1"}));
  EXPECT_EQ(index.weight_map.size(), 3u);
  EXPECT_EQ(index.metadata, (std::vector<std::pair<std::string, std::string>>{{"format", "pt"}}));
}

TEST(ShardIndex, AJsonTextIsNotMistakenForASafetensorsHeader) {
  auto bytes = [](const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); };
  EXPECT_TRUE(looks_like_json_object(bytes(R"(  {"a":   {"weight_map": 1}})")));  // '{' at byte 8 too
  EXPECT_FALSE(looks_like_json_object(bytes(std::string("\x08\0\0\0\0\0\0\0{}      ", 16))));
  EXPECT_FALSE(looks_like_json_object(bytes("[1]")));
}

TEST_F(ShardedFiles, SmallTensorsScannedTogetherGiveTheSequentialResults) {
  const TensorFile file = open_tensor_file(s_dir->file("st"));
  ScanOptions options;
  options.threads = 4;
  std::vector<std::uint64_t> progress;
  options.progress = [&](std::uint64_t done, std::uint64_t) { progress.push_back(done); };
  InspectReport report = describe_file(file);
  std::multiset<std::size_t> done;
  scan_report(file, report, options, [&](std::size_t row) {
    EXPECT_TRUE(report.tensors[row].scanned) << "a row is reported once its stats are in";
    done.insert(row);
  });
  EXPECT_EQ(done.size(), file.tensors.size());
  EXPECT_EQ(std::set<std::size_t>(done.begin(), done.end()).size(), file.tensors.size()) << "each row once";
  ASSERT_FALSE(progress.empty());
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
  std::uint64_t total = 0;
  for (const TensorInfo& t : file.tensors) total += t.nbytes;
  EXPECT_EQ(progress.back(), total);
  // The same stats and the same findings, in the same order, as one tensor after another.
  InspectReport one_by_one = describe_file(file);
  ScanOptions sequential;
  sequential.threads = 1;
  scan_report(file, one_by_one, sequential);
  EXPECT_EQ(to_json(report).dump(), to_json(one_by_one).dump());
}

TEST_F(ShardedFiles, AStopDuringABatchCancelsTheScan) {
  const TensorFile file = open_tensor_file(s_dir->file("st"));
  std::stop_source stop;
  ScanOptions options;
  options.threads = 2;
  options.stop = stop.get_token();
  InspectReport report = describe_file(file);
  std::size_t reported = 0;
  EXPECT_THROW(scan_report(file, report, options,
                           [&](std::size_t) {
                             ++reported;
                             stop.request_stop();
                           }),
               ScanCancelled);
  EXPECT_GE(reported, 1u);
  EXPECT_LT(reported, file.tensors.size());
}
