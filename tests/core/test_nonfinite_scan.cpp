// The preload's scan of LAPACK inputs (app/preload/nonfinite_scan.h), in the version this CPU
// picks and in every other one it can run: counts equal std::isnan/std::isinf at every length
// and position, vector tails included, and the scan raises no floating-point flag in the
// caller's thread.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "nonfinite_scan.h"

namespace {

template <typename Real>
Real from_bits(std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t> bits) {
  Real r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

// Finite values at the edges of what looks like NaN/Inf, and every kind of non-finite value.
template <typename Real>
std::vector<Real> tricky_values() {
  using L = std::numeric_limits<Real>;
  const bool wide = sizeof(Real) == 8;
  return {Real{0},
          -Real{0},
          L::max(),
          -L::max(),
          L::denorm_min(),
          L::min(),
          L::infinity(),
          -L::infinity(),
          L::quiet_NaN(),
          -L::quiet_NaN(),
          L::signaling_NaN(),
          from_bits<Real>(wide ? 0x7ff0000000000001ull : 0x7f800001u),  // the smallest NaN payload
          from_bits<Real>(wide ? 0xfffffffffffffffful : 0xffffffffu)};  // all bits set: a NaN
}

using blasscope::preload::ScanIsa;
constexpr ScanIsa kEveryIsa[] = {ScanIsa::Plain, ScanIsa::Avx2, ScanIsa::Avx512};

template <typename Real>
void expect_counts_match(const std::vector<Real>& values) {
  std::uint64_t want_nan = 0, want_inf = 0;
  for (Real v : values) want_nan += std::isnan(v), want_inf += std::isinf(v);
  std::uint64_t nans = 5, infs = 7;  // added to, not overwritten
  blasscope::preload::count_nonfinite_run(values.data(), values.size(), nans, infs);
  EXPECT_EQ(nans, 5 + want_nan) << values.size() << " values";
  EXPECT_EQ(infs, 7 + want_inf) << values.size() << " values";
  for (ScanIsa isa : kEveryIsa) {
    if (!blasscope::preload::scan_isa_supported(isa)) continue;
    std::uint64_t n = 0, i = 0;
    blasscope::preload::count_nonfinite_run_with(isa, values.data(), values.size(), n, i);
    EXPECT_EQ(std::make_pair(n, i), std::make_pair(want_nan, want_inf))
        << values.size() << " values, version " << static_cast<int>(isa);
  }
}

template <typename Real>
void check_every_length_and_position() {
  const std::vector<Real> tricky = tricky_values<Real>();
  std::mt19937 random(42);
  for (std::size_t length = 0; length <= 70; ++length) {  // past two AVX-512 widths of floats
    for (Real special : tricky) {
      for (std::size_t at = 0; at < length; at += 1 + length / 9) {
        std::vector<Real> values(length);
        for (Real& v : values) v = static_cast<Real>(std::uniform_real_distribution<double>(-1e3, 1e3)(random));
        values[at] = special;
        values[length - 1 - at / 2] = tricky[(at + length) % tricky.size()];
        expect_counts_match(values);
      }
    }
  }
}

TEST(NonfiniteScan, CountsDoublesLikeIsnanAndIsinf) {
  check_every_length_and_position<double>();
}

TEST(NonfiniteScan, CountsFloatsLikeIsnanAndIsinf) {
  check_every_length_and_position<float>();
}

TEST(NonfiniteScan, AllNonfiniteLongRunCountsEachValue) {
  std::vector<double> values(100003, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < values.size(); i += 3) values[i] = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t nans = 0, infs = 0;
  blasscope::preload::count_nonfinite_run(values.data(), values.size(), nans, infs);
  EXPECT_EQ(nans, 33335u);
  EXPECT_EQ(infs, 100003u - 33335u);
}

// NumPy checks the CPU's flags after a LAPACK call: a scan that compared an Inf or a signalling
// NaN as a number would turn np.seterr(invalid='raise') into an exception the program never had.
TEST(NonfiniteScan, EveryVersionThisCpuCanRunIsTested) {
  EXPECT_TRUE(blasscope::preload::scan_isa_supported(ScanIsa::Plain));
  // AVX2 is what CI's and the development machine's CPUs have at least: said, so that a run
  // where only the plain loop was checked is visible.
  if (!blasscope::preload::scan_isa_supported(ScanIsa::Avx2)) std::printf("note: no AVX2 here, plain loop only\n");
}

TEST(NonfiniteScan, RaisesNoFloatingPointFlag) {
  std::vector<double> doubles = tricky_values<double>();
  std::vector<float> floats = tricky_values<float>();
  std::feclearexcept(FE_ALL_EXCEPT);
  std::uint64_t nans = 0, infs = 0;
  blasscope::preload::count_nonfinite_run(doubles.data(), doubles.size(), nans, infs);
  blasscope::preload::count_nonfinite_run(floats.data(), floats.size(), nans, infs);
  EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), 0);
  EXPECT_EQ(nans, 10u);
  EXPECT_EQ(infs, 4u);
}

}  // namespace
