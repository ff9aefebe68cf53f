#include "io/hdf5_stream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "io/hdf5_filter_guard.h"
#include "io/input_error.h"
#include "io/little_endian.h"

namespace blasscope::core {
namespace {

constexpr std::uint64_t kBlockBytes = 8 << 20;      // one hyperslab read, before rounding to chunks
constexpr std::uint64_t kMaxBlockBytes = 64 << 20;  // after rounding up to whole chunks
constexpr std::size_t kChunkCacheBytes = 32 << 20;  // libhdf5's per-dataset chunk cache

class DatasetStream : public TensorByteStream {
 public:
  DatasetStream(std::shared_ptr<const Hdf5Image> image, const TensorInfo& tensor)
      : m_image(std::move(image)), m_name(tensor.name), m_total(tensor.nbytes) {
    hdf5_quiet();
    Hid access = hdf5_check(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose, "dataset '" + m_name + "': access list");
    H5Pset_chunk_cache(access.get(), 521, kChunkCacheBytes, 1.0);
    m_dataset = hdf5_check(H5Dopen2(m_image->file(), ("/" + m_name).c_str(), access.get()), H5Dclose,
                           "dataset '" + m_name + "': cannot open it");
    m_type = hdf5_check(H5Dget_type(m_dataset.get()), H5Tclose, "dataset '" + m_name + "': its datatype");
    m_create = hdf5_check(H5Dget_create_plist(m_dataset.get()), H5Pclose, "dataset '" + m_name + "': its properties");
    m_item = H5Tget_size(m_type.get());
    m_dims = tensor.shape;
    plan();
  }

  std::size_t read(std::span<std::byte> out) override {
    std::size_t written = 0;
    while (written < out.size() && m_done < m_total) {
      if (m_at == m_block.size()) next_block();
      const std::size_t n = std::min(out.size() - written, m_block.size() - m_at);
      std::memcpy(out.data() + written, m_block.data() + m_at, n);
      written += n;
      m_at += n;
      m_done += n;
    }
    return written;
  }

 private:
  // Splits at the first axis whose inner rows fit a block; outer axes advance one index at a time.
  void plan() {
    const std::size_t rank = m_dims.size();
    std::vector<hsize_t> chunk(rank, 0);
    if (rank > 0 && H5Pget_layout(m_create.get()) == H5D_CHUNKED) {
      H5Pget_chunk(m_create.get(), static_cast<int>(rank), chunk.data());
    }
    m_axis = rank == 0 ? 0 : rank - 1;
    m_inner = m_item;
    std::uint64_t inner = m_item;  // bytes of one index along axis k, the later axes whole
    for (std::size_t k = rank; k-- > 0;) {
      if (inner > kBlockBytes) break;
      m_axis = k;
      m_inner = inner;
      inner *= m_dims[k];  // the reader checked the whole product fits 64 bits
    }
    std::uint64_t rows = std::max<std::uint64_t>(1, kBlockBytes / std::max<std::uint64_t>(m_inner, 1));
    if (rank > 0) {
      const std::uint64_t c = chunk[m_axis];
      if (c > 1 && rows > c)
        rows -= rows % c;
      else if (c > rows && c * m_inner <= kMaxBlockBytes)
        rows = c;
      rows = std::min<std::uint64_t>(rows, m_dims[m_axis]);
    }
    m_rows = std::max<std::uint64_t>(rows, 1);
    m_outer.assign(m_axis, 0);
  }

