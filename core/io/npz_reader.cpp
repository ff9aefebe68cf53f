#include "io/npz_reader.h"

#include <vector>

#include "io/inflate_reader.h"
#include "io/input_error.h"
#include "io/npy_header.h"
#include "io/recognised_formats.h"
#include "io/zip_directory.h"

namespace blasscope::core {
namespace {

std::string tensor_name_of(const std::string& member) {
  constexpr std::string_view suffix = ".npy";
  if (member.size() > suffix.size() && member.ends_with(suffix)) {
    return member.substr(0, member.size() - suffix.size());
  }
  return member;
}

// Reads the .npy preamble of a member; for deflated members only the preamble is inflated.
NpyHeader read_member_header(std::span<const std::byte> zip, const ZipMember& member) {
  const auto data = zip.subspan(member.data_offset, member.compressed_size);
  try {
    if (member.method == 0) return parse_npy_header(data, member.uncompressed_size);
    InflateReader reader(data, member.uncompressed_size, member.crc32, member.name);
    std::vector<std::byte> preamble(12);
    preamble.resize(reader.read(preamble));
    const std::uint64_t needed = std::min(npy_preamble_size(preamble), 12 + kMaxNpyHeaderBytes + 1);
    if (needed > preamble.size()) {
      const std::size_t have = preamble.size();
      preamble.resize(std::min<std::uint64_t>(needed, member.uncompressed_size));
      if (preamble.size() > have) {
        preamble.resize(have + reader.read(std::span(preamble).subspan(have)));
      }
    }
    return parse_npy_header(preamble, member.uncompressed_size);
  } catch (const InputError& error) {
    throw InputError(error.kind(), "member '" + member.name + "': " + error.what());
  }
}

}  // namespace

TensorFile read_npz(std::shared_ptr<const MappedFile> mapping) {
  const auto zip = mapping->bytes();
  TensorFile file;
  file.path = mapping->path();
  file.format = FileFormat::Npz;
  file.file_size = zip.size();
  const std::vector<ZipMember> members = read_zip_directory(zip);
  if (auto other = recognise_zip_format(members)) fail_unsupported(*other);
  for (const ZipMember& member : members) {
    if (member.name.ends_with('/')) continue;  // a directory entry holds no tensor
    const NpyHeader header = read_member_header(zip, member);
    const std::uint64_t described = header.data_offset + header.nbytes;
    if (described != member.uncompressed_size) {
      fail_malformed("member '" + member.name + "': the zip directory says " +
                     std::to_string(member.uncompressed_size) + " bytes uncompressed, but its .npy header describes " +
                     std::to_string(described) + (described > member.uncompressed_size ? " (truncated data)" : ""));
    }
    TensorInfo tensor;
    tensor.name = tensor_name_of(member.name);
    tensor.dtype = header.dtype;
    tensor.shape = header.shape;
    tensor.byte_order = header.byte_order;
    tensor.order = header.fortran_order ? MemoryOrder::Fortran : MemoryOrder::C;
    tensor.nbytes = header.nbytes;
    tensor.unread = header.unread;
    if (member.method == 0) {
      tensor.data_offset = member.data_offset + header.data_offset;
    } else {
      tensor.data_offset = header.data_offset;
      tensor.storage = TensorStorage{};
      tensor.storage.kind = TensorStorage::Kind::Deflated;
      tensor.storage.stream_offset = member.data_offset;
      tensor.storage.stream_size = member.compressed_size;
      tensor.storage.crc32 = member.crc32;
      tensor.storage.member_size = member.uncompressed_size;
    }
    file.tensors.push_back(std::move(tensor));
  }
  file.mapping = std::move(mapping);
  return file;
}

}  // namespace blasscope::core
