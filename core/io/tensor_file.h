#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/mapped_file.h"
#include "io/unread_dtype.h"
#include "tensor/dtype.h"

namespace blasscope::core {

struct TensorInfo;

// The bytes of one tensor, as stored (no byte swapping), front to back in bounded pieces.
class TensorByteStream {
 public:
  virtual ~TensorByteStream() = default;
  // Fills `out` completely unless the tensor ends first; returns the bytes written.
  // Throws InputError naming the tensor for data the file cannot deliver (corrupt chunks).
  virtual std::size_t read(std::span<std::byte> out) = 0;
};

// Opens streams over tensors whose bytes a library decodes (HDF5 chunked or filtered data).
class TensorStreamSource {
 public:
  virtual ~TensorStreamSource() = default;
  virtual std::unique_ptr<TensorByteStream> open(const TensorInfo& tensor) const = 0;
};

// Where a tensor's bytes live: directly addressable in the mapped file, inside a deflate
// stream (an np.savez_compressed member) that must be inflated to be read, or behind a
// stream source (HDF5 chunks, read through libhdf5).
struct TensorStorage {
  enum class Kind : std::uint8_t { Mapped, Deflated, Streamed };
  Kind kind = Kind::Mapped;
  std::uint64_t stream_offset = 0;                             // Deflated: offset of the compressed stream in the file
  std::uint64_t stream_size = 0;                               // Deflated: compressed size
  std::uint32_t crc32 = 0;                                     // Deflated: CRC-32 of the whole uncompressed member
  std::uint64_t member_size = 0;                               // Deflated: uncompressed size of the whole member
  std::shared_ptr<const TensorStreamSource> source = nullptr;  // Streamed: opens the tensor's byte stream
  bool filtered = false;                                       // Streamed: compressed or checksummed in the file
};

struct TensorInfo {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<std::uint64_t> shape;
  ByteOrder byte_order = ByteOrder::Little;
  MemoryOrder order = MemoryOrder::C;
  // Offset of the first data byte: in the file for mapped storage, in the uncompressed
  // member for deflated storage.
  std::uint64_t data_offset = 0;
  std::uint64_t nbytes = 0;
  TensorStorage storage;
  // Set for a tensor that is listed but whose values are never read (strings, structured,
  // object, long double...). `dtype` is then a placeholder and `nbytes` is what the file stores.
  std::optional<UnreadDType> unread;

  std::uint64_t element_count() const;
  // The values can be read as `dtype` (false for unread tensors and packed sub-byte floats).
  bool values_readable() const;
  // NumPy's name of the dtype, or the unread dtype's name.
  std::string dtype_name() const;
};

enum class FileFormat : std::uint8_t { Npy, Npz, Safetensors, PyTorch, Hdf5, Keras };
std::string_view name(FileFormat format);

struct TensorFile {
  std::string path;
  FileFormat format = FileFormat::Npy;
  std::uint64_t file_size = 0;
  std::vector<TensorInfo> tensors;
  // safetensors __metadata__; a PyTorch checkpoint's non-tensor values ("epoch" -> "3");
  // HDF5 attributes ("group/path@name" -> value) and a .keras archive's config.json
  std::vector<std::pair<std::string, std::string>> metadata;
  std::shared_ptr<const MappedFile> mapping;
};

}  // namespace blasscope::core