  void next_block() {
    hdf5_quiet();  // the stream may be read on another thread than the one that opened it
    const std::size_t rank = m_dims.size();
    std::uint64_t rows = 1;
    Hid file_space = hdf5_check(H5Dget_space(m_dataset.get()), H5Sclose, "dataset '" + m_name + "': its dataspace");
    if (rank > 0) {
      rows = std::min<std::uint64_t>(m_rows, m_dims[m_axis] - m_pos);
      std::vector<hsize_t> start(rank, 0), count(m_dims.begin(), m_dims.end());
      for (std::size_t k = 0; k < m_axis; ++k) {
        start[k] = m_outer[k];
        count[k] = 1;
      }
      start[m_axis] = m_pos;
      count[m_axis] = rows;
      hdf5_check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                 "dataset '" + m_name + "': selecting a block");
    }
    const std::uint64_t bytes = rank > 0 ? rows * m_inner : m_item;
    const hsize_t elements = bytes / m_item;
    Hid memory_space = hdf5_check(H5Screate_simple(1, &elements, nullptr), H5Sclose, "dataset '" + m_name + "'");
    m_block.resize(bytes);
    const Hdf5ChunkReadGuard guard(m_create.get(), m_item);
    if (H5Dread(m_dataset.get(), m_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, m_block.data()) < 0) {
      if (!guard.failure().empty()) {
        H5Eclear2(H5E_DEFAULT);
        fail_malformed("dataset '" + m_name + "': " + guard.failure());
      }
      hdf5_check(herr_t{-1}, "dataset '" + m_name + "': reading its values failed");
    }
    m_at = 0;
    advance(rows);
  }

  void advance(std::uint64_t rows) {
    if (m_dims.empty()) return;
    m_pos += rows;
    if (m_pos < m_dims[m_axis]) return;
    m_pos = 0;
    for (std::size_t k = m_axis; k-- > 0;) {
      if (++m_outer[k] < m_dims[k]) return;
      m_outer[k] = 0;
    }
  }

  std::shared_ptr<const Hdf5Image> m_image;
  std::string m_name;
  std::uint64_t m_total = 0;
  std::uint64_t m_done = 0;
  Hid m_dataset;
  Hid m_type;
  Hid m_create;
  std::size_t m_item = 1;
  std::vector<std::uint64_t> m_dims;
  std::size_t m_axis = 0;              // the axis a block spans a range of
  std::uint64_t m_inner = 1;           // bytes of one index along m_axis (all later axes whole)
  std::uint64_t m_rows = 1;            // indices along m_axis per block
  std::uint64_t m_pos = 0;             // next index along m_axis
  std::vector<std::uint64_t> m_outer;  // current index on the axes before m_axis
  std::vector<std::byte> m_block;
  std::size_t m_at = 0;
};

// libhdf5 refuses a truncated file without saying so through its error stack when opened
// from an image; the superblock's end-of-file address says it plainly (HDF5 spec, superblock
// versions 0-3: the EOF address is the third address after the fixed fields).
Hdf5Layout check_superblock(std::span<const std::byte> image) {
  std::uint64_t at = 0;
  while (at < image.size() &&
         !(image.size() - at >= 8 && std::memcmp(image.data() + at, "\x89HDF\r\n\x1a\n", 8) == 0)) {
    at = at == 0 ? 512 : at * 2;
  }
  if (at >= image.size()) fail_malformed("not an HDF5 file: no superblock signature at 0, 512, 1024, ...");
  const auto sb = image.subspan(at);
  if (sb.size() < 16) fail_malformed("HDF5 superblock: truncated");
  const unsigned version = std::to_integer<unsigned>(sb[8]);
  const std::size_t offsets = std::to_integer<std::size_t>(version < 2 ? sb[13] : sb[9]);
  const std::size_t fixed = version == 0 ? 24 : version == 1 ? 28 : 12;
  if (version > 3) fail_unsupported("HDF5 superblock version " + std::to_string(version) + " (0-3 are read)");
  if (offsets != 2 && offsets != 4 && offsets != 8) {
    fail_malformed("HDF5 superblock: size of offsets is " + std::to_string(offsets) + " (2, 4 or 8)");
  }
  // The root group's header address: in the root symbol table entry after four addresses and
  // the link name offset, which libhdf5 reads as a length (versions 0-1); or the fourth
  // address (versions 2-3).
  const std::size_t lengths = std::to_integer<std::size_t>(version < 2 ? sb[14] : sb[10]);
  const std::size_t root_at = version < 2 ? fixed + 4 * offsets + lengths : fixed + 3 * offsets;
  if (sb.size() < root_at + offsets) fail_malformed("HDF5 superblock: truncated");
  // libhdf5 writes the end of file counting a user block too (h5py's userblock_size=512 files).
  const std::uint64_t eof = read_le_width(sb.data() + fixed + 2 * offsets, offsets);
  if (eof > image.size()) {
    fail_malformed("HDF5 superblock: the end-of-file address is " + std::to_string(eof) + " but the file has " +
                   std::to_string(image.size()) + " bytes: the file is truncated");
  }
  Hdf5Layout layout;
  layout.offset_size = offsets;
  layout.length_size = lengths;
  if (layout.length_size != 2 && layout.length_size != 4 && layout.length_size != 8) {
    fail_malformed("HDF5 superblock: size of lengths is " + std::to_string(layout.length_size) + " (2, 4 or 8)");
  }
  layout.base = at;  // libhdf5 moves the base address to where it found the superblock
  layout.root = read_le_width(sb.data() + root_at, offsets);
  return layout;
}

// File image callbacks that hand libhdf5 our mapped bytes wherever it would allocate and copy
// an image (property list set/copy/get, file open) and never free them: a read-only, zero-copy
// image. (H5LTopen_file_image does the same but leaks its bookkeeping when the open fails.)
void* image_malloc(std::size_t size, H5FD_file_image_op_t, void* udata) {
  auto* image = static_cast<std::span<const std::byte>*>(udata);
  return size == image->size() ? const_cast<std::byte*>(image->data()) : nullptr;
}
void* image_memcpy(void* dest, const void* src, std::size_t, H5FD_file_image_op_t, void*) {
  return dest == src ? dest : nullptr;
}
void* image_realloc(void*, std::size_t, H5FD_file_image_op_t, void*) {
  return nullptr;  // read-only: the image never grows
}
herr_t image_free(void*, H5FD_file_image_op_t, void*) {
  return 0;
}
void* udata_copy(void* udata) {
  return udata;
}
herr_t udata_free(void*) {
  return 0;
}

// libhdf5 treats two open files of the same name as one file, whatever their images: each
// image gets a name of its own, or a second file opened while the first is still open would
// read the first one's objects (and its mapping, after it is gone).
std::string unique_image_name() {
  static std::atomic<std::uint64_t> next{0};
  return "blasscope-image-" + std::to_string(next.fetch_add(1)) + ".h5";
}

}  // namespace

