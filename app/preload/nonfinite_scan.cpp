#include "nonfinite_scan.h"

#include <cstring>
#include <type_traits>

namespace blasscope::preload {
namespace {

// Bits, never arithmetic: an Inf - Inf would raise the CPU's "invalid" flag in the program's
// own thread, which NumPy checks after a LAPACK call. Signed after the sign bit is masked off,
// which AVX2 compares (it has no unsigned 64-bit compare). One clone per instruction set:
// the plain loop did 11 instructions a value, a sixth of a 200x200 SVD's recording cost.
template <typename Bits, typename Real>
inline void count_run(const Real* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs) {
  static_assert(sizeof(Bits) == sizeof(Real));
  constexpr Bits kExponent = sizeof(Real) == 8 ? static_cast<Bits>(0x7ff0000000000000) : static_cast<Bits>(0x7f800000);
  constexpr Bits kMagnitude = static_cast<Bits>(~static_cast<std::make_unsigned_t<Bits>>(0) >> 1);
  std::uint64_t n = 0, i = 0;
  for (std::size_t j = 0; j < count; ++j) {
    Bits v;
    std::memcpy(&v, values + j, sizeof v);  // a plain load, without breaking aliasing rules
    v &= kMagnitude;
    n += v > kExponent;  // all exponent bits set: Inf with a zero mantissa, NaN otherwise
    i += v == kExponent;
  }
  nans += n;
  infs += i;
}

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default"))) void count_nonfinite_run(const double* values,
                                                                                      std::size_t count,
                                                                                      std::uint64_t& nans,
                                                                                      std::uint64_t& infs) {
  count_run<std::int64_t>(values, count, nans, infs);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void count_nonfinite_run(const float* values,
                                                                                      std::size_t count,
                                                                                      std::uint64_t& nans,
                                                                                      std::uint64_t& infs) {
  count_run<std::int32_t>(values, count, nans, infs);
}

}  // namespace blasscope::preload
