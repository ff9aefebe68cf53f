#include "tensor/dtype.h"

#include <array>

namespace blasscope::core {
namespace {

struct DTypeTraits {
  DType dtype;
  std::string_view name;
  std::size_t bits;
  DTypeKind kind;
};

constexpr std::array kTraits{
    DTypeTraits{DType::Bool, "bool", 8, DTypeKind::Bool},
    DTypeTraits{DType::Int8, "int8", 8, DTypeKind::SignedInt},
    DTypeTraits{DType::Int16, "int16", 16, DTypeKind::SignedInt},
    DTypeTraits{DType::Int32, "int32", 32, DTypeKind::SignedInt},
    DTypeTraits{DType::Int64, "int64", 64, DTypeKind::SignedInt},
    DTypeTraits{DType::UInt8, "uint8", 8, DTypeKind::UnsignedInt},
    DTypeTraits{DType::UInt16, "uint16", 16, DTypeKind::UnsignedInt},
    DTypeTraits{DType::UInt32, "uint32", 32, DTypeKind::UnsignedInt},
    DTypeTraits{DType::UInt64, "uint64", 64, DTypeKind::UnsignedInt},
    DTypeTraits{DType::Float16, "float16", 16, DTypeKind::Float},
    DTypeTraits{DType::BFloat16, "bfloat16", 16, DTypeKind::Float},
    DTypeTraits{DType::Float32, "float32", 32, DTypeKind::Float},
    DTypeTraits{DType::Float64, "float64", 64, DTypeKind::Float},
    DTypeTraits{DType::Complex64, "complex64", 64, DTypeKind::Complex},
    DTypeTraits{DType::Complex128, "complex128", 128, DTypeKind::Complex},
    DTypeTraits{DType::Float8E4M3FN, "float8_e4m3fn", 8, DTypeKind::Float},
    DTypeTraits{DType::Float8E5M2, "float8_e5m2", 8, DTypeKind::Float},
    DTypeTraits{DType::Float8E8M0FNU, "float8_e8m0fnu", 8, DTypeKind::Float},
    DTypeTraits{DType::Float4E2M1FN, "float4_e2m1fn", 4, DTypeKind::Float},
    DTypeTraits{DType::Float6E2M3FN, "float6_e2m3fn", 6, DTypeKind::Float},
    DTypeTraits{DType::Float6E3M2FN, "float6_e3m2fn", 6, DTypeKind::Float},
};

constexpr bool table_matches_enum_order() {
  for (std::size_t i = 0; i < kTraits.size(); ++i) {
    if (static_cast<std::size_t>(kTraits[i].dtype) != i) return false;
  }
  return true;
}
static_assert(table_matches_enum_order(), "kTraits must list DType values in enum order");

const DTypeTraits& traits(DType dtype) {
  return kTraits[static_cast<std::size_t>(dtype)];
}

}  // namespace

std::size_t bit_width(DType dtype) {
  return traits(dtype).bits;
}

DType real_part_dtype(DType dtype) {
  return dtype == DType::Complex64 ? DType::Float32 : dtype == DType::Complex128 ? DType::Float64 : dtype;
}

std::size_t item_size(DType dtype) {
  const auto bits = traits(dtype).bits;
  return bits % 8 == 0 ? bits / 8 : 0;
}

DTypeKind kind(DType dtype) {
  return traits(dtype).kind;
}

std::string_view name(DType dtype) {
  return traits(dtype).name;
}

std::optional<DType> dtype_from_name(std::string_view wanted) {
  for (const auto& t : kTraits) {
    if (t.name == wanted) return t.dtype;
  }
  return std::nullopt;
}

bool is_scannable(DType dtype) {
  return item_size(dtype) != 0;
}

std::size_t swap_width(DType dtype) {
  return kind(dtype) == DTypeKind::Complex ? item_size(dtype) / 2 : item_size(dtype);
}

std::string_view name(ByteOrder order) {
  switch (order) {
    case ByteOrder::Little: return "little";
    case ByteOrder::Big: return "big";
    case ByteOrder::NotApplicable: break;
  }
  return "none";
}

std::string_view name(MemoryOrder order) {
  return order == MemoryOrder::C ? "C" : "F";
}

}  // namespace blasscope::core
