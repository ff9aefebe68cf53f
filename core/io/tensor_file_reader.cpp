#include "io/tensor_file_reader.h"

#include <filesystem>

#include "io/hdf5_reader.h"
#include "io/input_error.h"
#include "io/little_endian.h"
#include "io/npy_reader.h"
#include "io/npz_reader.h"
#include "io/pytorch_reader.h"
#include "io/recognised_formats.h"
#include "io/safetensors_reader.h"
#include "io/sharded_reader.h"

namespace blasscope::core {
namespace {

bool looks_like_safetensors(std::span<const std::byte> bytes) {
  // An 8-byte little-endian header length followed by a JSON object.
  return bytes.size() >= 9 && std::to_integer<char>(bytes[8]) == '{';
}

// A safetensors header length that fits in the file: a JSON text starting `{"a":   {` has a
// '{' at byte 8 too, but its first 8 bytes read as a length far beyond the file.
bool plausible_safetensors(std::span<const std::byte> bytes) {
  return looks_like_safetensors(bytes) && read_le<std::uint64_t>(bytes, 0) <= bytes.size() - 8;
}

// The HDF5 signature sits at 0, or after a user block at 512, 1024, 2048... (HDF5 spec, superblock).
bool looks_like_hdf5(std::span<const std::byte> bytes) {
  for (std::uint64_t at = 0; at < bytes.size(); at = at == 0 ? 512 : at * 2) {
    if (has_prefix(bytes.subspan(at), "\x89HDF\r\n\x1a\n", 8)) return true;
  }
  return false;
}

TensorFile open_mapped(std::shared_ptr<const MappedFile> mapping, bool allow_index) {
  const auto bytes = mapping->bytes();
  if (bytes.empty()) fail_malformed("file is empty");
  const std::string path = mapping->path();
  if (has_prefix(bytes, "\x93NUMPY", 6)) {
    return read_npy(std::move(mapping), std::filesystem::path(path).stem().string());
  }
  if (has_prefix(bytes, "PK\x03\x04", 4) || has_prefix(bytes, "PK\x05\x06", 4)) {
    // .npz and torch.save's zip format are both zips: data.pkl in a top folder says PyTorch.
    const std::vector<ZipMember> members = read_zip_directory(bytes);
    if (is_pytorch_archive(members)) return read_pytorch(std::move(mapping), members);
    if (is_keras_archive(members)) return read_keras(std::move(mapping), members);
    return read_npz(std::move(mapping));
  }
  if (looks_like_hdf5(bytes)) return read_hdf5(std::move(mapping));
  if (looks_like_json_object(bytes)) {
    if (!allow_index) fail_unsupported("a JSON file (an index?) where a file holding tensors was expected");
    return read_sharded_index(std::move(mapping));
  }
  if (looks_like_safetensors(bytes)) return read_safetensors(std::move(mapping));
  if (auto pickle = recognise_pickle(bytes)) fail_unsupported(*pickle);
  fail_unsupported(
      "unrecognised format: not .npy (\\x93NUMPY), .npz/.pt/.keras (a zip archive), HDF5 (\\x89HDF) or "
      "safetensors (8-byte header length, then '{')");
}

}  // namespace

bool looks_like_json_object(std::span<const std::byte> bytes) {
  if (plausible_safetensors(bytes)) return false;
  for (const std::byte b : bytes) {
    const char c = std::to_integer<char>(b);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

TensorFile open_tensor_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return read_sharded_directory(path);
  return open_mapped(std::make_shared<const MappedFile>(path), true);
}

TensorFile open_single_tensor_file(const std::string& path) {
  return open_mapped(std::make_shared<const MappedFile>(path), false);
}

}  // namespace blasscope::core
