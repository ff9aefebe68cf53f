#include "io/hdf5_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

#include "io/hdf5_attributes.h"
#include "io/hdf5_global_heap.h"
#include "io/hdf5_handle.h"
#include "io/hdf5_stream.h"
#include "io/hdf5_types.h"
#include "io/inflate_reader.h"
#include "io/input_error.h"

namespace blasscope::core {
namespace {

constexpr std::uint64_t kFillFactor = 1024;                 // logical bytes per file byte before we refuse
constexpr std::uint64_t kFillSlack = 64 << 20;              // ... plus this much, for tiny files
constexpr std::size_t kMaxObjects = 1 << 20;                // objects visited in one file
constexpr std::uint64_t kMaxInflatedWeights = 64ull << 30;  // a deflated model.weights.h5, inflated to disk
constexpr std::size_t kMaxJsonChars = Hdf5AttributeReader::kMaxValueChars;

struct Visited {
  std::string name;
  H5O_type_t type;
  Hdf5ObjectHeader header;
};

struct Link {
  std::string name;
  haddr_t address;
};

herr_t collect_link(hid_t, const char* name, const H5L_info_t* info, void* data) {
  auto& links = *static_cast<std::vector<Link>*>(data);
  if (info->type == H5L_TYPE_HARD) links.push_back({name, info->u.address});  // soft, external: not followed
  return links.size() >= kMaxObjects ? 1 : 0;
}

// Every object once, depth first along hard links in name order (what H5Ovisit does). Links are
// listed in native order and sorted here: libhdf5 1.10 builds a table for any other order of a
// dense group, and on a corrupt group frees that table's uninitialised entries (a crash found by
// fuzz_hdf5; tests/fuzz/regressions/hdf5). Each object's header is checked
// (io/hdf5_object_header.h) before libhdf5 reads it.
class GroupVisitor {
 public:
  GroupVisitor(const Hdf5Image& image, std::vector<Visited>& objects) : m_image(image), m_objects(objects) {}

  Hdf5ObjectHeader check(haddr_t address, const std::string& name) const {
    return check_hdf5_object_header(m_image.bytes(), m_image.layout(), address, name);
  }

  void visit(const std::string& path, int depth) {
    if (depth > 64) fail_unsupported("HDF5 groups nested more than 64 deep (at '" + path + "')");
    Hid group = hdf5_check(H5Gopen2(m_image.file(), path.empty() ? "/" : path.c_str(), H5P_DEFAULT), H5Gclose,
                           "group '" + path + "' cannot be opened");
    std::vector<Link> links;
    hsize_t index = 0;
    hdf5_check(H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_NATIVE, &index, collect_link, &links),
               "group '" + path + "': its links cannot be listed");
    std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) { return a.name < b.name; });
    for (const Link& link : links) {
      if (m_objects.size() >= kMaxObjects) return;
      const std::string name = path.empty() ? link.name : path + "/" + link.name;
      if (!m_seen.insert(link.address).second) continue;  // a second hard link to an object already listed
      Hdf5ObjectHeader header = check(link.address, name);
      H5O_info_t info;
      hdf5_check(H5Oget_info_by_name2(group.get(), link.name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT),
                 "object '" + name + "' cannot be read");
      m_objects.push_back({name, info.type, std::move(header)});
      if (info.type == H5O_TYPE_GROUP) visit(name, depth + 1);
    }
  }

  void mark_seen(haddr_t address) { m_seen.insert(address); }

 private:
  const Hdf5Image& m_image;
  std::vector<Visited>& m_objects;
  std::set<haddr_t> m_seen;
};

std::string quoted(const std::string& name) {
  return "dataset '" + name + "'";
}

