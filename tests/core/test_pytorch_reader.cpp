// The pickle reader on hand-written opcodes, and the PyTorch reader on checkpoints the real
// torch.save writes at test time (tests/data/make_torch_files.py).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "io/pickle_reader.h"
#include "io/tensor_data.h"
#include "io/tensor_file_reader.h"
#include "test_files.h"
#include "text/json.h"
#include "workload/tensor_factory.h"

using namespace blasscope::core;
using nlohmann::json;
using namespace std::string_literals;

namespace {

Pickle parse(const std::string& bytes) {
  return read_pickle(std::as_bytes(std::span(bytes.data(), bytes.size())), "data.pkl");
}

std::string refusal(const std::string& bytes) {
  try {
    parse(bytes);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

bool says(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

}  // namespace

TEST(PickleReader, ReadsContainersScalarsAndMemo) {
  // {'a': [1, -2, 3.5, True, None, 'x'], 'b': <memo of the list>}, protocol 2
  const std::string bytes =
      "\x80\x02}q\x00(X\x01\x00\x00\x00"
      "a]q\x01(K\x01J\xfe\xff\xff\xff"
      "G@\x0c\x00\x00\x00\x00\x00\x00"
      "\x88N\x8c\x01"
      "xeX\x01\x00\x00\x00"
      "bh\x01u."s;
  const Pickle p = parse(bytes);
  const PickleNode& root = p.at(p.root);
  ASSERT_EQ(root.kind, PickleNode::Kind::Dict);
  ASSERT_EQ(root.items.size(), 4u);
  EXPECT_EQ(p.at(root.items[0]).text, "a");
  const PickleNode& list = p.at(root.items[1]);
  ASSERT_EQ(list.kind, PickleNode::Kind::List);
  ASSERT_EQ(list.items.size(), 6u);
  EXPECT_EQ(p.at(list.items[0]).integer, 1);
  EXPECT_EQ(p.at(list.items[1]).integer, -2);
  EXPECT_EQ(p.at(list.items[2]).real, 3.5);
  EXPECT_TRUE(p.at(list.items[3]).boolean);
  EXPECT_EQ(p.at(list.items[4]).kind, PickleNode::Kind::None);
  EXPECT_EQ(p.at(list.items[5]).text, "x");
  EXPECT_EQ(root.items[3], root.items[1]);  // BINGET shares the node
}

TEST(PickleReader, Long1IsSignExtended) {
  const Pickle p = parse("\x80\x02\x8a\x02\xfe\xff."s);
  EXPECT_EQ(p.at(p.root).integer, -2);
  // 2**64 - 5 (torch.seed()), 2**63 and -2**63 - 1: outside int64, kept as exact decimal.
  const Pickle seed = parse("\x80\x02\x8a\x09\xfb\xff\xff\xff\xff\xff\xff\xff\x00."s);
  EXPECT_EQ(seed.at(seed.root).kind, PickleNode::Kind::BigInt);
  EXPECT_EQ(seed.at(seed.root).text, "18446744073709551611");
  EXPECT_EQ(parse("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00."s).at(0).text, "9223372036854775808");
  EXPECT_EQ(parse("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff."s).at(0).text, "-9223372036854775809");
  const Pickle min64 = parse("\x80\x02\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80."s);
  EXPECT_EQ(min64.at(0).kind, PickleNode::Kind::Int);
  EXPECT_EQ(min64.at(0).integer, INT64_MIN);
  // LONG4 of 2**80: 11 bytes.
  EXPECT_EQ(parse("\x80\x02\x8b\x0b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01."s).at(0).text,
            "1208925819614629174706176");
  EXPECT_TRUE(says(refusal("\x80\x02\x8b\xff\xff\x00\x00."s), "an integer of 65535 bytes"));
  EXPECT_TRUE(says(refusal("\x80\x02\x8b\x20\x00\x00\x00\x01."s), "truncated"));
}

TEST(PickleReader, SetsBytesComplexAndTorchValuesAreData) {
  // protocol 4: EMPTY_SET, MARK 1 2 ADDITEMS; MARK 3 FROZENSET
  const Pickle set = parse("\x80\x04\x8f(K\x01K\x02\x90."s);
  EXPECT_EQ(set.at(set.root).kind, PickleNode::Kind::Set);
  EXPECT_EQ(set.at(set.root).items.size(), 2u);
  const Pickle frozen = parse("\x80\x04(K\x03\x91."s);
  EXPECT_EQ(frozen.at(frozen.root).text, "frozenset");
  EXPECT_TRUE(says(refusal("\x80\x04(K\x03\x91(K\x01\x90."s), "adds items to a frozenset"));
  // protocol 2 bytes: _codecs.encode('\xff\x01', 'latin1') -> 2 bytes
  const Pickle bytes = parse(
      "\x80\x02"
      "c_codecs\nencode\nX\x03\x00\x00\x00\xc3\xbf\x01X\x06\x00\x00\x00latin1\x86R."s);
  EXPECT_EQ(bytes.at(bytes.root).kind, PickleNode::Kind::Bytes);
  EXPECT_EQ(bytes.at(bytes.root).integer, 2);
  // Values shown as Python's repr shows them. Python writes every NaN as "nan", with a "+"
  // before a NaN imaginary part whatever its sign bit.
  const std::pair<std::string, std::string> shown[] = {
      {"ctorch\nfloat16\n."s, "torch.float16"},
      {"ctorch\nSize\nK\x02K\x03\x86\x85R."s, "torch.Size([2, 3])"},
      {"ctorch\ndevice\nX\x04\x00\x00\x00"
       "cudaK\x00\x86R."s,
       "device(type='cuda', index=0)"},
      {"c__builtin__\ncomplex\nG?\xf0\x00\x00\x00\x00\x00\x00G\xc0\x00\x00\x00\x00\x00\x00\x00\x86R."s, "(1-2j)"},
      {"c__builtin__\ncomplex\nG?\xf0\x00\x00\x00\x00\x00\x00G\xff\xf8\x00\x00\x00\x00\x00\x00\x86R."s, "(1+nanj)"},
      {"c__builtin__\ncomplex\nG\x7f\xf8\x00\x00\x00\x00\x00\x00G\x7f\xf8\x00\x00\x00\x00\x00\x00\x86R."s,
       "(nan+nanj)"},
  };
  for (const auto& [body, text] : shown) {
    const Pickle value = parse("\x80\x02"s + body);
    EXPECT_EQ(value.at(value.root).text, text);
  }
  const Pickle counter = parse(
      "\x80\x02"
      "ccollections\nCounter\n}K\x01K\x01s\x85R."s);
  EXPECT_EQ(counter.at(counter.root).kind, PickleNode::Kind::Dict);
  EXPECT_EQ(counter.at(counter.root).text, "Counter");
  EXPECT_EQ(counter.at(counter.root).items.size(), 2u);
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "ctorch\nSize\nK\x02\x85R."s),
                   "torch.Size expects a tuple"));
}

