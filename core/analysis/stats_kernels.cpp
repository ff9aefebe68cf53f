#include "analysis/stats_kernels.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/minifloat.h"

namespace blasscope::core {
namespace {

// Lanes count in 32-bit integers for float32, so blocks stay below 2^31 elements.
constexpr std::uint64_t kBlock = 1 << 20;

template <typename U>
U load(const std::byte* p) {
  U value;
  std::memcpy(&value, p, sizeof(U));
  return value;
}

// Maps IEEE bits to a signed integer whose order is the float order (for finite values).
template <typename U, typename S = std::make_signed_t<U>>
inline S ordered_key(U bits) {
  const S s = static_cast<S>(bits);
  return s ^ static_cast<S>(static_cast<U>(s >> (sizeof(U) * 8 - 1)) >> 1);
}

template <typename F, typename U>
inline F float_from_key(std::make_signed_t<U> key) {
  using S = std::make_signed_t<U>;
  const U bits = static_cast<U>(key ^ static_cast<S>(static_cast<U>(key >> (sizeof(U) * 8 - 1)) >> 1));
  return std::bit_cast<F>(bits);
}

// Running counts of one IEEE scan; lanes are as wide as the value, so a call may cover at
// most 2^31 elements (scan_values hands out blocks of kBlock).
template <typename U>
struct IeeeAccumulator {
  using S = std::make_signed_t<U>;
  U nan = 0, posinf = 0, neginf = 0, zero = 0, subnormal = 0;
  S lo = std::numeric_limits<S>::max(), hi = std::numeric_limits<S>::min();
};

// Branch-free classification over the raw bits, written so the compiler vectorizes it.
// kExpMask is +Inf's bit pattern, kMinNormal the smallest normal's.
// With kSplit false, `nan` counts every non-finite value (NaN and both infinities) and the
// caller splits them in a second pass where there are any: they are rare, and the 16-bit scan
// is bound by its instruction count.
template <typename U, U kExpMask, U kMinNormal, bool kSplit = true>
[[gnu::always_inline]] inline void accumulate_bits(const std::byte* data, std::uint64_t count,
                                                   IeeeAccumulator<U>& acc) {
  using S = std::make_signed_t<U>;
  constexpr int kBits = sizeof(U) * 8;
  constexpr U kAbsMask = std::numeric_limits<U>::max() >> 1;
  U nan = acc.nan, posinf = acc.posinf, neginf = acc.neginf, zero = acc.zero, subnormal = acc.subnormal;
  S lo = acc.lo, hi = acc.hi;
  for (std::uint64_t i = 0; i < count; ++i) {
    const U u = load<U>(data + i * sizeof(U));
    const U a = u & kAbsMask;
    const U negative = u >> (kBits - 1);
    if constexpr (kSplit) {
      const U inf = a == kExpMask;
      nan += a > kExpMask;
      posinf += inf & (negative ^ 1);
      neginf += inf & negative;
    } else {
      nan += a >= kExpMask;
      (void)negative;
    }
    zero += a == 0;
    subnormal += static_cast<U>(a - 1) < static_cast<U>(kMinNormal - 1);
    // Non-finite values are masked to the neutral element with bit operations, not a
    // select: GCC cannot vectorize a reduction whose update is conditional.
    const S nonfinite = -static_cast<S>(a >= kExpMask);
    const S kept = ordered_key(u) & ~nonfinite;
    lo = std::min(lo, static_cast<S>(kept | (nonfinite & std::numeric_limits<S>::max())));
    hi = std::max(hi, static_cast<S>(kept | (nonfinite & std::numeric_limits<S>::min())));
  }
  acc = {nan, posinf, neginf, zero, subnormal, lo, hi};
}

template <typename F, typename U>
void add_ieee(const IeeeAccumulator<U>& acc, std::uint64_t count, TensorStats& out) {
  out.nan += acc.nan;
  out.posinf += acc.posinf;
  out.neginf += acc.neginf;
  out.zero += acc.zero;
  out.subnormal += acc.subnormal;
  const std::uint64_t finite = count - acc.nan - acc.posinf - acc.neginf;
  out.finite += finite;
  if (finite == 0) return;
  TensorStats part;
  part.min = Scalar::from_float(float_from_key<F, U>(acc.lo));
  part.max = Scalar::from_float(float_from_key<F, U>(acc.hi));
  merge_stats(out, part);
}

// The classification loop is long enough that out-of-order execution runs only a few
// cache lines ahead; without explicit prefetch it stalls on memory at a quarter of the
// bandwidth a plain read gets. So: scan in strips, prefetching a few strips ahead.
constexpr std::uint64_t kStripWideBytes = 1024;
constexpr std::uint64_t kStrip16Bytes = 4096;   // 16-bit lanes: a longer strip pays the reduction less often
constexpr std::uint64_t kPrefetchBytes = 2048;  // measured best of 256..64K

template <typename U, U kExpMask, U kMinNormal, bool kSplit = true>
[[gnu::always_inline]] inline void scan_strips(const std::byte* data, std::uint64_t count, IeeeAccumulator<U>& acc) {
  constexpr std::uint64_t kStripBytes = sizeof(U) == 2 ? kStrip16Bytes : kStripWideBytes;
  const std::uint64_t per_strip = kStripBytes / sizeof(U);
  const std::uint64_t bytes = count * sizeof(U);
  std::uint64_t done = 0;
  for (; done + per_strip <= count; done += per_strip) {
    const std::uint64_t ahead = done * sizeof(U) + kPrefetchBytes;
    for (std::uint64_t line = 0; line < kStripBytes && ahead + line < bytes; line += 64) {
      __builtin_prefetch(data + ahead + line);
    }
    accumulate_bits<U, kExpMask, kMinNormal, kSplit>(data + done * sizeof(U), per_strip, acc);
  }
  accumulate_bits<U, kExpMask, kMinNormal, kSplit>(data + done * sizeof(U), count - done, acc);
}

template <typename F, typename U>
[[gnu::always_inline]] inline void scan_ieee(const std::byte* data, std::uint64_t count, TensorStats& out) {
  IeeeAccumulator<U> acc;
  scan_strips<U, std::bit_cast<U>(std::numeric_limits<F>::infinity()), std::bit_cast<U>(std::numeric_limits<F>::min())>(
      data, count, acc);
  add_ieee<F, U>(acc, count, out);
}

// bfloat16 and float16 are IEEE layouts too (sign, exponent, fraction): the same branch-free
// classification on 16-bit lanes, about three times faster than a table lookup per value (a
// checkpoint is mostly bfloat16). The lane counters are 16-bit, so chunks stay below 2^16.
template <std::uint16_t kExpMask, std::uint16_t kMinNormal, float (*ToFloat)(std::uint16_t)>
[[gnu::always_inline]] inline void scan_ieee16(const std::byte* data, std::uint64_t count, TensorStats& out) {
  using U = std::uint16_t;
  constexpr std::uint64_t kChunk = 1 << 15;
  for (std::uint64_t start = 0; start < count; start += kChunk) {
    const std::uint64_t n = std::min(kChunk, count - start);
    IeeeAccumulator<U> acc;
    scan_strips<U, kExpMask, kMinNormal, false>(data + start * sizeof(U), n, acc);
    if (acc.nan > 0) {  // non-finite values in this chunk: which ones
      acc.nan = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const U u = load<U>(data + (start + i) * sizeof(U));
        const U a = u & 0x7FFF;
        acc.nan += a > kExpMask;
        acc.posinf += a == kExpMask && u == a;
        acc.neginf += a == kExpMask && u != a;
      }
    }
    out.nan += acc.nan;
    out.posinf += acc.posinf;
    out.neginf += acc.neginf;
    out.zero += acc.zero;
    out.subnormal += acc.subnormal;
    const std::uint64_t finite = n - acc.nan - acc.posinf - acc.neginf;
    out.finite += finite;
    if (finite == 0) continue;
    TensorStats part;
    part.min = Scalar::from_float(ToFloat(float_from_key<U, U>(acc.lo)));
    part.max = Scalar::from_float(ToFloat(float_from_key<U, U>(acc.hi)));
    merge_stats(out, part);
  }
}

float bfloat16_value(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

float float16_value(std::uint16_t bits) {
  return decode_float16(bits).value;
}

// 16-bit lanes fill a 512-bit register only with AVX-512BW, which target_clones cannot name
// (GCC 12): that variant is chosen by hand.
[[gnu::target("avx512f,avx512bw")]] void scan_bfloat16_avx512bw(const std::byte* data, std::uint64_t count,
                                                                TensorStats& out) {
  scan_ieee16<0x7F80, 0x0080, bfloat16_value>(data, count, out);
}

[[gnu::target_clones("avx2", "default")]] void scan_bfloat16_generic(const std::byte* data, std::uint64_t count,
                                                                     TensorStats& out) {
  scan_ieee16<0x7F80, 0x0080, bfloat16_value>(data, count, out);
}

[[gnu::target("avx512f,avx512bw")]] void scan_float16_avx512bw(const std::byte* data, std::uint64_t count,
                                                               TensorStats& out) {
  scan_ieee16<0x7C00, 0x0400, float16_value>(data, count, out);
}

[[gnu::target_clones("avx2", "default")]] void scan_float16_generic(const std::byte* data, std::uint64_t count,
                                                                    TensorStats& out) {
  scan_ieee16<0x7C00, 0x0400, float16_value>(data, count, out);
}

bool has_avx512bw() {
  static const bool has = __builtin_cpu_supports("avx512bw");
  return has;
}

void scan_bfloat16(const std::byte* data, std::uint64_t count, TensorStats& out) {
  has_avx512bw() ? scan_bfloat16_avx512bw(data, count, out) : scan_bfloat16_generic(data, count, out);
}

void scan_float16(const std::byte* data, std::uint64_t count, TensorStats& out) {
  has_avx512bw() ? scan_float16_avx512bw(data, count, out) : scan_float16_generic(data, count, out);
}

// One dispatch per CPU family: AVX-512 or AVX2 where present, the baseline elsewhere.
[[gnu::target_clones("avx512f", "avx2", "default")]] void scan_float32(const std::byte* data, std::uint64_t count,
                                                                       TensorStats& out) {
  scan_ieee<float, std::uint32_t>(data, count, out);
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void scan_float64(const std::byte* data, std::uint64_t count,
                                                                       TensorStats& out) {
  scan_ieee<double, std::uint64_t>(data, count, out);
}

template <typename T>
void scan_integers(const std::byte* data, std::uint64_t count, TensorStats& out) {
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  std::uint64_t zero = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const T v = load<T>(data + i * sizeof(T));
    zero += v == 0;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  out.zero += zero;
  out.finite += count;
  if (count == 0) return;
  TensorStats part;
  if constexpr (std::is_signed_v<T>) {
    part.min = Scalar::from_signed(lo);
    part.max = Scalar::from_signed(hi);
  } else {
    part.min = Scalar::from_unsigned(lo);
    part.max = Scalar::from_unsigned(hi);
  }
  merge_stats(out, part);
}

template <typename U>
struct DecodeTable {
  std::array<ValueClass, std::size_t{1} << (sizeof(U) * 8)> cls;
  std::array<float, std::size_t{1} << (sizeof(U) * 8)> value;
};

template <typename U, DecodedValue (*Decode)(U)>
const DecodeTable<U>& decode_table() {
  static const auto* table = [] {
    auto* t = new DecodeTable<U>;
    for (std::size_t bits = 0; bits < t->cls.size(); ++bits) {
      const DecodedValue d = Decode(static_cast<U>(bits));
      t->cls[bits] = d.cls;
      t->value[bits] = d.value;
    }
    return t;
  }();
  return *table;
}

void count_class(ValueClass cls, TensorStats& out) {
  switch (cls) {
    case ValueClass::NaN: ++out.nan; return;
    case ValueClass::PosInf: ++out.posinf; return;
    case ValueClass::NegInf: ++out.neginf; return;
    case ValueClass::Zero: ++out.zero; break;
    case ValueClass::Subnormal: ++out.subnormal; break;
    case ValueClass::Normal: break;
  }
  ++out.finite;
}

bool is_finite_class(ValueClass cls) {
  return cls != ValueClass::NaN && cls != ValueClass::PosInf && cls != ValueClass::NegInf;
}

template <typename U>
void scan_with_table(const DecodeTable<U>& table, const std::byte* data, std::uint64_t count, TensorStats& out) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (std::uint64_t i = 0; i < count; ++i) {
    const U bits = load<U>(data + i * sizeof(U));
    const ValueClass cls = table.cls[bits];
    count_class(cls, out);
    if (is_finite_class(cls)) {
      lo = std::min(lo, table.value[bits]);
      hi = std::max(hi, table.value[bits]);
    }
  }
  if (lo <= hi) {
    TensorStats part;
    part.min = Scalar::from_float(lo);
    part.max = Scalar::from_float(hi);
    merge_stats(out, part);
  }
}

DType component_dtype(DType dtype) {
  if (dtype == DType::Complex64) return DType::Float32;
  if (dtype == DType::Complex128) return DType::Float64;
  return dtype;
}

// Dispatches one block (at most kBlock values) to the kernel for its dtype.
void scan_block(DType dtype, const std::byte* data, std::uint64_t count, TensorStats& out) {
  switch (dtype) {
    case DType::Float32: return scan_float32(data, count, out);
    case DType::Float64: return scan_float64(data, count, out);
    case DType::Bool:
    case DType::UInt8: return scan_integers<std::uint8_t>(data, count, out);
    case DType::UInt16: return scan_integers<std::uint16_t>(data, count, out);
    case DType::UInt32: return scan_integers<std::uint32_t>(data, count, out);
    case DType::UInt64: return scan_integers<std::uint64_t>(data, count, out);
    case DType::Int8: return scan_integers<std::int8_t>(data, count, out);
    case DType::Int16: return scan_integers<std::int16_t>(data, count, out);
    case DType::Int32: return scan_integers<std::int32_t>(data, count, out);
    case DType::Int64: return scan_integers<std::int64_t>(data, count, out);
    case DType::Float16: return scan_float16(data, count, out);
    case DType::BFloat16: return scan_bfloat16(data, count, out);
    case DType::Float8E4M3FN:
      return scan_with_table(decode_table<std::uint8_t, decode_float8_e4m3fn>(), data, count, out);
    case DType::Float8E5M2: return scan_with_table(decode_table<std::uint8_t, decode_float8_e5m2>(), data, count, out);
    case DType::Float8E8M0FNU:
      return scan_with_table(decode_table<std::uint8_t, decode_float8_e8m0fnu>(), data, count, out);
    default: return;  // complex is scanned as components; packed types are not scannable
  }
}

template <typename F, typename U>
std::uint64_t first_ieee_nonfinite(const std::byte* data, std::uint64_t count) {
  constexpr U kAbsMask = std::numeric_limits<U>::max() >> 1;
  constexpr U kExpMask = std::bit_cast<U>(std::numeric_limits<F>::infinity());
  for (std::uint64_t i = 0; i < count; ++i) {
    if ((load<U>(data + i * sizeof(U)) & kAbsMask) >= kExpMask) return i;
  }
  return count;
}

template <typename U>
std::uint64_t first_table_nonfinite(const DecodeTable<U>& table, const std::byte* data, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!is_finite_class(table.cls[load<U>(data + i * sizeof(U))])) return i;
  }
  return count;
}

