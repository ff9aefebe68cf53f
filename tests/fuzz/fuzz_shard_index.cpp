// libFuzzer harness: a sharded checkpoint's index (model.safetensors.index.json) on any text,
// checked against a fixed set of shard files written once to a temporary folder (two good
// safetensors shards, one in a subfolder, a truncated one, and a JSON file that is not a
// shard), then the inspector on what was accepted.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/shard_index.h"
#include "io/sharded_reader.h"
#include "tensor_exercise.h"

using namespace blasscope;

namespace {

namespace fs = std::filesystem;

// One safetensors file: an 8-byte header length, the JSON header, the tensors' bytes.
void write_safetensors(const fs::path& path, const std::string& header, std::size_t data_bytes,
                       std::size_t keep = std::string::npos) {
  std::string text = header;
  while (text.size() % 8 != 0) text += ' ';
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
  bytes += text;
  for (std::size_t i = 0; i < data_bytes; ++i) bytes += static_cast<char>(i * 37 + 11);
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes.substr(0, keep);
}

struct ShardFolder {
  fs::path path;
  ShardFolder() {
    char name[] = "/tmp/blasscope-fuzz-shards-XXXXXX";
    path = ::mkdtemp(name);
    write_safetensors(path / "model-00001-of-00002.safetensors",
                      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                      R"("b":{"dtype":"BF16","shape":[3],"data_offsets":[16,22]}})",
                      22);
    write_safetensors(path / "model-00002-of-00002.safetensors",
                      R"({"c":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},)"
                      R"("d":{"dtype":"I64","shape":[1],"data_offsets":[4,12]}})",
                      12);
    write_safetensors(path / "sub" / "model.safetensors", R"({"e":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})",
                      8);
    write_safetensors(path / "truncated.safetensors", R"({"f":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 16,
                      40);
    std::ofstream(path / "model.safetensors.index.json") << R"({"weight_map": {"a": "model.safetensors.index.json"}})";
  }
  ~ShardFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ShardFolder folder;
  try {
    const core::ShardIndex index = core::parse_shard_index(fuzz::text_of(data, size));
    fuzz::exercise(core::read_shards(folder.path.string(), index.shards, &index));
  } catch (const core::InputError&) {
  }
  return 0;
}