TEST(PickleReader, RefusesGlobalsOutsideTheTorchAllowList) {
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "cposix\nsystem\nX\x02\x00\x00\x00id\x85R."s),
                   "'posix.system'"));
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "cos\nsystem\n."),
                   "'os.system'"));
  EXPECT_TRUE(says(refusal("\x80\x04\x8c\x08"
                           "builtins\x8c\x04"
                           "eval\x93."),
                   "'builtins.eval'"));
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "c__builtin__\ngetattr\n."),
                   "'__builtin__.getattr'"));
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "ctorch._utils\n_rebuild_tensor_v2\n0ctorch.nn.modules.linear\nLinear\n."),
                   "save model.state_dict() instead"));
  // Only globals outside torch 2.x's allow-list are said to be refused by torch too.
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "cposix\nsystem\n."),
                   "torch.load(weights_only=True) refuses it too"));
  EXPECT_FALSE(says(refusal("\x80\x02"
                            "ctorch._utils\n_rebuild_qtensor\n."),
                    "refuses it too"));
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "ctorch._utils\n_rebuild_qtensor\n."),
                   "dequantize() first"));
  try {
    parse(
        "\x80\x02"
        "cposix\nsystem\n.");
    FAIL() << "accepted posix.system";
  } catch (const InputError& error) {
    EXPECT_EQ(error.kind(), InputError::Kind::Unsupported);
  }
}

