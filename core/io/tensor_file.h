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
  // The file holding the bytes when it is not the TensorFile's own (a shard of a sharded
  // checkpoint); null means TensorFile::mapping. Read it through mapping_of().
  std::shared_ptr<const MappedFile> mapping;
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
  // The shard file holding it (its name relative to the checkpoint), empty if not sharded.
  std::string shard;

  std::uint64_t element_count() const;
  // The values can be read as `dtype` (false for unread tensors and packed sub-byte floats).
  bool values_readable() const;
  // NumPy's name of the dtype, or the unread dtype's name.
  std::string dtype_name() const;
};

enum class FileFormat : std::uint8_t { Npy, Npz, Safetensors, PyTorch, Hdf5, Keras, Sharded };
std::string_view name(FileFormat format);

// One file of a sharded checkpoint, as the reader found it.
struct ShardSummary {
  std::string name;  // relative to the checkpoint's directory, as the index names it
  FileFormat format = FileFormat::Safetensors;
  std::uint64_t file_size = 0;
  std::size_t tensor_count = 0;
  std::uint64_t tensor_bytes = 0;
};

// Something a reader noticed that does not stop the file from being read (a tensor the
// index does not list); inspect turns it into a finding.
struct ReaderWarning {
  std::string id;
  std::string message;
  std::string tensor;  // empty when it is about the whole file
  std::vector<std::pair<std::string, std::string>> facts;
};

struct TensorFile {
  std::string path;
  FileFormat format = FileFormat::Npy;
  std::uint64_t file_size = 0;
  std::vector<TensorInfo> tensors;
  // safetensors __metadata__; a PyTorch checkpoint's non-tensor values ("epoch" -> "3");
  // HDF5 attributes ("group/path@name" -> value) and a .keras archive's config.json
  std::vector<std::pair<std::string, std::string>> metadata;
  // The file's own bytes; for a sharded checkpoint the index (null for a folder without
  // one), each tensor's shard being in TensorStorage::mapping.
  std::shared_ptr<const MappedFile> mapping;
  std::vector<ShardSummary> shards;  // sharded checkpoints only
  std::vector<ReaderWarning> warnings;
};

// The mapping holding `tensor`'s bytes: its shard's, or the file's own. Every reader of
// tensor bytes goes through this.
const MappedFile& mapping_of(const TensorFile& file, const TensorInfo& tensor);

}  // namespace blasscope::core