bool multiply(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

std::string filter_label(H5Z_filter_t id, const char* name) {
  switch (id) {
    case 32000: return "lzf";
    case 32001: return "blosc";
    case 32004: return "lz4";
    case 32008: return "bitshuffle";
    case 32015: return "zstd";
    default: break;
  }
  return name && *name ? name : "unknown";
}

// The first filter of the pipeline libhdf5 cannot decode here, as "filter N (name) not available".
std::optional<std::string> unavailable_filter(hid_t create, bool& filtered) {
  const int count = H5Pget_nfilters(create);
  filtered = count > 0;
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 0;
    char name[128] = {};
    const H5Z_filter_t id =
        H5Pget_filter2(create, static_cast<unsigned>(i), &flags, &values, nullptr, sizeof name, name, &config);
    if (id < 0) return "its filter pipeline cannot be read (" + hdf5_error_text() + ")";
    unsigned info = 0;
    if (H5Zfilter_avail(id) <= 0 || H5Zget_filter_info(id, &info) < 0 || !(info & H5Z_FILTER_CONFIG_DECODE_ENABLED)) {
      H5Eclear2(H5E_DEFAULT);
      return "filter " + std::to_string(id) + " (" + filter_label(id, name) + ") not available";
    }
  }
  return std::nullopt;
}

// With H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS, libhdf5 1.10 reads a partial edge chunk unfiltered
// and uses it as a whole chunk whatever size its index entry gives (a read past the buffer, found
// by fuzz_hdf5): each edge chunk's stored size is checked first.
void check_unfiltered_edge_chunks(hid_t dataset, hid_t create, const TensorInfo& info, std::uint64_t item,
                                  const std::string& what) {
  unsigned options = 0;
  if (H5Pget_chunk_opts(create, &options) < 0 || !(options & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS)) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  const std::size_t rank = info.shape.size();
  std::vector<hsize_t> chunk(rank);
  if (rank == 0 || H5Pget_chunk(create, static_cast<int>(rank), chunk.data()) != static_cast<int>(rank)) {
    fail_malformed(what + ": its chunk shape cannot be read");
  }
  std::uint64_t chunk_bytes = item, total = 1;
  std::vector<std::uint64_t> grid(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    if (chunk[k] == 0) fail_malformed(what + ": a chunk dimension is 0");
    grid[k] = info.shape[k] / chunk[k] + (info.shape[k] % chunk[k] != 0);
    if (!multiply(chunk_bytes, chunk[k], chunk_bytes)) fail_malformed(what + ": its chunk size overflows 64 bits");
    if (!multiply(total, std::max<std::uint64_t>(grid[k], 1), total) || total > kMaxObjects) {
      fail_unsupported(what + ": stores partial edge chunks unfiltered and has more than " +
                       std::to_string(kMaxObjects) + " chunks to check");
    }
  }
  std::vector<std::uint64_t> index(rank, 0);
  std::vector<hsize_t> offset(rank);
  for (std::uint64_t n = 0; n < total && grid[0] > 0; ++n) {
    bool edge = false;
    for (std::size_t k = 0; k < rank; ++k) {
      offset[k] = index[k] * chunk[k];
      edge = edge || offset[k] + chunk[k] > info.shape[k];
    }
    unsigned mask = 0;
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    if (edge && H5Dget_chunk_info_by_coord(dataset, offset.data(), &mask, &address, &size) >= 0 &&
        address != HADDR_UNDEF && size != chunk_bytes) {
      fail_malformed(what + ": its partial edge chunk at element offset " + std::to_string(offset[0]) +
                     "... is stored unfiltered in " + std::to_string(size) + " bytes, not a whole chunk's " +
                     std::to_string(chunk_bytes));
    }
    H5Eclear2(H5E_DEFAULT);
    for (std::size_t k = rank; k-- > 0;) {
      if (++index[k] < grid[k]) break;
      index[k] = 0;
    }
  }
}

class Hdf5Walker {
 public:
  Hdf5Walker(TensorFile& file, std::shared_ptr<const Hdf5Image> image, std::optional<std::uint64_t> mapped_base)
      : m_file(file),
        m_image(std::move(image)),
        m_source(std::make_shared<Hdf5StreamSource>(m_image)),
        m_base(mapped_base),
        m_attributes(
            [this] { return malformed_global_heap(m_image->bytes(), m_image->layout().length_size, m_raw_data); }) {}

