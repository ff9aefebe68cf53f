#include "io/npy_header.h"

#include <string_view>

#include "io/input_error.h"
#include "io/little_endian.h"
#include "io/python_literal.h"
#include "io/unread_dtype.h"

namespace blasscope::core {
namespace {

constexpr std::uint64_t kMagicLength = 6;
constexpr char kMagic[] = "\x93NUMPY";

struct DescrCode {
  char kind;
  int size;
  DType dtype;
};

constexpr DescrCode kDescrCodes[] = {
    {'b', 1, DType::Bool},    {'?', 1, DType::Bool},      {'i', 1, DType::Int8},        {'i', 2, DType::Int16},
    {'i', 4, DType::Int32},   {'i', 8, DType::Int64},     {'u', 1, DType::UInt8},       {'u', 2, DType::UInt16},
    {'u', 4, DType::UInt32},  {'u', 8, DType::UInt64},    {'f', 2, DType::Float16},     {'f', 4, DType::Float32},
    {'f', 8, DType::Float64}, {'c', 8, DType::Complex64}, {'c', 16, DType::Complex128},
};

std::string refusal_for_kind(char kind, const std::string& descr) {
  switch (kind) {
    case 'O': return "object arrays (dtype '" + descr + "') hold pickled Python objects; BLAScope never unpickles";
    case 'S':
    case 'a':
    case 'U': return "string dtype '" + descr + "' holds text, not numbers";
    case 'V': return "void/structured dtype '" + descr + "' is not a numeric tensor";
    case 'M':
    case 'm': return "datetime dtype '" + descr + "' is not supported by BLAS";
    default: return "dtype '" + descr + "' is not supported";
  }
}

std::uint64_t checked_multiply(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    fail_malformed(std::string("shape: ") + what + " overflows 64 bits");
  }
  return product;
}

const PyValue& dict_entry(const PyValue& dict, std::string_view key) {
  for (const auto& [k, v] : dict.entries) {
    if (k.type == PyValue::Type::String && k.text == key) return v;
  }
  fail_malformed("header: missing key '" + std::string(key) + "'");
}

void check_header_keys(const PyValue& dict) {
  if (dict.type != PyValue::Type::Dict) {
    fail_malformed("header: expected a dict, found a " + std::string(dict.type_name()));
  }
  int seen = 0;
  for (const auto& [key, value] : dict.entries) {
    if (key.type != PyValue::Type::String) fail_malformed("header: dict keys must be strings");
    if (key.text != "descr" && key.text != "fortran_order" && key.text != "shape") {
      fail_malformed("header: unexpected key '" + key.text +
                     "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");
    }
    ++seen;
  }
  if (seen > 3) fail_malformed("header: duplicate keys in the header dict");
}

}  // namespace

void parse_npy_descr(const std::string& descr, DType& dtype, ByteOrder& byte_order) {
  if (descr.size() < 2) fail_unsupported("descr: '" + descr + "' is not a dtype NumPy writes");
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    fail_unsupported("descr: '" + descr + "' has no byte-order character (<, >, |, =)");
  }
  const char kind = descr[1];
  const std::string digits = descr.substr(2);
  int size = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || size > 1000) {
      fail_unsupported("descr: " + refusal_for_kind(kind, descr));
    }
    size = size * 10 + (c - '0');
  }
  if (kind == '?' && digits.empty()) size = 1;
  for (const auto& code : kDescrCodes) {
    if (code.kind == kind && code.size == size) {
      dtype = code.dtype;
      if (size == 1) {
        byte_order = ByteOrder::NotApplicable;
      } else if (order == '|') {
        fail_malformed("descr: '" + descr + "' is multi-byte but declares no byte order ('|')");
      } else {
        // '=' is native order, little endian on every platform BLAScope runs on.
        byte_order = order == '>' ? ByteOrder::Big : ByteOrder::Little;
      }
      return;
    }
  }
  if (kind == 'f' && (size == 12 || size == 16)) {
    fail_unsupported("descr: '" + descr + "' is long double (float" + std::to_string(size * 8) +
                     "), which no BLAS library supports");
  }
  if (kind == 'c' && size == 32) fail_unsupported("descr: '" + descr + "' is complex256 (long double)");
  fail_unsupported("descr: " + refusal_for_kind(kind, descr));
}