Hdf5Image::Hdf5Image(std::shared_ptr<const MappedFile> owner, std::span<const std::byte> image)
    : m_owner(std::move(owner)), m_size(image.size()) {
  hdf5_quiet();
  install_hdf5_filter_guards();
  m_layout = check_superblock(image);
  // libhdf5 reads the root group's header while opening the file: it is checked first.
  m_root_header = check_hdf5_object_header(image, m_layout, m_layout.root, "");
  m_image = std::make_unique<std::span<const std::byte>>(image);
  Hid access = hdf5_check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "HDF5 file access list");
  hdf5_check(H5Pset_fapl_core(access.get(), 1 << 16, false), "HDF5 core driver");
  H5FD_file_image_callbacks_t callbacks = {image_malloc, image_memcpy, image_realloc, image_free,
                                           udata_copy,   udata_free,   m_image.get()};
  hdf5_check(H5Pset_file_image_callbacks(access.get(), &callbacks), "HDF5 file image callbacks");
  hdf5_check(H5Pset_file_image(access.get(), const_cast<std::byte*>(image.data()), image.size()), "HDF5 file image");
  m_file = hdf5_check(H5Fopen(unique_image_name().c_str(), H5F_ACC_RDONLY, access.get()), H5Fclose,
                      "not a readable HDF5 file");
}

std::unique_ptr<TensorByteStream> Hdf5StreamSource::open(const TensorInfo& tensor) const {
  return std::make_unique<DatasetStream>(m_image, tensor);
}

}  // namespace blasscope::core