TEST(PickleReader, RefusesMalformedStreamsNamingTheOpcodeAndOffset) {
  EXPECT_TRUE(says(refusal("\x80\x02\xff."s), "byte 2: opcode 0xff"));
  EXPECT_TRUE(says(refusal("\x80\x02}"), "without a STOP"));
  EXPECT_TRUE(says(refusal("\x80\x02X\xff\xff\x00\x00"
                           "ab."s),
                   "truncated"));
  EXPECT_TRUE(says(refusal("\x80\x02h\x07."), "memo entry 7"));
  EXPECT_TRUE(says(refusal("\x80\x02."), "STOP leaves 0 values"));
  EXPECT_TRUE(says(refusal("\x80\x02K\x01K\x02."), "STOP leaves 2 values"));
  EXPECT_TRUE(says(refusal("\x80\x02K\x01K\x02K\x03s."), "adds items to a int"));
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "a."),
                   "stack is empty"));
  EXPECT_TRUE(says(refusal("\x80\x09."), "protocol 9"));
  EXPECT_TRUE(says(refusal("\x80\x02"
                           "cos\nsys"),
                   "no terminating newline"));
  EXPECT_TRUE(says(refusal(std::string(2000, '(')), "nested MARKs"));
}

TEST(PickleReader, ASelfReferenceIsDataNotALoop) {
  const Pickle p = parse(
      "\x80\x02]q\x00h\x00"
      "a."s);  // l = []; l.append(l)
  EXPECT_EQ(p.at(p.root).items.at(0), p.root);
}

namespace {

class TorchFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new blasscope::test::TempDir;
    blasscope::test::run_data_script("make_torch_files.py", s_dir->path().string());
    s_manifest = json::parse(blasscope::test::read_file(s_dir->file("manifest.json")));
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  void SetUp() override {
    if (s_manifest.contains("skipped")) GTEST_SKIP() << s_manifest["skipped"].get<std::string>();
  }
  static const TensorInfo& tensor(const TensorFile& file, const std::string& name) {
    for (const TensorInfo& t : file.tensors) {
      if (t.name == name) return t;
    }
    throw std::runtime_error("no tensor " + name);
  }
  static inline blasscope::test::TempDir* s_dir = nullptr;
  static inline json s_manifest;
};

}  // namespace

TEST_F(TorchFiles, StateDictNamesDtypesAndShapesMatchTorch) {
  const TensorFile file = open_tensor_file(s_dir->file("sequential.pt"));
  EXPECT_EQ(file.format, FileFormat::PyTorch);
  const json& want = s_manifest["files"][0];
  ASSERT_EQ(want["file"], "sequential.pt");
  ASSERT_EQ(file.tensors.size(), want["tensors"].size());
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    EXPECT_EQ(file.tensors[i].name, want["tensors"][i]["name"]);
    EXPECT_EQ(file.tensors[i].dtype_name(), want["tensors"][i]["dtype"]);
    EXPECT_EQ(file.tensors[i].shape, want["tensors"][i]["shape"].get<std::vector<std::uint64_t>>());
    EXPECT_EQ(file.tensors[i].data_offset % 64, 0u) << "torch aligns storages to 64 bytes";
  }
}

TEST_F(TorchFiles, SharedStorageViewsReadTheRightBytes) {
  const TensorFile file = open_tensor_file(s_dir->file("views.pt"));
  const TensorInfo& matrix = tensor(file, "shared_matrix");  // arange(24.)[6:].view(3, 6)
  std::vector<double> values(matrix.element_count());
  read_tensor_bytes(file, matrix, reinterpret_cast<std::byte*>(values.data()));
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], 6.0 + static_cast<double>(i));
  EXPECT_EQ(tensor(file, "transposed").order, MemoryOrder::Fortran);
  ASSERT_TRUE(tensor(file, "block").unread.has_value());
  EXPECT_EQ(tensor(file, "block").unread->category, "strided");
  EXPECT_EQ(tensor(file, "scalar").shape, std::vector<std::uint64_t>{});
  EXPECT_EQ(tensor(file, "empty").nbytes, 0u);
}