// Index of the first NaN/Inf in a block known to hold one (a second, cheap pass).
std::uint64_t find_first_nonfinite(DType dtype, const std::byte* data, std::uint64_t count) {
  switch (dtype) {
    case DType::Float32: return first_ieee_nonfinite<float, std::uint32_t>(data, count);
    case DType::Float64: return first_ieee_nonfinite<double, std::uint64_t>(data, count);
    case DType::Float16: return first_table_nonfinite(decode_table<std::uint16_t, decode_float16>(), data, count);
    case DType::BFloat16: return first_table_nonfinite(decode_table<std::uint16_t, decode_bfloat16>(), data, count);
    case DType::Float8E4M3FN:
      return first_table_nonfinite(decode_table<std::uint8_t, decode_float8_e4m3fn>(), data, count);
    case DType::Float8E5M2: return first_table_nonfinite(decode_table<std::uint8_t, decode_float8_e5m2>(), data, count);
    case DType::Float8E8M0FNU:
      return first_table_nonfinite(decode_table<std::uint8_t, decode_float8_e8m0fnu>(), data, count);
    default: return count;  // integers are always finite
  }
}

bool less(const Scalar& a, const Scalar& b) {
  if (a.kind == Scalar::Kind::Signed && b.kind == Scalar::Kind::Signed) return a.i < b.i;
  if (a.kind == Scalar::Kind::Unsigned && b.kind == Scalar::Kind::Unsigned) return a.u < b.u;
  return a.as_double() < b.as_double();
}

}  // namespace

