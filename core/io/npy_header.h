#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/unread_dtype.h"
#include "tensor/dtype.h"

namespace blasscope::core {

// The parsed preamble of a .npy file (format versions 1.0, 2.0 and 3.0).
struct NpyHeader {
  int major_version = 1;
  DType dtype = DType::Float32;
  ByteOrder byte_order = ByteOrder::Little;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;  // bytes from the start of the .npy stream to the data
  std::uint64_t nbytes = 0;       // element count x item size, overflow-checked
  // A dtype that is understood but not read (strings, structured, object...): `dtype` is a
  // placeholder and `nbytes` is every byte after the header, whatever it holds.
  std::optional<UnreadDType> unread;
};

// Largest header BLAScope reads; NumPy's own default limit is 10000 bytes.
inline constexpr std::uint64_t kMaxNpyHeaderBytes = 1 << 20;

// Parses the magic, version, header length and header dict from the first bytes of a
// .npy stream. Throws InputError naming the field and what was wrong. `available` is
// how many bytes the stream holds in all, used to reject truncated headers. Version 1.0
// and 2.0 headers may carry Python 2 long integers (`2L`), as NumPy accepts.
NpyHeader parse_npy_header(std::span<const std::byte> prefix, std::uint64_t available);

// Bytes of the preamble needed before parse_npy_header can succeed (at most 10 + limit).
std::uint64_t npy_preamble_size(std::span<const std::byte> first_ten_bytes);

// Translates a NumPy dtype descriptor ('<f4', '|b1', '>c16', ...) into a dtype and order;
// throws for every other descriptor, including those unread_npy_descr (unread_dtype.h) names.
void parse_npy_descr(const std::string& descr, DType& dtype, ByteOrder& byte_order);

}  // namespace blasscope::core
