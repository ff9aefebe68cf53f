#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace blasscope::core {

// One member of a ZIP archive, as its central directory and local header describe it.
struct ZipMember {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t data_offset = 0;  // first byte of the (compressed) data in the archive
};

// Reads the central directory (ZIP64 included, as NumPy always writes it) and locates
// every member's data. Validates counts, sizes and offsets against the archive size
// before allocating; throws InputError naming the member and field.
std::vector<ZipMember> read_zip_directory(std::span<const std::byte> archive);

}  // namespace blasscope::core
