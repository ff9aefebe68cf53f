#include "io/tensor_data.h"

#include <cstring>

#include "io/inflate_reader.h"
#include "io/input_error.h"

namespace blasscope::core {

void read_tensor_bytes(const TensorFile& file, const TensorInfo& tensor, std::byte* dst) {
  if (tensor.storage.kind == TensorStorage::Kind::Mapped) {
    if (tensor.nbytes > 0)
      std::memcpy(dst, mapping_of(file, tensor).bytes().data() + tensor.data_offset, tensor.nbytes);
    return;
  }
  if (tensor.storage.kind == TensorStorage::Kind::Streamed) {
    const auto stream = tensor.storage.source->open(tensor);
    if (stream->read(std::span(dst, tensor.nbytes)) != tensor.nbytes) {
      fail_malformed("tensor '" + tensor.name + "': its data ends before " + std::to_string(tensor.nbytes) + " bytes");
    }
    return;
  }
  const auto& storage = tensor.storage;
  InflateReader reader(mapping_of(file, tensor).bytes().subspan(storage.stream_offset, storage.stream_size),
                       storage.member_size, storage.crc32, tensor.name);
  reader.skip(tensor.data_offset);
  reader.read(std::span(dst, tensor.nbytes));  // throws if the member ends early
  // A PyTorch view may end before its storage does; the rest is inflated to check the CRC-32.
  reader.skip(storage.member_size - tensor.data_offset - tensor.nbytes);
  reader.finish();
}

}  // namespace blasscope::core
