#include "io/zip_directory.h"

#include <algorithm>
#include <unordered_set>

#include "io/input_error.h"
#include "io/little_endian.h"

namespace blasscope::core {
namespace {

constexpr std::uint32_t kEndOfDirectorySig = 0x06054b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::uint32_t kZip64EndSig = 0x06064b50;
constexpr std::uint32_t kCentralHeaderSig = 0x02014b50;
constexpr std::uint32_t kLocalHeaderSig = 0x04034b50;
constexpr std::uint64_t kEndOfDirectorySize = 22;
constexpr std::uint64_t kCentralHeaderSize = 46;
constexpr std::uint64_t kLocalHeaderSize = 30;
constexpr std::uint16_t kZip64ExtraId = 0x0001;

struct Directory {
  std::uint64_t entries = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
};

bool fits(std::uint64_t offset, std::uint64_t length, std::uint64_t total) {
  return offset <= total && length <= total - offset;
}

std::uint64_t find_end_of_directory(std::span<const std::byte> zip) {
  if (zip.size() < kEndOfDirectorySize) fail_malformed("zip: too short to hold an end-of-directory record");
  const std::uint64_t last = zip.size() - kEndOfDirectorySize;
  const std::uint64_t first = last > 0xFFFF ? last - 0xFFFF : 0;  // the comment is at most 64 KiB
  for (std::uint64_t pos = last + 1; pos-- > first;) {
    if (read_le<std::uint32_t>(zip, pos) == kEndOfDirectorySig &&
        pos + kEndOfDirectorySize + read_le<std::uint16_t>(zip, pos + 20) == zip.size()) {
      return pos;
    }
  }
  fail_malformed("zip: no end-of-central-directory record (truncated or not a zip archive)");
}

Directory read_directory_location(std::span<const std::byte> zip) {
  const std::uint64_t end = find_end_of_directory(zip);
  if (read_le<std::uint16_t>(zip, end + 4) != 0 || read_le<std::uint16_t>(zip, end + 6) != 0) {
    fail_unsupported("zip: multi-disk (split) archives are not supported");
  }
  Directory dir{read_le<std::uint16_t>(zip, end + 10), read_le<std::uint32_t>(zip, end + 12),
                read_le<std::uint32_t>(zip, end + 16)};
  const bool zip64 = dir.entries == 0xFFFF || dir.size == 0xFFFFFFFF || dir.offset == 0xFFFFFFFF;
  if (end >= 20 && read_le<std::uint32_t>(zip, end - 20) == kZip64LocatorSig) {
    const std::uint64_t record = read_le<std::uint64_t>(zip, end - 20 + 8);
    if (!fits(record, 56, zip.size()) || read_le<std::uint32_t>(zip, record) != kZip64EndSig) {
      fail_malformed("zip: ZIP64 end-of-directory record is missing or outside the file");
    }
    dir = {read_le<std::uint64_t>(zip, record + 32), read_le<std::uint64_t>(zip, record + 40),
           read_le<std::uint64_t>(zip, record + 48)};
  } else if (zip64) {
    fail_malformed("zip: sizes need ZIP64 but there is no ZIP64 locator");
  }
  if (!fits(dir.offset, dir.size, zip.size())) {
    fail_malformed("zip: central directory (offset " + std::to_string(dir.offset) + ", " + std::to_string(dir.size) +
                   " bytes) lies outside the file");
  }
  if (dir.entries > dir.size / kCentralHeaderSize) {
    fail_malformed("zip: directory claims " + std::to_string(dir.entries) + " entries, more than its " +
                   std::to_string(dir.size) + " bytes can hold");
  }
  return dir;
}

// Applies the ZIP64 extended-information extra field to the fields that overflowed.
void apply_zip64_extra(std::span<const std::byte> extra, ZipMember& member, std::uint64_t& local_offset,
                       bool need_usize, bool need_csize, bool need_offset) {
  std::uint64_t pos = 0;
  while (pos + 4 <= extra.size()) {
    const auto id = read_le<std::uint16_t>(extra, pos);
    const auto size = read_le<std::uint16_t>(extra, pos + 2);
    if (!fits(pos + 4, size, extra.size())) break;
    if (id == kZip64ExtraId) {
      std::uint64_t field = pos + 4;
      const std::uint64_t field_end = field + size;
      auto take = [&](bool needed, std::uint64_t& target) {
        if (!needed) return;
        if (field + 8 > field_end) fail_malformed("zip: member '" + member.name + "': ZIP64 extra field too short");
        target = read_le<std::uint64_t>(extra, field);
        field += 8;
      };
      take(need_usize, member.uncompressed_size);
      take(need_csize, member.compressed_size);
      take(need_offset, local_offset);
      return;
    }
    pos += 4 + size;
  }
  if (need_usize || need_csize || need_offset) {
    fail_malformed("zip: member '" + member.name + "': ZIP64 sizes announced but no ZIP64 extra field");
  }
}

void locate_data(std::span<const std::byte> zip, std::uint64_t local_offset, ZipMember& member) {
  if (!fits(local_offset, kLocalHeaderSize, zip.size()) ||
      read_le<std::uint32_t>(zip, local_offset) != kLocalHeaderSig) {
    fail_malformed("zip: member '" + member.name + "': local header missing at offset " + std::to_string(local_offset));
  }
  const std::uint64_t name_length = read_le<std::uint16_t>(zip, local_offset + 26);
  const std::uint64_t extra_length = read_le<std::uint16_t>(zip, local_offset + 28);
  member.data_offset = local_offset + kLocalHeaderSize + name_length + extra_length;
  if (!fits(member.data_offset, member.compressed_size, zip.size())) {
    fail_malformed("zip: member '" + member.name + "': " + std::to_string(member.compressed_size) +
                   " bytes of data at offset " + std::to_string(member.data_offset) +
                   " run past the end of the file (" + std::to_string(zip.size()) + " bytes)");
  }
}

}  // namespace

std::vector<ZipMember> read_zip_directory(std::span<const std::byte> zip) {
  const Directory dir = read_directory_location(zip);
  std::vector<ZipMember> members;
  members.reserve(dir.entries);
  std::unordered_set<std::string> names;
  std::uint64_t pos = dir.offset;
  const std::uint64_t dir_end = dir.offset + dir.size;
  for (std::uint64_t i = 0; i < dir.entries; ++i) {
    if (!fits(pos, kCentralHeaderSize, dir_end) || read_le<std::uint32_t>(zip, pos) != kCentralHeaderSig) {
      fail_malformed("zip: central directory entry " + std::to_string(i) + " is damaged");
    }
    ZipMember member;
    const auto flags = read_le<std::uint16_t>(zip, pos + 8);
    member.method = read_le<std::uint16_t>(zip, pos + 10);
    member.crc32 = read_le<std::uint32_t>(zip, pos + 16);
    member.compressed_size = read_le<std::uint32_t>(zip, pos + 20);
    member.uncompressed_size = read_le<std::uint32_t>(zip, pos + 24);
    const std::uint64_t name_length = read_le<std::uint16_t>(zip, pos + 28);
    const std::uint64_t extra_length = read_le<std::uint16_t>(zip, pos + 30);
    const std::uint64_t comment_length = read_le<std::uint16_t>(zip, pos + 32);
    std::uint64_t local_offset = read_le<std::uint32_t>(zip, pos + 42);
    const std::uint64_t variable = name_length + extra_length + comment_length;
    if (!fits(pos + kCentralHeaderSize, variable, dir_end)) {
      fail_malformed("zip: central directory entry " + std::to_string(i) + " runs past the directory");
    }
    member.name.assign(reinterpret_cast<const char*>(zip.data() + pos + kCentralHeaderSize), name_length);
    apply_zip64_extra(zip.subspan(pos + kCentralHeaderSize + name_length, extra_length), member, local_offset,
                      member.uncompressed_size == 0xFFFFFFFF, member.compressed_size == 0xFFFFFFFF,
                      local_offset == 0xFFFFFFFF);
    if (flags & 0x1) fail_unsupported("zip: member '" + member.name + "' is encrypted");
    if (member.method != 0 && member.method != 8) {
      fail_unsupported("zip: member '" + member.name + "' uses compression method " + std::to_string(member.method) +
                       "; only stored (0) and deflate (8) are supported");
    }
    if (member.method == 0 && member.compressed_size != member.uncompressed_size) {
      fail_malformed("zip: stored member '" + member.name + "' has different compressed and uncompressed sizes");
    }
    if (!names.insert(member.name).second) fail_malformed("zip: duplicate member '" + member.name + "'");
    locate_data(zip, local_offset, member);
    members.push_back(std::move(member));
    pos += kCentralHeaderSize + variable;
  }
  return members;
}

}  // namespace blasscope::core