void merge_stats(TensorStats& into, const TensorStats& part) {
  if (&into != &part) {
    into.nan += part.nan;
    into.posinf += part.posinf;
    into.neginf += part.neginf;
    into.zero += part.zero;
    into.subnormal += part.subnormal;
    into.finite += part.finite;
  }
  if (part.min && (!into.min || less(*part.min, *into.min))) into.min = part.min;
  if (part.max && (!into.max || less(*into.max, *part.max))) into.max = part.max;
  if (part.first_nonfinite && (!into.first_nonfinite || *part.first_nonfinite < *into.first_nonfinite)) {
    into.first_nonfinite = part.first_nonfinite;
  }
}

TensorStats scan_values(DType dtype, const std::byte* data, std::uint64_t count, std::uint64_t first_index) {
  const DType component = component_dtype(dtype);
  const std::uint64_t per_element = component == dtype ? 1 : 2;
  count *= per_element;
  first_index *= per_element;
  const std::size_t size = item_size(component);
  TensorStats total;
  for (std::uint64_t start = 0; start < count; start += kBlock) {
    const std::uint64_t n = std::min(kBlock, count - start);
    const std::byte* block = data + start * size;
    const std::uint64_t nonfinite_before = total.nonfinite();
    scan_block(component, block, n, total);
    if (!total.first_nonfinite && total.nonfinite() > nonfinite_before) {
      total.first_nonfinite = first_index + start + find_first_nonfinite(component, block, n);
    }
  }
  return total;
}

