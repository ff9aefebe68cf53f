// The HDF5/Keras reader on files the real h5py (libhdf5) writes at test time
// (tests/data/make_hdf5_files.py), compared field by field and count by count with what h5py
// reports, and on hostile variants that must be refused naming the dataset or field.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "analysis/stats_scanner.h"
#include "io/input_error.h"
#include "io/tensor_data.h"
#include "io/tensor_file_reader.h"
#include "report/inspect_json.h"
#include "test_files.h"
#include "text/json.h"
#include "workload/tensor_factory.h"

using namespace blasscope::core;
using nlohmann::json;

namespace {

bool says(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

class Hdf5Files : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new blasscope::test::TempDir;
    blasscope::test::run_data_script("make_hdf5_files.py", s_dir->path().string());
    s_manifest = json::parse(blasscope::test::read_file(s_dir->file("manifest.json")));
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  void SetUp() override {
    if (s_manifest.contains("skipped")) GTEST_SKIP() << s_manifest["skipped"].get<std::string>();
  }
  static const json& manifest_of(const std::string& file) {
    for (const json& entry : s_manifest["files"]) {
      if (entry["file"] == file) return entry;
    }
    throw std::runtime_error("no manifest entry for " + file);
  }
  static const TensorInfo& tensor(const TensorFile& file, const std::string& name) {
    for (const TensorInfo& t : file.tensors) {
      if (t.name == name) return t;
    }
    throw std::runtime_error("no tensor " + name);
  }
  static std::string metadata(const TensorFile& file, const std::string& key) {
    for (const auto& [k, v] : file.metadata) {
      if (k == key) return v;
    }
    return "(missing)";
  }
  static inline blasscope::test::TempDir* s_dir = nullptr;
  static inline json s_manifest;
};

// Numbers in "[a, b, c]" or a bare "a".
std::vector<double> numbers_in(std::string text) {
  if (!text.empty() && text.front() == '[') text = text.substr(1, text.size() - 2);
  std::vector<double> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find(", ", at);
    if (end == std::string::npos) end = text.size();
    out.push_back(std::stod(text.substr(at, end - at)));
    at = end + 2;
  }
  return out;
}

}  // namespace

TEST_F(Hdf5Files, EveryFileMatchesWhatH5pyReportsFieldByFieldAndCountByCount) {
  ASSERT_GE(s_manifest["files"].size(), 6u);
  for (const json& want : s_manifest["files"]) {
    const std::string name = want["file"];
    SCOPED_TRACE(name);
    const TensorFile file = open_tensor_file(s_dir->file(name));
    EXPECT_EQ(std::string(blasscope::core::name(file.format)), want["format"]);
    ASSERT_EQ(file.tensors.size(), want["tensors"].size() + want["unread"].size());
    for (const json& w : want["tensors"]) {
      const std::string tname = w["name"];
      SCOPED_TRACE(tname);
      const TensorInfo& t = tensor(file, tname);
      EXPECT_FALSE(t.unread.has_value());
      EXPECT_EQ(t.dtype_name(), w["dtype"]);
      EXPECT_EQ(t.shape, w["shape"].get<std::vector<std::uint64_t>>());
      EXPECT_EQ(std::string(blasscope::core::name(t.byte_order)), w["byte_order"]);
      EXPECT_EQ(t.nbytes, w["nbytes"].get<std::uint64_t>());
      EXPECT_EQ(t.storage.filtered, w["compressed"].get<bool>());
      const bool mapped = w["storage"] == "mapped";
      EXPECT_EQ(t.storage.kind, mapped ? TensorStorage::Kind::Mapped : TensorStorage::Kind::Streamed);
      if (mapped && want["format"] == "hdf5") {
        EXPECT_EQ(t.data_offset, w["offset"].get<std::uint64_t>());
      }
      const auto stats = scan_tensor(file, t);
      ASSERT_TRUE(stats.has_value());
      EXPECT_EQ(to_json(*stats), w["stats"]);
    }
    for (const json& w : want["unread"]) {
      const TensorInfo& t = tensor(file, w["name"]);
      ASSERT_TRUE(t.unread.has_value()) << t.name;
      const std::string why = t.unread->category + ": " + t.unread->reason;
      EXPECT_TRUE(says(why, w["says"])) << t.name << ": " << why;
      EXPECT_FALSE(scan_tensor(file, t).has_value());
    }
    for (const auto& [key, expected] : want["metadata"].items()) {
      SCOPED_TRACE(key);
      const std::string text = metadata(file, key);
      if (expected.contains("text")) {
        EXPECT_EQ(text, expected["text"].get<std::string>());
      } else {
        EXPECT_EQ(numbers_in(text), expected["numbers"].get<std::vector<double>>());
      }
    }
  }
}

