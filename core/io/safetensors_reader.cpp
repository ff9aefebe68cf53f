#include "io/safetensors_reader.h"

#include <algorithm>
#include <vector>

#include "io/input_error.h"
#include "io/little_endian.h"
#include "io/strict_json.h"
#include "text/json.h"

namespace blasscope::core {
namespace {

using nlohmann::json;

struct SafetensorsDType {
  std::string_view code;
  DType dtype;
};

constexpr SafetensorsDType kDTypes[] = {
    {"BOOL", DType::Bool},
    {"U8", DType::UInt8},
    {"I8", DType::Int8},
    {"U16", DType::UInt16},
    {"I16", DType::Int16},
    {"U32", DType::UInt32},
    {"I32", DType::Int32},
    {"U64", DType::UInt64},
    {"I64", DType::Int64},
    {"F16", DType::Float16},
    {"BF16", DType::BFloat16},
    {"F32", DType::Float32},
    {"F64", DType::Float64},
    {"C64", DType::Complex64},
    {"F8_E4M3", DType::Float8E4M3FN},
    {"F8_E5M2", DType::Float8E5M2},
    {"F8_E8M0", DType::Float8E8M0FNU},
    {"F4", DType::Float4E2M1FN},
    {"F6_E2M3", DType::Float6E2M3FN},
    {"F6_E3M2", DType::Float6E3M2FN},
};

DType dtype_from_code(const std::string& code, const std::string& tensor) {
  for (const auto& entry : kDTypes) {
    if (entry.code == code) return entry.dtype;
  }
  fail_unsupported("tensor '" + tensor + "': dtype '" + code + "' is not a safetensors dtype");
}

// A valid header nests three levels deep.
constexpr int kMaxHeaderDepth = 8;

std::uint64_t read_uint(const json& value, const std::string& what) {
  if (!value.is_number_unsigned()) fail_malformed(what + " must be a non-negative integer");
  return value.get<std::uint64_t>();
}

std::uint64_t checked_multiply(std::uint64_t a, std::uint64_t b, const std::string& tensor) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    fail_malformed("tensor '" + tensor + "': shape: the byte size overflows 64 bits");
  }
  return product;
}

void read_metadata(const json& value, TensorFile& file) {
  if (!value.is_object()) fail_malformed("__metadata__: must be an object of strings");
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) fail_malformed("__metadata__: value of '" + key + "' is not a string");
    file.metadata.emplace_back(key, item.get<std::string>());
  }
}

struct Range {
  std::uint64_t begin, end;
};

TensorInfo read_tensor_entry(const std::string& name, const json& entry, Range& range) {
  if (!entry.is_object()) fail_malformed("tensor '" + name + "': entry must be an object");
  for (const auto& [key, item] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      fail_malformed("tensor '" + name + "': unexpected key '" + key + "' (expected dtype, shape, data_offsets)");
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(key)) fail_malformed("tensor '" + name + "': missing key '" + key + "'");
  }
  TensorInfo tensor;
  tensor.name = name;
  if (!entry["dtype"].is_string()) fail_malformed("tensor '" + name + "': dtype must be a string");
  tensor.dtype = dtype_from_code(entry["dtype"].get<std::string>(), name);
  tensor.byte_order = bit_width(tensor.dtype) > 8 ? ByteOrder::Little : ByteOrder::NotApplicable;
  const json& shape = entry["shape"];
  if (!shape.is_array()) fail_malformed("tensor '" + name + "': shape must be an array");
  std::uint64_t count = 1;
  for (const json& dim : shape) {
    tensor.shape.push_back(read_uint(dim, "tensor '" + name + "': shape entries"));
    count = checked_multiply(count, tensor.shape.back(), name);
  }
  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    fail_malformed("tensor '" + name + "': data_offsets must be [begin, end]");
  }
  range = {read_uint(offsets[0], "tensor '" + name + "': data_offsets"),
           read_uint(offsets[1], "tensor '" + name + "': data_offsets")};
  const std::uint64_t bits = checked_multiply(count, bit_width(tensor.dtype), name);
  if (bits % 8 != 0) {
    fail_malformed("tensor '" + name + "': " + std::to_string(count) + " packed " +
                   std::string(core::name(tensor.dtype)) + " values do not fill whole bytes");
  }
  tensor.nbytes = bits / 8;
  if (range.end < range.begin || range.end - range.begin != tensor.nbytes) {
    fail_malformed("tensor '" + name + "': data_offsets [" + std::to_string(range.begin) + ", " +
                   std::to_string(range.end) + "] span " +
                   (range.end < range.begin ? std::string("a negative size")
                                            : std::to_string(range.end - range.begin) + " bytes") +
                   ", but shape x dtype needs " + std::to_string(tensor.nbytes));
  }
  return tensor;
}

}  // namespace

TensorFile read_safetensors(std::shared_ptr<const MappedFile> mapping) {
  const auto bytes = mapping->bytes();
  if (bytes.size() < 8) fail_malformed("header: file is shorter than the 8-byte header length");
  const std::uint64_t header_length = read_le<std::uint64_t>(bytes, 0);
  if (header_length > kMaxSafetensorsHeaderBytes) {
    fail_malformed("header: length " + std::to_string(header_length) + " exceeds the limit of " +
                   std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  }
  if (header_length > bytes.size() - 8) {
    fail_malformed("header: declares " + std::to_string(header_length) + " bytes but the file has only " +
                   std::to_string(bytes.size() - 8) + " after the length field (truncated header)");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), header_length);
  const json document = parse_strict_json(text, "header", kMaxHeaderDepth);
  if (!document.is_object()) fail_malformed("header: must be a JSON object");

  TensorFile file;
  file.path = mapping->path();
  file.format = FileFormat::Safetensors;
  file.file_size = bytes.size();
  std::vector<std::pair<Range, TensorInfo>> tensors;
  for (const auto& [key, value] : document.items()) {
    if (key == "__metadata__") {
      read_metadata(value, file);
      continue;
    }
    Range range{};
    TensorInfo tensor = read_tensor_entry(key, value, range);
    tensors.emplace_back(range, std::move(tensor));
  }
  std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.begin, a.first.end) < std::tie(b.first.begin, b.first.end);
  });
  const std::uint64_t data_start = 8 + header_length;
  std::uint64_t expected_begin = 0;
  for (auto& [range, tensor] : tensors) {
    if (range.begin != expected_begin) {
      fail_malformed("tensor '" + tensor.name + "': data_offsets begin at " + std::to_string(range.begin) +
                     " but the previous tensor ends at " + std::to_string(expected_begin) +
                     (range.begin < expected_begin ? " (overlap)" : " (gap)"));
    }
    expected_begin = range.end;
    tensor.data_offset = data_start + range.begin;
    file.tensors.push_back(std::move(tensor));
  }
  if (expected_begin != bytes.size() - data_start) {
    fail_malformed(
        "data: tensors cover " + std::to_string(expected_begin) + " bytes but the buffer after the header holds " +
        std::to_string(bytes.size() - data_start) +
        (expected_begin > bytes.size() - data_start ? " (offsets past the end of the file)" : " (trailing bytes)"));
  }
  file.mapping = std::move(mapping);
  return file;
}

}  // namespace blasscope::core
