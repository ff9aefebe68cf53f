#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blasscope::core {

// Element types BLAScope understands, named as NumPy (or ml_dtypes) names them.
enum class DType : std::uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
  Float8E4M3FN,
  Float8E5M2,
  Float8E8M0FNU,
  Float4E2M1FN,  // packed, two per byte
  Float6E2M3FN,  // packed, four per three bytes
  Float6E3M2FN,
};

enum class DTypeKind : std::uint8_t { Bool, SignedInt, UnsignedInt, Float, Complex };

// Width of one element in bits (sub-byte types are packed).
std::size_t bit_width(DType dtype);
// Bytes of one element, 0 for packed sub-byte types.
std::size_t item_size(DType dtype);
DTypeKind kind(DType dtype);
// The dtype of a complex one's real part (singular values, eigenvalues); others are their own.
DType real_part_dtype(DType dtype);
std::string_view name(DType dtype);
std::optional<DType> dtype_from_name(std::string_view name);
// True for types whose values BLAScope scans (all but the packed sub-byte floats).
bool is_scannable(DType dtype);

// Bytes that are byte-swapped as one word: a complex value swaps each component.
std::size_t swap_width(DType dtype);

enum class ByteOrder : std::uint8_t { Little, Big, NotApplicable };
std::string_view name(ByteOrder order);

enum class MemoryOrder : std::uint8_t { C, Fortran };
std::string_view name(MemoryOrder order);

}  // namespace blasscope::core
