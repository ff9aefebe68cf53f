#include "io/npy_reader.h"

#include "io/input_error.h"
#include "io/npy_header.h"

namespace blasscope::core {

TensorFile read_npy(std::shared_ptr<const MappedFile> mapping, const std::string& tensor_name) {
  const auto bytes = mapping->bytes();
  const NpyHeader header = parse_npy_header(bytes, bytes.size());
  const std::uint64_t after_header = bytes.size() - header.data_offset;
  if (header.nbytes > after_header) {
    fail_malformed("data: header describes " + std::to_string(header.nbytes) + " bytes but only " +
                   std::to_string(after_header) + " follow the header (truncated data)");
  }
  TensorInfo tensor;
  tensor.name = tensor_name;
  tensor.dtype = header.dtype;
  tensor.shape = header.shape;
  tensor.byte_order = header.byte_order;
  tensor.order = header.fortran_order ? MemoryOrder::Fortran : MemoryOrder::C;
  tensor.data_offset = header.data_offset;
  tensor.nbytes = header.nbytes;
  tensor.unread = header.unread;

  TensorFile file;
  file.path = mapping->path();
  file.format = FileFormat::Npy;
  file.file_size = bytes.size();
  file.tensors.push_back(std::move(tensor));
  file.mapping = std::move(mapping);
  return file;
}

}  // namespace blasscope::core