TEST_F(TorchFiles, DeflatedEntriesAreInflatedOnDemand) {
  const TensorFile file = open_tensor_file(s_dir->file("deflated.pt"));
  const TensorInfo& bias = tensor(file, "0.bias");
  EXPECT_EQ(bias.storage.kind, TensorStorage::Kind::Deflated);
  std::vector<float> deflated(bias.element_count()), stored(bias.element_count());
  read_tensor_bytes(file, bias, reinterpret_cast<std::byte*>(deflated.data()));
  const TensorFile plain = open_tensor_file(s_dir->file("sequential.pt"));
  read_tensor_bytes(plain, tensor(plain, "0.bias"), reinterpret_cast<std::byte*>(stored.data()));
  EXPECT_EQ(deflated, stored);
}

TEST_F(TorchFiles, AWorkloadNamesACheckpointTensorByItsDottedKey) {
  const TensorFile file = open_tensor_file(s_dir->file("checkpoint.pt"));
  const TensorInfo& weight = find_file_tensor(file, {s_dir->file("checkpoint.pt"), "model.0.weight"}, "A");
  EXPECT_EQ(weight.shape, (std::vector<std::uint64_t>{8, 4}));
  EXPECT_EQ(weight.dtype, DType::Float32);
}

TEST_F(TorchFiles, HostileCheckpointsAreRefusedNamingTheCause) {
  for (const json& entry : s_manifest["hostile"]) {
    const std::string name = entry["file"];
    SCOPED_TRACE(name);
    try {
      open_tensor_file(s_dir->file(name));
      ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
      EXPECT_TRUE(says(error.what(), entry["says"].get<std::string>())) << error.what();
    }
  }
}

TEST_F(TorchFiles, ValuesTorchAllowsAreMetadata) {
  const TensorFile file = open_tensor_file(s_dir->file("values4.pt"));
  std::map<std::string, std::string> metadata(file.metadata.begin(), file.metadata.end());
  EXPECT_EQ(metadata["scheduler.milestones"], "Counter({1: 1, 2: 1})");
  EXPECT_EQ(metadata["fresh_optimizer.state"], "{}");
  EXPECT_EQ(metadata["seed"], "18446744073709551611");
  EXPECT_EQ(metadata["set"], "{1, 2}");
  EXPECT_EQ(metadata["dtype"], "torch.float16");
  EXPECT_EQ(metadata["shape"], "torch.Size([2, 3])");
  ASSERT_EQ(file.tensors.size(), 1u);
  EXPECT_EQ(file.tensors[0].name, "w");
}

TEST_F(TorchFiles, ATensorWithAttributesIsReadThroughRebuildFromType) {
  for (const char* name : {"from_type.pt", "from_type_param.pt"}) {
    const TensorFile file = open_tensor_file(s_dir->file(name));
    ASSERT_EQ(file.tensors.size(), 1u) << name;
    EXPECT_EQ(file.tensors[0].dtype, DType::Float64);
    EXPECT_EQ(file.tensors[0].shape, (std::vector<std::uint64_t>{2, 3}));
  }
}

TEST_F(TorchFiles, CollidingDottedNamesAreWarnedAbout) {
  const TensorFile file = open_tensor_file(s_dir->file("collision.pt"));
  ASSERT_EQ(file.tensors.size(), 2u);
  EXPECT_EQ(file.tensors[0].name, "a.b");
  EXPECT_EQ(file.tensors[1].name, "a.b#2");
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_EQ(file.warnings[0].id, "duplicate-tensor-name");
  EXPECT_EQ(file.warnings[0].tensor, "a.b#2");
  EXPECT_TRUE(says(file.warnings[0].message, "a workload asking for 'a.b' gets the first"));
  EXPECT_EQ(find_file_tensor(file, {s_dir->file("collision.pt"), "a.b"}, "A").shape, std::vector<std::uint64_t>{2});
}
