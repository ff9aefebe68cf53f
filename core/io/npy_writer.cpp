#include "io/npy_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "io/input_error.h"
#include "tensor/element_codec.h"

namespace blasscope::core {

std::string npy_descr(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::Int8: return "|i1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::UInt8: return "|u1";
    case DType::UInt16: return "<u2";
    case DType::UInt32: return "<u4";
    case DType::UInt64: return "<u8";
    case DType::Float16: return "<f2";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Complex64: return "<c8";
    case DType::Complex128: return "<c16";
    default: return "<f4";  // bfloat16 and fp8 are written as float32
  }
}

namespace {

void write_npy_stream(std::ofstream& out, const std::string& path, const HostTensor& tensor) {
  const bool widen = npy_descr(tensor.dtype()) == "<f4" && tensor.dtype() != DType::Float32;
  std::string shape = "(";
  for (std::size_t i = 0; i < tensor.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  if (tensor.shape().size() == 1) shape += ",";
  shape += ")";
  const bool fortran = tensor.order() == MemoryOrder::Fortran && tensor.shape().size() > 1;
  std::string header = "{'descr': '" + npy_descr(tensor.dtype()) +
                       "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  out.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  const std::size_t size = item_size(tensor.dtype());
  const std::uint64_t count = tensor.element_count();
  if (!widen && !tensor.is_padded()) {
    // Dense storage already is the file's order.
    out.write(reinterpret_cast<const char*>(tensor.data()), static_cast<std::streamsize>(count * size));
    if (!out) throw InputError(InputError::Kind::Unreadable, "writing " + path + " failed");
    return;
  }
  // Storage order: C order walks flat indices; Fortran order walks them column-major.
  std::vector<std::uint64_t> shape_dims = tensor.shape();
  for (std::uint64_t s = 0; s < count; ++s) {
    std::uint64_t flat = s;
    if (fortran) {
      // Convert the column-major position s into the C-order flat index.
      std::uint64_t rest = s, stride = 1;
      std::vector<std::uint64_t> index(shape_dims.size());
      for (std::size_t d = 0; d < shape_dims.size(); ++d) {
        index[d] = rest % shape_dims[d];
        rest /= shape_dims[d];
      }
      flat = 0;
      for (std::size_t d = shape_dims.size(); d-- > 0;) {
        flat += index[d] * stride;
        stride *= shape_dims[d];
      }
    }
    const std::byte* p = tensor.data() + tensor.offset_of_flat(flat);
    if (widen) {
      const float v = static_cast<float>(load_element(tensor.dtype(), p).real());
      out.write(reinterpret_cast<const char*>(&v), 4);
    } else {
      out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(size));
    }
  }
  if (!out) throw InputError(InputError::Kind::Unreadable, "writing " + path + " failed");
}

}  // namespace

void write_npy(const std::string& path, const HostTensor& tensor) {
  // Written beside its name and renamed when complete: a run killed mid-write leaves no
  // truncated .npy that a later inspect would take for the op's result.
  const std::string temporary = path + ".part";
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(InputError::Kind::Unreadable, "cannot write " + path + ": " + std::strerror(errno));
    write_npy_stream(out, path, tensor);
    out.close();
    if (!out) throw InputError(InputError::Kind::Unreadable, "writing " + path + " failed");
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw InputError(InputError::Kind::Unreadable, "cannot write " + path + ": " + std::strerror(error));
  }
}

}  // namespace blasscope::core