TEST_F(Hdf5Files, StreamedChunksDeliverTheSameBytesAsTheContiguousCopy) {
  const TensorFile file = open_tensor_file(s_dir->file("layouts.h5"));
  const TensorInfo& plain = tensor(file, "chunked/plain");
  std::vector<float> reference(plain.element_count());
  read_tensor_bytes(file, plain, reinterpret_cast<std::byte*>(reference.data()));
  for (const char* name : {"chunked/gzip", "chunked/shuffle", "chunked/gzip_shuffle", "chunked/fletcher32"}) {
    SCOPED_TRACE(name);
    const TensorInfo& t = tensor(file, name);
    EXPECT_EQ(t.storage.kind, TensorStorage::Kind::Streamed);
    std::vector<float> values(t.element_count());
    read_tensor_bytes(file, t, reinterpret_cast<std::byte*>(values.data()));
    EXPECT_EQ(std::memcmp(values.data(), reference.data(), values.size() * sizeof(float)), 0);
  }
  // Unwritten chunks read as the fill value; the written one as written.
  const TensorInfo& partly = tensor(file, "chunked/partly_written");
  std::vector<std::int16_t> cells(partly.element_count());
  read_tensor_bytes(file, partly, reinterpret_cast<std::byte*>(cells.data()));
  EXPECT_EQ(cells[0], 5);
  EXPECT_EQ(cells[9 * 40 + 9], 5);
  EXPECT_EQ(cells[10], -3);
  EXPECT_EQ(cells.back(), -3);
}

// libhdf5 shares an open file among opens of the same name: each image must have its own, or
// the second file would list the first one's objects and read its (possibly unmapped) bytes.
TEST_F(Hdf5Files, TwoFilesOpenAtOnceEachReadTheirOwnBytes) {
  auto layouts = std::make_unique<TensorFile>(open_tensor_file(s_dir->file("layouts.h5")));
  const TensorFile keras = open_tensor_file(s_dir->file("keras2.h5"));
  const TensorFile again = open_tensor_file(s_dir->file("layouts.h5"));
  EXPECT_EQ(keras.tensors.size(), manifest_of("keras2.h5")["tensors"].size());
  EXPECT_NO_THROW(tensor(again, "chunked/gzip"));
  EXPECT_THROW(tensor(keras, "chunked/gzip"), std::runtime_error);
  layouts.reset();  // the first open of layouts.h5 is gone; the second still reads its chunks
  const TensorInfo& t = tensor(again, "chunked/gzip");
  std::vector<float> values(t.element_count());
  read_tensor_bytes(again, t, reinterpret_cast<std::byte*>(values.data()));
  const TensorInfo& plain = tensor(again, "chunked/plain");
  std::vector<float> reference(plain.element_count());
  read_tensor_bytes(again, plain, reinterpret_cast<std::byte*>(reference.data()));
  ASSERT_EQ(values.size(), reference.size());
  EXPECT_EQ(std::memcmp(values.data(), reference.data(), values.size() * sizeof(float)), 0);
}

TEST_F(Hdf5Files, LinksAreNotFollowedAndEachObjectIsListedOnce) {
  const TensorFile file = open_tensor_file(s_dir->file("layouts.h5"));
  for (const TensorInfo& t : file.tensors) {
    EXPECT_NE(t.name, "soft");
    EXPECT_NE(t.name, "external");
    EXPECT_NE(t.name, "nested/a/b/c") << "a second hard link to hard_again's dataset";
  }
}

