#include "io/hdf5_types.h"

#include <cstring>
#include <string>

#include "io/hdf5_handle.h"

namespace blasscope::core {
namespace {

Hdf5ElementType unread(std::string category, std::string name, std::string reason) {
  Hdf5ElementType t;
  t.unread = UnreadDType{std::move(category), std::move(name), std::move(reason)};
  return t;
}

ByteOrder order_of(hid_t type, std::size_t size) {
  if (size == 1) return ByteOrder::NotApplicable;
  return H5Tget_order(type) == H5T_ORDER_BE ? ByteOrder::Big : ByteOrder::Little;
}

// An IEEE binary16/32/64 layout: the bits where IEEE puts them, no padding.
std::optional<DType> ieee_float(hid_t type) {
  const std::size_t size = H5Tget_size(type);
  std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
  if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0) return std::nullopt;
  if (H5Tget_offset(type) != 0 || H5Tget_precision(type) != size * 8) return std::nullopt;
  const auto layout = [&](std::size_t e, std::size_t m, std::size_t bias) {
    return spos == size * 8 - 1 && epos == m && esize == e && mpos == 0 && msize == m && H5Tget_ebias(type) == bias;
  };
  if (size == 2 && layout(5, 10, 15)) return DType::Float16;
  if (size == 4 && layout(8, 23, 127)) return DType::Float32;
  if (size == 8 && layout(11, 52, 1023)) return DType::Float64;
  return std::nullopt;
}

std::optional<DType> plain_integer(hid_t type) {
  const std::size_t size = H5Tget_size(type);
  if (H5Tget_offset(type) != 0 || H5Tget_precision(type) != size * 8) return std::nullopt;
  const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
  switch (size) {
    case 1: return is_signed ? DType::Int8 : DType::UInt8;
    case 2: return is_signed ? DType::Int16 : DType::UInt16;
    case 4: return is_signed ? DType::Int32 : DType::UInt32;
    case 8: return is_signed ? DType::Int64 : DType::UInt64;
    default: return std::nullopt;
  }
}

// h5py stores numpy bool as an enum over int8 with members FALSE=0 and TRUE=1.
bool is_h5py_bool(hid_t type) {
  if (H5Tget_size(type) != 1 || H5Tget_nmembers(type) != 2) return false;
  Hid base(H5Tget_super(type), H5Tclose);
  if (!base.valid() || plain_integer(base.get()) != DType::Int8) return false;
  for (unsigned i = 0; i < 2; ++i) {
    std::int8_t value = -1;
    char* member = H5Tget_member_name(type, i);
    const bool named = member && std::strcmp(member, i == 0 ? "FALSE" : "TRUE") == 0;
    H5free_memory(member);
    if (!named || H5Tget_member_value(type, i, &value) < 0 || value != static_cast<std::int8_t>(i)) return false;
  }
  return true;
}

// h5py stores numpy complex as a compound {r, i} of two equal floats, packed.
std::optional<Hdf5ElementType> h5py_complex(hid_t type) {
  if (H5Tget_nmembers(type) != 2) return std::nullopt;
  const std::size_t size = H5Tget_size(type);
  Hid real(H5Tget_member_type(type, 0), H5Tclose);
  Hid imag(H5Tget_member_type(type, 1), H5Tclose);
  if (!real.valid() || !imag.valid() || H5Tget_class(real.get()) != H5T_FLOAT ||
      H5Tequal(real.get(), imag.get()) <= 0) {
    return std::nullopt;
  }
  const auto part = ieee_float(real.get());
  if (!part || H5Tget_member_offset(type, 0) != 0 || H5Tget_member_offset(type, 1) != size / 2) return std::nullopt;
  char* r = H5Tget_member_name(type, 0);
  char* i = H5Tget_member_name(type, 1);
  const bool named = r && i && std::strcmp(r, "r") == 0 && std::strcmp(i, "i") == 0;
  H5free_memory(r);
  H5free_memory(i);
  if (!named) return std::nullopt;
  Hdf5ElementType t;
  if (*part == DType::Float32 && size == 8)
    t.dtype = DType::Complex64;
  else if (*part == DType::Float64 && size == 16)
    t.dtype = DType::Complex128;
  else
    return std::nullopt;
  t.byte_order = order_of(real.get(), 8);
  return t;
}

}  // namespace

Hdf5ElementType map_hdf5_type(hid_t type) {
  const std::size_t size = H5Tget_size(type);
  const std::string bytes = std::to_string(size) + "-byte";
  switch (H5Tget_class(type)) {
    case H5T_FLOAT:
      if (auto dtype = ieee_float(type)) return {*dtype, order_of(type, size), std::nullopt};
      return unread("float", "float" + std::to_string(size * 8),
                    "a " + bytes + " float that is not IEEE binary16/32/64 (long double or a custom layout)");
    case H5T_INTEGER:
      if (auto dtype = plain_integer(type)) return {*dtype, order_of(type, size), std::nullopt};
      return unread("integer", "int" + std::to_string(size * 8), "an integer with padding bits or an unusual width");
    case H5T_ENUM:
      if (is_h5py_bool(type)) return {DType::Bool, ByteOrder::NotApplicable, std::nullopt};
      return unread("enum", "enum", "an HDF5 enum: named integer labels, not numbers a BLAS routine takes");
    case H5T_COMPOUND:
      if (auto complex = h5py_complex(type)) return *complex;
      return unread("structured", "compound", "an HDF5 compound (a record of named fields)");
    case H5T_STRING:
      return unread("strings", H5Tis_variable_str(type) > 0 ? "vlen string" : "string" + std::to_string(size),
                    "text, not numbers");
    case H5T_VLEN: return unread("vlen", "vlen", "variable-length sequences (ragged rows stored on the heap)");
    case H5T_REFERENCE: return unread("reference", "reference", "references to other HDF5 objects or regions");
    case H5T_OPAQUE: return unread("opaque", "opaque", "opaque bytes of unknown meaning");
    case H5T_BITFIELD: return unread("bitfield", "bitfield", "a bit field, not numbers");
    case H5T_ARRAY: return unread("array", "array", "each element is itself a fixed-size array (an HDF5 array type)");
    case H5T_TIME: return unread("datetime", "time", "HDF5 time values");
    default: break;
  }
  return unread("unknown", "unknown", "an HDF5 datatype class BLAScope does not know");
}

}  // namespace blasscope::core
