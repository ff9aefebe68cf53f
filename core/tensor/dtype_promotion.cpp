#include "tensor/dtype_promotion.h"

#include <algorithm>

namespace blasscope::core {
namespace {

bool is_float(DType d) {
  return kind(d) == DTypeKind::Float;
}
bool is_integer(DType d) {
  return kind(d) == DTypeKind::SignedInt || kind(d) == DTypeKind::UnsignedInt;
}

DType float_of_size(std::size_t bytes) {
  return bytes >= 8 ? DType::Float64 : bytes == 4 ? DType::Float32 : DType::Float16;
}

DType complex_holding(std::size_t component_bytes) {
  return component_bytes >= 8 ? DType::Complex128 : DType::Complex64;
}

// Smallest float that holds every value of an integer type exactly enough for NumPy.
std::size_t float_bytes_for_integer(DType i) {
  const std::size_t size = item_size(i);
  return size == 1 ? 2 : size == 2 ? 4 : 8;
}

DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16)) {
    return DType::Float32;
  }
  const std::size_t size = std::max(item_size(a), item_size(b));
  if (size == 2) return a == DType::BFloat16 || b == DType::BFloat16 ? DType::BFloat16 : DType::Float16;
  return float_of_size(size);
}

DType promote_integers(DType a, DType b) {
  const bool signed_result = kind(a) == DTypeKind::SignedInt || kind(b) == DTypeKind::SignedInt;
  const bool mixed = kind(a) != kind(b);
  std::size_t size = std::max(item_size(a), item_size(b));
  if (mixed) {
    const DType unsigned_one = kind(a) == DTypeKind::UnsignedInt ? a : b;
    if (item_size(unsigned_one) >= size) size *= 2;  // uint32 with int32 needs int64
    if (size > 8) return DType::Float64;             // uint64 with any signed type
  }
  static constexpr DType kSigned[] = {DType::Int8, DType::Int16, DType::Int32, DType::Int64};
  static constexpr DType kUnsigned[] = {DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64};
  const std::size_t index = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
  return signed_result ? kSigned[index] : kUnsigned[index];
}

}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_integer(a) && is_integer(b)) return promote_integers(a, b);
  const bool complex = kind(a) == DTypeKind::Complex || kind(b) == DTypeKind::Complex;
  std::size_t component = 0;
  for (DType d : {a, b}) {
    if (kind(d) == DTypeKind::Complex) component = std::max(component, item_size(d) / 2);
    if (is_float(d)) component = std::max(component, item_size(d));
  }
  for (DType d : {a, b}) {
    if (is_integer(d)) component = std::max(component, float_bytes_for_integer(d));
  }
  if (complex) return complex_holding(component);
  if (is_float(a) && is_float(b)) return promote_floats(a, b);
  const DType floating = is_float(a) ? a : b;
  if (component == item_size(floating)) return floating;
  return float_of_size(component);
}

DType blas_compute_dtype(DType promoted, bool has_sbgemm) {
  switch (kind(promoted)) {
    case DTypeKind::Bool:
    case DTypeKind::SignedInt:
    case DTypeKind::UnsignedInt: return DType::Float64;
    case DTypeKind::Complex: return promoted;
    case DTypeKind::Float: break;
  }
  if (promoted == DType::BFloat16 && has_sbgemm) return promoted;
  if (item_size(promoted) < 4) return DType::Float32;
  return promoted;
}

}  // namespace blasscope::core
