#include "io/hdf5_global_heap.h"

#include <algorithm>
#include <cstring>

#include "io/little_endian.h"

namespace blasscope::core {
namespace {

// HDF5 spec, "Global Heap": "GCOL", version 1, 3 reserved bytes, collection size (L bytes),
// then objects of {index u16, references u16, reserved u32, size L, data padded to 8}. libhdf5
// pads the collection header and each object header to 8 bytes too (L = 2 or 4).
std::size_t padded_header(std::size_t length) {
  return (8 + length + 7) & ~std::size_t{7};
}

std::optional<std::string> check_collection(std::span<const std::byte> image, std::uint64_t at, std::size_t length) {
  const std::string where = "HDF5 global heap collection at offset " + std::to_string(at);
  const std::size_t header = padded_header(length);
  if (image.size() - at < header) return where + ": truncated";
  if (std::to_integer<unsigned>(image[at + 4]) != 1) return std::nullopt;  // not a collection libhdf5 accepts
  const std::uint64_t size = read_le_width(image.data() + at + 8, length);
  if (size < header || size > image.size() - at) return where + ": its size " + std::to_string(size) + " is invalid";
  const std::size_t object_header = padded_header(length);
  for (std::uint64_t p = at + header, end = at + size; p < end;) {
    if (end - p < object_header) break;  // the rest is free space
    const auto index = read_le_width(image.data() + p, 2);
    const std::uint64_t object_size = read_le_width(image.data() + p + 8, length);
    if (index > 0 && object_size > end - p) return where + ": object " + std::to_string(index) + " overruns it";
    const std::uint64_t need = index > 0 ? object_header + ((object_size + 7) & ~std::uint64_t{7}) : object_size;
    if (need == 0) return where + ": a free-space entry of size 0";
    if (need > end - p) return where + ": an entry of " + std::to_string(need) + " bytes overruns it";
    p += need;
  }
  return std::nullopt;
}

// The objects of the collection at `at` (index -> size), walked as check_collection walks them.
std::optional<std::string> collection_objects(std::span<const std::byte> image, std::uint64_t at, std::size_t length,
                                              std::map<std::uint64_t, std::uint64_t>& objects) {
  const std::string where = "HDF5 global heap collection at offset " + std::to_string(at);
  if (at > image.size() || image.size() - at < padded_header(length) ||
      std::memcmp(image.data() + at, "GCOL", 4) != 0) {
    return where + ": no collection there";
  }
  if (auto problem = check_collection(image, at, length)) return problem;
  const std::uint64_t end = at + read_le_width(image.data() + at + 8, length);
  const std::size_t object_header = padded_header(length);
  for (std::uint64_t p = at + object_header; end - p >= object_header;) {
    const auto index = read_le_width(image.data() + p, 2);
    const std::uint64_t size = read_le_width(image.data() + p + 8, length);
    const std::uint64_t need = index > 0 ? object_header + ((size + 7) & ~std::uint64_t{7}) : size;
    if (need == 0 || need > end - p) break;  // check_collection refused these already
    if (index > 0) objects[index] = size;
    p += need;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_global_heap_value(std::span<const std::byte> image, std::size_t length_size,
                                                   std::uint64_t at, std::uint64_t index, std::uint64_t bytes,
                                                   Hdf5HeapObjects& objects) {
  auto found = objects.find(at);
  if (found == objects.end()) {
    std::map<std::uint64_t, std::uint64_t> walked;
    if (auto problem = collection_objects(image, at, length_size, walked)) return problem;
    found = objects.emplace(at, std::move(walked)).first;
  }
  const auto object = found->second.find(index);
  if (object == found->second.end()) {
    return "HDF5 global heap collection at offset " + std::to_string(at) + " has no object " + std::to_string(index);
  }
  if (object->second < bytes) {
    return "HDF5 global heap object " + std::to_string(index) + " at offset " + std::to_string(at) + " holds " +
           std::to_string(object->second) + " bytes, not the " + std::to_string(bytes) + " its value claims";
  }
  return std::nullopt;
}

std::optional<std::string> malformed_global_heap(std::span<const std::byte> image, std::size_t length_size,
                                                 const std::vector<std::pair<std::uint64_t, std::uint64_t>>& raw_data) {
  if (length_size != 2 && length_size != 4 && length_size != 8) return "HDF5 superblock: invalid size of lengths";
  std::vector<std::pair<std::uint64_t, std::uint64_t>> skip = raw_data;  // [offset, end) of contiguous data
  std::sort(skip.begin(), skip.end());
  skip.emplace_back(image.size(), image.size());
  std::uint64_t gap = 0;  // collections are metadata: they lie in the gaps between raw data
  for (const auto& [first, end] : skip) {
    for (std::uint64_t at = gap; first > at && first - at >= 4;) {
      const void* found = memmem(image.data() + at, first - at, "GCOL", 4);
      if (!found) break;
      const auto position = static_cast<std::uint64_t>(static_cast<const std::byte*>(found) - image.data());
      if (auto problem = check_collection(image, position, length_size)) return problem;
      at = position + 4;
    }
    gap = std::max(gap, end);
  }
  return std::nullopt;
}

}  // namespace blasscope::core
