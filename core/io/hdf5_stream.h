#pragma once

#include <memory>
#include <span>

#include "io/hdf5_handle.h"
#include "io/hdf5_object_header.h"
#include "io/mapped_file.h"
#include "io/tensor_file.h"

namespace blasscope::core {

// An HDF5 file opened by libhdf5 from bytes in memory (the core driver over a file image,
// never copied): a whole mapped .h5 file, or a member of a .keras archive. Owns the mapping,
// so the bytes outlive every dataset read from them. libhdf5 never sees a path, so it can
// never open another file (external links and external raw data are refused by the reader).
class Hdf5Image {
 public:
  Hdf5Image(std::shared_ptr<const MappedFile> owner, std::span<const std::byte> image);
  hid_t file() const { return m_file.get(); }
  std::uint64_t size() const { return m_size; }
  std::span<const std::byte> bytes() const { return *m_image; }
  const Hdf5Layout& layout() const { return m_layout; }  // the superblock's sizes and base address
  const Hdf5ObjectHeader& root_header() const { return m_root_header; }

 private:
  std::shared_ptr<const MappedFile> m_owner;
  std::uint64_t m_size = 0;
  Hdf5Layout m_layout;
  Hdf5ObjectHeader m_root_header;
  std::unique_ptr<std::span<const std::byte>> m_image;  // libhdf5's udata: outlives the file
  Hid m_file;
};

// Streams a dataset's bytes as stored (the file's own datatype as memory type: no conversion,
// no byte swapping) in hyperslabs of a few MiB, aligned to the chunk shape along the axis it
// splits, so a tensor of any size is read in bounded memory. Chunk filters (gzip, shuffle,
// fletcher32) are undone by libhdf5; a corrupt chunk is an InputError naming the dataset.
class Hdf5StreamSource : public TensorStreamSource {
 public:
  explicit Hdf5StreamSource(std::shared_ptr<const Hdf5Image> image) : m_image(std::move(image)) {}
  std::unique_ptr<TensorByteStream> open(const TensorInfo& tensor) const override;

 private:
  std::shared_ptr<const Hdf5Image> m_image;
};

}  // namespace blasscope::core