std::uint64_t npy_preamble_size(std::span<const std::byte> first) {
  if (first.size() < 10) return 10;
  const auto major = std::to_integer<int>(first[6]);
  if (major == 1) return 10 + read_le<std::uint16_t>(first, 8);
  return 12 + (first.size() >= 12 ? read_le<std::uint32_t>(first, 8) : 0);
}

NpyHeader parse_npy_header(std::span<const std::byte> prefix, std::uint64_t available) {
  if (!has_prefix(prefix, kMagic, kMagicLength)) {
    fail_malformed("magic: not a .npy stream (expected \\x93NUMPY)");
  }
  if (available < 10 || prefix.size() < 10) fail_malformed("header: truncated before the version bytes");
  NpyHeader header;
  const int major = std::to_integer<int>(prefix[6]);
  const int minor = std::to_integer<int>(prefix[7]);
  if (major < 1 || major > 3 || minor != 0) {
    fail_unsupported("version: format version " + std::to_string(major) + "." + std::to_string(minor) +
                     " is not one of 1.0, 2.0, 3.0");
  }
  header.major_version = major;
  const std::uint64_t length_field = major == 1 ? 2 : 4;
  if (available < 8 + length_field || prefix.size() < 8 + length_field) {
    fail_malformed("header: truncated inside the header-length field");
  }
  const std::uint64_t header_length =
      major == 1 ? read_le<std::uint16_t>(prefix, 8) : read_le<std::uint32_t>(prefix, 8);
  if (header_length > kMaxNpyHeaderBytes) {
    fail_malformed("header: length " + std::to_string(header_length) + " exceeds the limit of " +
                   std::to_string(kMaxNpyHeaderBytes) + " bytes");
  }
  const std::uint64_t header_start = 8 + length_field;
  header.data_offset = header_start + header_length;
  if (header.data_offset > available || header.data_offset > prefix.size()) {
    fail_malformed("header: declares " + std::to_string(header_length) + " bytes but only " +
                   std::to_string(available - header_start) + " follow (truncated header)");
  }
  const std::string_view text(reinterpret_cast<const char*>(prefix.data() + header_start), header_length);
  // NumPy drops Python 2's long suffix (`(2L,)`) in version 1.0 and 2.0 headers only.
  const PyValue dict = parse_python_literal(text, "header", {.python2_long_suffix = major <= 2});
  check_header_keys(dict);

  const PyValue& descr = dict_entry(dict, "descr");
  header.unread = unread_npy_descr(descr);
  if (header.unread) {
    header.dtype = DType::UInt8;  // a placeholder: these values are never read
    header.byte_order = ByteOrder::NotApplicable;
  } else if (descr.type != PyValue::Type::String) {
    fail_malformed("descr: expected a string, found a " + std::string(descr.type_name()));
  } else {
    parse_npy_descr(descr.text, header.dtype, header.byte_order);
  }

  const PyValue& fortran = dict_entry(dict, "fortran_order");
  if (fortran.type != PyValue::Type::Bool) {
    fail_malformed("fortran_order: expected True or False, found a " + std::string(fortran.type_name()));
  }
  header.fortran_order = fortran.boolean;

  const PyValue& shape = dict_entry(dict, "shape");
  if (shape.type != PyValue::Type::Tuple) {
    fail_malformed("shape: expected a tuple, found a " + std::string(shape.type_name()));
  }
  if (shape.items.size() > 64) fail_malformed("shape: more than 64 dimensions");
  std::uint64_t count = 1;
  for (const auto& dim : shape.items) {
    if (dim.type != PyValue::Type::Int) fail_malformed("shape: dimensions must be integers");
    if (dim.integer_overflow) fail_malformed("shape: a dimension does not fit in 64 bits");
    if (dim.integer < 0) fail_malformed("shape: negative dimension " + std::to_string(dim.integer));
    header.shape.push_back(static_cast<std::uint64_t>(dim.integer));
    count = checked_multiply(count, header.shape.back(), "the element count");
  }
  // Unread values (strings, records, pickles) are not sized from the header: they are whatever follows it.
  header.nbytes = header.unread ? available - header.data_offset
                                : checked_multiply(count, item_size(header.dtype), "the byte size");
  return header;
}

}  // namespace blasscope::core
