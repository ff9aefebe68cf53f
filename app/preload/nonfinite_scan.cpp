#include "nonfinite_scan.h"

#include <cstring>
#include <type_traits>

namespace blasscope::preload {
namespace {

// Bits, never arithmetic: an Inf - Inf would raise the CPU's "invalid" flag in the program's
// own thread, which NumPy checks after a LAPACK call. Signed after the sign bit is masked off,
// which AVX2 compares (it has no unsigned 64-bit compare). Inlined into one function per
// instruction set: the plain loop did 11 instructions a value, a sixth of what recording a
// 200x200 SVD cost.
template <typename Bits, typename Real>
[[gnu::always_inline]] inline void count_run(const Real* values, std::size_t count, std::uint64_t& nans,
                                             std::uint64_t& infs) {
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

template <typename Real>
using Run = void (*)(const Real*, std::size_t, std::uint64_t&, std::uint64_t&);
template <typename Real>
using BitsOf = std::conditional_t<sizeof(Real) == 8, std::int64_t, std::int32_t>;

template <typename Real>
void run_plain(const Real* v, std::size_t n, std::uint64_t& nans, std::uint64_t& infs) {
  count_run<BitsOf<Real>>(v, n, nans, infs);
}
template <typename Real>
__attribute__((target("avx2"))) void run_avx2(const Real* v, std::size_t n, std::uint64_t& nans, std::uint64_t& infs) {
  count_run<BitsOf<Real>>(v, n, nans, infs);
}
template <typename Real>
__attribute__((target("avx512f"))) void run_avx512(const Real* v, std::size_t n, std::uint64_t& nans,
                                                   std::uint64_t& infs) {
  count_run<BitsOf<Real>>(v, n, nans, infs);
}

template <typename Real>
Run<Real> version(ScanIsa isa) {
  switch (isa) {
    case ScanIsa::Avx512: return run_avx512<Real>;
    case ScanIsa::Avx2: return run_avx2<Real>;
    case ScanIsa::Plain: break;
  }
  return run_plain<Real>;
}

// Picked once, at load. Not GCC's target_clones: its ifunc symbols are exported whatever the
// visibility, into the global scope of every program the preload library is loaded into.
ScanIsa widest() {
  __builtin_cpu_init();  // this may run before the CPU model's own constructor has
  return __builtin_cpu_supports("avx512f") ? ScanIsa::Avx512
         : __builtin_cpu_supports("avx2")  ? ScanIsa::Avx2
                                           : ScanIsa::Plain;
}
const Run<double> g_run_double = version<double>(widest());
const Run<float> g_run_float = version<float>(widest());

}  // namespace

void count_nonfinite_run(const double* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs) {
  g_run_double(values, count, nans, infs);
}

void count_nonfinite_run(const float* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs) {
  g_run_float(values, count, nans, infs);
}

bool scan_isa_supported(ScanIsa isa) {
  switch (isa) {
    case ScanIsa::Avx512: return widest() == ScanIsa::Avx512;
    case ScanIsa::Avx2: return widest() != ScanIsa::Plain;
    case ScanIsa::Plain: break;
  }
  return true;
}

void count_nonfinite_run_with(ScanIsa isa, const double* values, std::size_t count, std::uint64_t& nans,
                              std::uint64_t& infs) {
  version<double>(isa)(values, count, nans, infs);
}

void count_nonfinite_run_with(ScanIsa isa, const float* values, std::size_t count, std::uint64_t& nans,
                              std::uint64_t& infs) {
  version<float>(isa)(values, count, nans, infs);
}

}  // namespace blasscope::preload
