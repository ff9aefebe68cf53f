#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace blasscope::core {

// Reads an unsigned little-endian integer of sizeof(T) bytes at `offset`; the caller has
// checked that the bytes are inside `bytes`.
template <typename T>
T read_le(std::span<const std::byte> bytes, std::uint64_t offset) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(std::to_integer<std::uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

// An unsigned little-endian integer of `width` bytes (1 to 8: HDF5's sizes of offsets and
// lengths are set per file); the caller has checked that they are readable.
inline std::uint64_t read_le_width(const std::byte* p, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = width; i-- > 0;) value = value << 8 | std::to_integer<std::uint64_t>(p[i]);
  return value;
}

inline bool has_prefix(std::span<const std::byte> bytes, const char* prefix, std::size_t length) {
  return bytes.size() >= length && std::memcmp(bytes.data(), prefix, length) == 0;
}

}  // namespace blasscope::core