  void walk() {
    hdf5_quiet();
    std::vector<Visited> objects;
    GroupVisitor visitor(*m_image, objects);
    H5O_info_t root_info;
    hdf5_check(H5Oget_info_by_name2(m_image->file(), "/", &root_info, H5O_INFO_BASIC, H5P_DEFAULT), "HDF5 root group");
    visitor.mark_seen(root_info.addr);
    visitor.visit("", 0);
    if (objects.size() >= kMaxObjects) {
      fail_unsupported("HDF5 file holds more than " + std::to_string(kMaxObjects) + " objects");
    }
    for (const Visited& object : objects) {
      if (object.type == H5O_TYPE_DATASET) note_raw_data(object.name);
    }
    Hid root = hdf5_check(H5Gopen2(m_image->file(), "/", H5P_DEFAULT), H5Gclose, "HDF5 root group");
    m_attributes.read_all(root.get(), m_image->root_header(), "", m_file.metadata);
    for (const Visited& object : objects) {
      if (object.type == H5O_TYPE_DATASET) {
        add_dataset(object);
      } else if (object.type == H5O_TYPE_GROUP) {
        Hid group = hdf5_check(H5Gopen2(m_image->file(), object.name.c_str(), H5P_DEFAULT), H5Gclose,
                               "group '" + object.name + "' cannot be opened");
        m_attributes.read_all(group.get(), object.header, object.name, m_file.metadata);
      }
    }
  }