TensorStats scan_values_reference(DType dtype, const std::byte* data, std::uint64_t count, std::uint64_t first_index) {
  const DType component = component_dtype(dtype);
  const std::uint64_t per_element = component == dtype ? 1 : 2;
  const std::size_t size = item_size(component);
  TensorStats total;
  for (std::uint64_t i = 0; i < count * per_element; ++i) {
    const std::byte* p = data + i * size;
    TensorStats one;
    if (component == DType::Float32 || component == DType::Float64) {
      const double v = component == DType::Float32 ? static_cast<double>(load<float>(p)) : load<double>(p);
      const ValueClass cls = std::isnan(v)   ? ValueClass::NaN
                             : std::isinf(v) ? (v > 0 ? ValueClass::PosInf : ValueClass::NegInf)
                             : v == 0        ? ValueClass::Zero
                             : std::abs(v) < (component == DType::Float32 ? std::numeric_limits<float>::min()
                                                                          : std::numeric_limits<double>::min())
                                 ? ValueClass::Subnormal
                                 : ValueClass::Normal;
      count_class(cls, one);
      if (is_finite_class(cls)) one.min = one.max = Scalar::from_float(v);
      if (!is_finite_class(cls)) one.first_nonfinite = first_index * per_element + i;
    } else {
      // float16 and bfloat16 through the decode table, not the lane kernel under test.
      if (component == DType::Float16) {
        scan_with_table(decode_table<std::uint16_t, decode_float16>(), p, 1, one);
      } else if (component == DType::BFloat16) {
        scan_with_table(decode_table<std::uint16_t, decode_bfloat16>(), p, 1, one);
      } else {
        scan_block(component, p, 1, one);
      }
      if (one.nonfinite() > 0) one.first_nonfinite = first_index * per_element + i;
    }
    merge_stats(total, one);
  }
  return total;
}

}  // namespace blasscope::core