TEST_F(Hdf5Files, AWorkloadReadsAnHdf5TensorByItsPath) {
  const std::string path = s_dir->file("keras2.h5");
  const TensorFile file = open_tensor_file(path);
  const TensorInfo& kernel = find_file_tensor(file, {path, "model_weights/dense/dense/kernel:0"}, "A");
  EXPECT_EQ(kernel.shape, (std::vector<std::uint64_t>{4, 3}));
  // A big-endian chunked gzip dataset arrives in host order, equal to the float32 original.
  const std::string layouts = s_dir->file("layouts.h5");
  const HostTensor be = make_tensor({"B", FileTensorSource{layouts, "chunked/be_gzip"}});
  const HostTensor plain = make_tensor({"P", FileTensorSource{layouts, "chunked/plain"}});
  ASSERT_EQ(be.element_count(), plain.element_count());
  const auto* b = reinterpret_cast<const double*>(be.data());
  const auto* p = reinterpret_cast<const float*>(plain.data());
  for (std::uint64_t i = 0; i < be.element_count(); ++i) {
    if (std::isnan(p[i]))
      EXPECT_TRUE(std::isnan(b[i]));
    else
      EXPECT_EQ(b[i], static_cast<double>(p[i])) << i;
  }
}

TEST_F(Hdf5Files, KerasArchivesStoredAndDeflatedHoldTheSameWeights) {
  const TensorFile stored = open_tensor_file(s_dir->file("weights.keras"));
  const TensorFile deflated = open_tensor_file(s_dir->file("weights_deflated.keras"));
  EXPECT_EQ(tensor(stored, "layers/dense/vars/0").storage.kind, TensorStorage::Kind::Mapped);
  EXPECT_EQ(tensor(deflated, "layers/dense/vars/0").storage.kind, TensorStorage::Kind::Streamed);
  EXPECT_TRUE(says(metadata(stored, "metadata.json"), "keras_version"));
  EXPECT_TRUE(says(metadata(deflated, "config.json"), "Sequential"));
}

TEST_F(Hdf5Files, HostileFilesAreRefusedNamingTheDatasetOrField) {
  ASSERT_GE(s_manifest["hostile"].size(), 6u);
  for (const json& entry : s_manifest["hostile"]) {
    const std::string name = entry["file"];
    SCOPED_TRACE(name);
    try {
      const TensorFile file = open_tensor_file(s_dir->file(name));
      for (const TensorInfo& t : file.tensors) scan_tensor(file, t);  // corrupt chunks show when read
      ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
      EXPECT_TRUE(says(error.what(), entry["says"].get<std::string>())) << error.what();
    }
  }
}

TEST_F(Hdf5Files, ValuesLibhdf5WouldLoopOnOrOverAllocateAreNotReadButTheTensorsAre) {
  ASSERT_FALSE(s_manifest["degraded"].empty());
  for (const json& entry : s_manifest["degraded"]) {
    SCOPED_TRACE(entry["file"].get<std::string>());
    const TensorFile file = open_tensor_file(s_dir->file(entry["file"]));
    EXPECT_TRUE(says(metadata(file, entry["key"]), entry["says"])) << metadata(file, entry["key"]);
    EXPECT_EQ(file.tensors.size(), entry["tensors"].get<std::size_t>());
    for (const TensorInfo& t : file.tensors) EXPECT_TRUE(scan_tensor(file, t).has_value());
  }
}

// Written with the libhdf5 C API (h5py cannot set this option): edge chunks stored unfiltered
// (H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS) pass the edge-chunk size check and read as written.
TEST(Hdf5CApiFiles, PartialEdgeChunksStoredUnfilteredReadAsWritten) {
  blasscope::test::TempDir dir;
  const std::string path = dir.file("edge.h5");
  {
    const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(access, H5F_LIBVER_V110, H5F_LIBVER_LATEST);  // layout version 4
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
    const hsize_t dims[2] = {10, 7}, chunk[2] = {4, 4};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(create, 2, chunk);
    H5Pset_deflate(create, 6);
    H5Pset_chunk_opts(create, H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS);
    const hid_t dataset = H5Dcreate2(file, "edges", H5T_IEEE_F32LE, space, H5P_DEFAULT, create, H5P_DEFAULT);
    std::vector<float> values(70);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 20.0f;
    ASSERT_GE(H5Dwrite(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(dataset);
    H5Pclose(create);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(access);
  }
  const TensorFile file = open_tensor_file(path);
  ASSERT_EQ(file.tensors.size(), 1u);
  const TensorInfo& t = file.tensors[0];
  EXPECT_EQ(t.storage.kind, TensorStorage::Kind::Streamed);
  std::vector<float> read(t.element_count());
  read_tensor_bytes(file, t, reinterpret_cast<std::byte*>(read.data()));
  for (std::size_t i = 0; i < read.size(); ++i) ASSERT_EQ(read[i], static_cast<float>(i) - 20.0f) << i;
}