 private:
  // Where contiguous raw data lies, so the global heap check (io/hdf5_global_heap.h) skips it.
  void note_raw_data(const std::string& name) {
    Hid dataset(H5Dopen2(m_image->file(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) {
      H5Eclear2(H5E_DEFAULT);
      return;
    }
    const haddr_t offset = H5Dget_offset(dataset.get());
    const hsize_t size = H5Dget_storage_size(dataset.get());
    H5Eclear2(H5E_DEFAULT);
    if (offset != HADDR_UNDEF && offset <= m_image->size() && size <= m_image->size() - offset) {
      m_raw_data.emplace_back(offset, offset + size);
    }
  }

  void add_dataset(const Visited& object) {
    const std::string& name = object.name;
    const std::string what = quoted(name);
    Hid dataset(H5Dopen2(m_image->file(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) {
      // A dataset this libhdf5 cannot open (a feature of a newer HDF5, or a libhdf5 bug): listed
      // with libhdf5's reason, and the file's other datasets are still read. A dataset whose
      // header is corrupt was refused by check_hdf5_object_header before this.
      TensorInfo info;
      info.name = name;
      info.unread = UnreadDType{"unreadable", "?", "libhdf5 cannot open it (" + hdf5_error_text() + ")"};
      H5Eclear2(H5E_DEFAULT);
      m_file.tensors.push_back(std::move(info));
      return;
    }
    Hid type = hdf5_check(H5Dget_type(dataset.get()), H5Tclose, what + ": its datatype cannot be read");
    Hid space = hdf5_check(H5Dget_space(dataset.get()), H5Sclose, what + ": its dataspace cannot be read");
    Hid create = hdf5_check(H5Dget_create_plist(dataset.get()), H5Pclose, what + ": its creation properties");
    m_attributes.read_all(dataset.get(), object.header, name, m_file.metadata);

    TensorInfo info;
    info.name = name;
    const Hdf5ElementType element = map_hdf5_type(type.get());
    info.dtype = element.dtype;
    info.byte_order = element.byte_order;
    info.unread = element.unread;
    const std::uint64_t item = H5Tget_size(type.get());
    if (item == 0) fail_malformed(what + ": its datatype has size 0");

    const H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (space_class == H5S_NO_CLASS || rank < 0) fail_malformed(what + ": its dataspace is invalid");
    if (space_class == H5S_SIMPLE) {
      std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
      hdf5_check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), what + ": its dimensions");
      info.shape.assign(dims.begin(), dims.end());
    }
    std::uint64_t count = space_class == H5S_NULL ? 0 : 1;
    for (std::uint64_t dim : info.shape) {
      if (!multiply(count, dim, count)) fail_malformed(what + ": its dimensions overflow 64 bits");
    }
    if (!multiply(count, item, info.nbytes)) fail_malformed(what + ": its size in bytes overflows 64 bits");
    if (space_class == H5S_NULL && !info.unread) {
      info.unread = UnreadDType{"empty", std::string(core::name(info.dtype)), "an HDF5 null dataspace: no values"};
    }

    const H5D_layout_t layout = H5Pget_layout(create.get());
    if (!info.unread && layout == H5D_VIRTUAL) {
      info.unread = UnreadDType{"virtual", std::string(core::name(info.dtype)),
                                "a virtual dataset: its values live in other files, which BLAScope never opens"};
    }
    if (!info.unread && H5Pget_external_count(create.get()) > 0) {
      info.unread = UnreadDType{"external", std::string(core::name(info.dtype)),
                                "its raw data lives in external files, which BLAScope never opens"};
    }
    bool filtered = false;
    if (!info.unread) {
      if (auto missing = unavailable_filter(create.get(), filtered)) {
        info.unread = UnreadDType{"filter", std::string(core::name(info.dtype)), *missing};
      }
    }
    if (info.unread) {
      info.nbytes = H5Dget_storage_size(dataset.get());
      m_file.tensors.push_back(std::move(info));
      return;
    }

    if (layout == H5D_COMPACT && H5Dget_storage_size(dataset.get()) < info.nbytes) {
      // libhdf5 1.10 would copy the shape's bytes out of the smaller buffer (fuzz_hdf5).
      fail_malformed(what + ": its compact storage holds " + std::to_string(H5Dget_storage_size(dataset.get())) +
                     " bytes but its shape and datatype need " + std::to_string(info.nbytes));
    }
    if (layout == H5D_CHUNKED && filtered) check_unfiltered_edge_chunks(dataset.get(), create.get(), info, item, what);
    const haddr_t offset = layout == H5D_CONTIGUOUS ? H5Dget_offset(dataset.get()) : HADDR_UNDEF;
    if (offset != HADDR_UNDEF && info.nbytes > 0) {
      if (offset > m_image->size() || info.nbytes > m_image->size() - offset) {
        fail_malformed(what + ": its data (" + std::to_string(info.nbytes) + " bytes at offset " +
                       std::to_string(offset) + ") lies past the end of the file (" + std::to_string(m_image->size()) +
                       " bytes)");
      }
      if (m_base) {
        info.data_offset = *m_base + offset;
        m_file.tensors.push_back(std::move(info));
        return;
      }
    }
    H5Eclear2(H5E_DEFAULT);  // H5Dget_offset of unallocated storage leaves an error behind
    // Chunked, compact, never written (fill values) or in an inflated copy: libhdf5 delivers it.
    const std::uint64_t limit = m_image->size() > (std::numeric_limits<std::uint64_t>::max() - kFillSlack) / kFillFactor
                                    ? std::numeric_limits<std::uint64_t>::max()
                                    : m_image->size() * kFillFactor + kFillSlack;
    if (info.nbytes > limit) {
      fail_unsupported(what + ": claims " + std::to_string(info.nbytes) + " bytes of values in a file of " +
                       std::to_string(m_image->size()) + " bytes (more than " + std::to_string(kFillFactor) +
                       "x: unwritten chunks of fill values; refused so reading it cannot take hours)");
    }
    info.storage.kind = TensorStorage::Kind::Streamed;
    info.storage.source = m_source;
    info.storage.filtered = filtered;
    m_file.tensors.push_back(std::move(info));
  }

  TensorFile& m_file;
  std::shared_ptr<const Hdf5Image> m_image;
  std::shared_ptr<const TensorStreamSource> m_source;
  std::optional<std::uint64_t> m_base;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> m_raw_data;  // [offset, end) of contiguous datasets
  Hdf5AttributeReader m_attributes;
};

const ZipMember* find_member(const std::vector<ZipMember>& members, const std::string& name) {
  for (const ZipMember& m : members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string member_text(std::span<const std::byte> archive, const ZipMember& member) {
  std::string text;
  const std::size_t want = std::min<std::uint64_t>(member.uncompressed_size, kMaxJsonChars);
  text.resize(want);
  if (member.method == 0) {
    std::memcpy(text.data(), archive.data() + member.data_offset, want);
  } else if (member.method == 8) {
    InflateReader reader(archive.subspan(member.data_offset, member.compressed_size), member.uncompressed_size,
                         member.crc32, member.name);
    text.resize(reader.read(std::as_writable_bytes(std::span(text.data(), text.size()))));
  } else {
    fail_unsupported("Keras archive: member '" + member.name + "' uses compression method " +
                     std::to_string(member.method) + " (only stored and deflated are read)");
  }
  if (member.uncompressed_size > want) {
    text += "… (cut: " + std::to_string(member.uncompressed_size) + " bytes in all)";
  }
  return text;
}

// Inflates a deflated model.weights.h5 to an unlinked temporary file (never into memory) and maps it.
std::shared_ptr<const MappedFile> inflate_to_temporary(std::span<const std::byte> archive, const ZipMember& member) {
  if (member.uncompressed_size > kMaxInflatedWeights) {
    fail_unsupported("Keras archive: member '" + member.name + "' declares " +
                     std::to_string(member.uncompressed_size) + " bytes uncompressed (limit " +
                     std::to_string(kMaxInflatedWeights >> 30) + " GiB for a deflated weights file)");
  }
  std::string path = (std::filesystem::temp_directory_path() / "blasscope-keras-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0)
    throw InputError(InputError::Kind::Unreadable, "cannot create a temporary file to inflate " + member.name);
  struct Cleanup {
    int fd;
    std::string path;
    ~Cleanup() {
      ::close(fd);
      ::unlink(path.c_str());
    }
  } cleanup{fd, path};
  InflateReader reader(archive.subspan(member.data_offset, member.compressed_size), member.uncompressed_size,
                       member.crc32, member.name);
  std::vector<std::byte> buffer(4 << 20);
  for (std::size_t got; (got = reader.read(buffer)) > 0;) {
    for (std::size_t written = 0; written < got;) {
      const ssize_t n = ::write(fd, buffer.data() + written, got - written);
      if (n <= 0) {
        throw InputError(InputError::Kind::Unreadable,
                         "cannot write the inflated " + member.name + " to a temporary file (disk full?)");
      }
      written += static_cast<std::size_t>(n);
    }
    if (got < buffer.size()) break;
  }
  reader.finish();
  return std::make_shared<const MappedFile>(path);  // the mapping outlives the unlink
}

}  // namespace

TensorFile read_hdf5(std::shared_ptr<const MappedFile> mapping) {
  TensorFile file;
  file.path = mapping->path();
  file.format = FileFormat::Hdf5;
  file.file_size = mapping->size();
  auto image = std::make_shared<const Hdf5Image>(mapping, mapping->bytes());
  file.mapping = std::move(mapping);
  Hdf5Walker(file, std::move(image), 0).walk();
  return file;
}

bool is_keras_archive(const std::vector<ZipMember>& members) {
  return find_member(members, "model.weights.h5") ||
         (find_member(members, "config.json") && find_member(members, "metadata.json"));
}

TensorFile read_keras(std::shared_ptr<const MappedFile> mapping, const std::vector<ZipMember>& members) {
  TensorFile file;
  file.path = mapping->path();
  file.format = FileFormat::Keras;
  file.file_size = mapping->size();
  const auto archive = mapping->bytes();
  for (const char* json : {"config.json", "metadata.json"}) {
    if (const ZipMember* m = find_member(members, json)) file.metadata.emplace_back(json, member_text(archive, *m));
  }
  const ZipMember* weights = find_member(members, "model.weights.h5");
  if (!weights) fail_malformed("Keras archive: member 'model.weights.h5' is missing");
  std::shared_ptr<const Hdf5Image> image;
  std::optional<std::uint64_t> base;
  if (weights->method == 0) {
    if (weights->compressed_size != weights->uncompressed_size) {
      fail_malformed("Keras archive: stored member 'model.weights.h5' has compressed size " +
                     std::to_string(weights->compressed_size) + " but uncompressed size " +
                     std::to_string(weights->uncompressed_size));
    }
    image = std::make_shared<const Hdf5Image>(mapping, archive.subspan(weights->data_offset, weights->compressed_size));
    base = weights->data_offset;
  } else if (weights->method == 8) {
    auto inflated = inflate_to_temporary(archive, *weights);
    image = std::make_shared<const Hdf5Image>(inflated, inflated->bytes());
  } else {
    fail_unsupported("Keras archive: member 'model.weights.h5' uses compression method " +
                     std::to_string(weights->method) + " (only stored and deflated are read)");
  }
  file.mapping = std::move(mapping);
  Hdf5Walker(file, std::move(image), base).walk();
  return file;
}

}  // namespace blasscope::core
