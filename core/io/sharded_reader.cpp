#include "io/sharded_reader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "io/input_error.h"
#include "io/shard_index.h"
#include "io/tensor_file_reader.h"

namespace blasscope::core {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kOpenThreads = 4;         // shards are opened a few at a time: headers are small
constexpr std::size_t kListedWarnings = 20;  // tensors missing from the weight_map named one by one

std::string in_quotes(const std::string& text) {
  return "'" + text + "'";
}

[[noreturn]] void fail(InputError::Kind kind, const std::string& message) {
  throw InputError(kind, message);
}

// Missing or not a regular file: named before any shard is opened (a FIFO would block open()).
void check_shard_files(const std::string& folder, const ShardIndex& index) {
  for (const std::string& shard : index.shards) {
    std::error_code error;
    const fs::file_status status = fs::status(fs::path(folder) / shard, error);
    if (fs::is_regular_file(status)) continue;
    std::size_t listed = 0;
    std::string example;
    for (const auto& [tensor, name] : index.weight_map) {
      if (name != shard) continue;
      if (listed++ == 0) example = tensor;
    }
    const std::string why = !fs::exists(status) ? " is missing" : " is not a regular file";
    fail(InputError::Kind::Malformed, "shard " + in_quotes(shard) + why + ": the index maps " + std::to_string(listed) +
                                          (listed == 1 ? " tensor" : " tensors") + " to it (e.g. " +
                                          in_quotes(example) + ")");
  }
}

// Opens every shard, a few threads at a time. The error reported is the first failing shard
// in name order, so the message does not depend on thread timing.
std::vector<TensorFile> open_shards(const std::string& folder, const std::vector<std::string>& names) {
  std::vector<std::optional<TensorFile>> opened(names.size());
  std::vector<std::exception_ptr> errors(names.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (std::size_t i; !failed.load() && (i = next.fetch_add(1)) < names.size();) {
      try {
        opened[i] = open_single_tensor_file((fs::path(folder) / names[i]).string());
      } catch (const InputError& error) {
        errors[i] =
            std::make_exception_ptr(InputError(error.kind(), "shard " + in_quotes(names[i]) + ": " + error.what()));
        failed = true;
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  const auto threads = static_cast<unsigned>(std::min<std::size_t>(kOpenThreads, names.size()));
  {
    std::vector<std::jthread> helpers;
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work);
    work();
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  std::vector<TensorFile> files;
  files.reserve(names.size());
  for (auto& file : opened) files.push_back(std::move(*file));
  return files;
}

void check_against_index(TensorFile& out, const ShardIndex& index,
                         const std::unordered_map<std::string, std::string>& owner) {
  std::unordered_set<std::string> listed;
  listed.reserve(index.weight_map.size());
  for (const auto& [tensor, shard] : index.weight_map) {
    listed.insert(tensor);
    const auto it = owner.find(tensor);
    const std::string field = "weight_map." + in_quotes(tensor);
    if (it == owner.end()) {
      fail(InputError::Kind::Malformed,
           field + ": shard " + in_quotes(shard) + " does not hold this tensor (no shard does)");
    }
    if (it->second != shard) {
      fail(InputError::Kind::Malformed, field + ": shard " + in_quotes(shard) + " does not hold this tensor (shard " +
                                            in_quotes(it->second) + " does)");
    }
  }
  std::size_t unlisted = 0;
  for (const TensorInfo& tensor : out.tensors) {
    if (listed.contains(tensor.name)) continue;
    if (++unlisted > kListedWarnings) continue;
    out.warnings.push_back({"shard-tensor-not-indexed",
                            "in shard " + in_quotes(tensor.shard) + " but not in the index's weight_map",
                            tensor.name,
                            {{"shard", tensor.shard}}});
  }
  if (unlisted > kListedWarnings) {
    out.warnings.push_back(
        {"shard-tensor-not-indexed",
         std::to_string(unlisted - kListedWarnings) + " more tensors in the shards are not in the index's weight_map",
         "",
         {{"count", std::to_string(unlisted)}}});
  }
  if (!index.total_size) return;
  std::uint64_t tensor_bytes = 0;
  for (const TensorInfo& tensor : out.tensors) tensor_bytes += tensor.nbytes;
  if (*index.total_size == tensor_bytes) return;
  out.warnings.push_back(
      {"shard-total-size",
       "metadata.total_size says " + std::to_string(*index.total_size) + " bytes but the shards' tensors hold " +
           std::to_string(tensor_bytes) +
           " (Hugging Face writes the sum of the tensors' byte sizes, without the files' headers)",
       "",
       {{"total_size", std::to_string(*index.total_size)}, {"tensor_bytes", std::to_string(tensor_bytes)}}});
}

std::vector<std::string> index_files_in(const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    if (name.ends_with(".index.json")) found.push_back(name);
  }
  return found;
}

std::vector<std::string> with_extension(const std::vector<std::string>& names,
                                        std::initializer_list<std::string_view> extensions) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    for (const std::string_view extension : extensions) {
      if (name.size() > extension.size() && name.ends_with(extension)) {
        found.push_back(name);
        break;
      }
    }
  }
  return found;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

TensorFile read_shards(const std::string& folder, const std::vector<std::string>& shard_names,
                       const ShardIndex* index) {
  if (index) check_shard_files(folder, *index);
  std::vector<TensorFile> shards = open_shards(folder, shard_names);
  TensorFile out;
  out.format = FileFormat::Sharded;
  std::unordered_map<std::string, std::string> owner;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    TensorFile& shard = shards[s];
    const std::string& name = shard_names[s];
    ShardSummary summary{name, shard.format, shard.file_size, shard.tensors.size(), 0};
    for (TensorInfo& tensor : shard.tensors) {
      const auto [it, fresh] = owner.emplace(tensor.name, name);
      if (!fresh) {
        // Without an index, a folder of separate checkpoints (epoch1.pt, epoch2.pt) looks like
        // shards holding the same names: say so rather than blame a shard.
        const std::string hint =
            index ? std::string()
                  : "; without an index this folder looks like separate checkpoints rather than shards "
                    "of one: inspect one file at a time";
        fail(InputError::Kind::Malformed, "tensor " + in_quotes(tensor.name) + " is in two shards: " +
                                              in_quotes(it->second) + " and " + in_quotes(name) + hint);
      }
      summary.tensor_bytes += tensor.nbytes;
      if (!tensor.storage.mapping) tensor.storage.mapping = shard.mapping;
      tensor.shard = name;
      out.tensors.push_back(std::move(tensor));
    }
    for (auto& [key, value] : shard.metadata) out.metadata.emplace_back(name + ": " + key, std::move(value));
    for (ReaderWarning& warning : shard.warnings) out.warnings.push_back(std::move(warning));
    out.file_size += shard.file_size;
    out.shards.push_back(std::move(summary));
  }
  if (index) check_against_index(out, *index, owner);
  return out;
}

TensorFile read_sharded_index(std::shared_ptr<const MappedFile> mapping) {
  const auto bytes = mapping->bytes();
  const ShardIndex index = parse_shard_index({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
  const fs::path path(mapping->path());
  const std::string folder = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  TensorFile out = read_shards(folder, index.shards, &index);
  std::vector<std::pair<std::string, std::string>> metadata{{"index", path.filename().string()},
                                                            {"shards", std::to_string(index.shards.size())}};
  if (index.total_size) metadata.emplace_back("total_size", std::to_string(*index.total_size));
  metadata.insert(metadata.end(), index.metadata.begin(), index.metadata.end());
  metadata.insert(metadata.end(), out.metadata.begin(), out.metadata.end());
  out.metadata = std::move(metadata);
  out.path = mapping->path();
  out.file_size += mapping->size();
  out.mapping = std::move(mapping);
  return out;
}

TensorFile read_sharded_directory(const std::string& path) {
  std::vector<std::string> names;
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
      std::error_code error;
      if (entry.is_regular_file(error)) names.push_back(entry.path().filename().string());
    }
  } catch (const fs::filesystem_error& error) {
    fail(InputError::Kind::Unreadable, std::string("cannot list the folder: ") + error.code().message());
  }
  std::sort(names.begin(), names.end());
  auto has = [&](const std::string& name) { return std::binary_search(names.begin(), names.end(), name); };
  std::string index_name;
  std::string note;
  if (has("model.safetensors.index.json")) {
    index_name = "model.safetensors.index.json";
    if (has("pytorch_model.bin.index.json")) note = "pytorch_model.bin.index.json also present, not read";
  } else if (has("pytorch_model.bin.index.json")) {
    index_name = "pytorch_model.bin.index.json";
  } else if (const auto indexes = index_files_in(names); indexes.size() == 1) {
    index_name = indexes.front();
  } else if (indexes.size() > 1) {
    fail(InputError::Kind::Unsupported,
         "folder holds several index files (" + joined(indexes) + "): pass the one to read as the file");
  }
  if (!index_name.empty()) {
    TensorFile out;
    try {
      out = open_tensor_file((fs::path(path) / index_name).string());
    } catch (const InputError& error) {
      // The user named the folder: say which index the message is about.
      fail(error.kind(), index_name + ": " + error.what());
    }
    if (out.format != FileFormat::Sharded) fail_malformed(index_name + ": not a checkpoint index");
    if (!note.empty()) out.metadata.insert(out.metadata.begin() + 1, {"note", note});
    out.path = path;
    return out;
  }
  std::vector<std::string> shards = with_extension(names, {".safetensors"});
  if (shards.empty()) shards = with_extension(names, {".bin", ".pt", ".pth"});
  if (shards.empty()) {
    fail(InputError::Kind::Unsupported,
         "folder holds no tensor files: looked for model.safetensors.index.json, pytorch_model.bin.index.json, "
         "*.index.json, then *.safetensors, then *.bin, *.pt, *.pth");
  }
  if (shards.size() > kMaxShards) {
    fail_malformed("folder holds " + std::to_string(shards.size()) + " tensor files, more than the limit of " +
                   std::to_string(kMaxShards));
  }
  TensorFile out = read_shards(path, shards, nullptr);
  std::vector<std::pair<std::string, std::string>> metadata{
      {"index", "none: the folder's " + std::to_string(shards.size()) +
                    (shards.size() == 1 ? " tensor file read as the only shard" : " tensor files read as shards")},
      {"shards", std::to_string(shards.size())}};
  metadata.insert(metadata.end(), out.metadata.begin(), out.metadata.end());
  out.metadata = std::move(metadata);
  out.path = path;
  return out;
}

}  // namespace blasscope::core
