#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "analysis/stats_kernels.h"

using namespace blasscope::core;

namespace {

bool same_scalar(const std::optional<Scalar>& a, const std::optional<Scalar>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->kind == b->kind && a->i == b->i && a->u == b->u && (a->f == b->f || (std::isnan(a->f) && std::isnan(b->f)));
}

void expect_same(const TensorStats& got, const TensorStats& want, const std::string& label) {
  EXPECT_EQ(got.nan, want.nan) << label;
  EXPECT_EQ(got.posinf, want.posinf) << label;
  EXPECT_EQ(got.neginf, want.neginf) << label;
  EXPECT_EQ(got.zero, want.zero) << label;
  EXPECT_EQ(got.subnormal, want.subnormal) << label;
  EXPECT_EQ(got.finite, want.finite) << label;
  EXPECT_TRUE(same_scalar(got.min, want.min)) << label << " min";
  EXPECT_TRUE(same_scalar(got.max, want.max)) << label << " max";
  EXPECT_EQ(got.first_nonfinite, want.first_nonfinite) << label;
}

// Random bytes with the special bit patterns of each float width sprinkled in.
std::vector<std::byte> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> bytes(n);
  for (auto& b : bytes) b = static_cast<std::byte>(rng());
  return bytes;
}

}  // namespace

TEST(StatsKernels, OptimizedScanMatchesReferenceForEveryDtypeAndAlignment) {
  const DType dtypes[] = {DType::Bool,       DType::Int8,         DType::Int16,      DType::Int32,
                          DType::Int64,      DType::UInt8,        DType::UInt16,     DType::UInt32,
                          DType::UInt64,     DType::Float16,      DType::BFloat16,   DType::Float32,
                          DType::Float64,    DType::Complex64,    DType::Complex128, DType::Float8E4M3FN,
                          DType::Float8E5M2, DType::Float8E8M0FNU};
  for (DType dtype : dtypes) {
    for (std::size_t misalign = 0; misalign < 8; misalign += 3) {
      const std::size_t count = 5000;
      auto bytes = random_bytes(count * item_size(dtype) + misalign, static_cast<std::uint32_t>(dtype) * 31 + misalign);
      const std::byte* data = bytes.data() + misalign;
      const std::string label = std::string(name(dtype)) + " misalign " + std::to_string(misalign);
      expect_same(scan_values(dtype, data, count, 7), scan_values_reference(dtype, data, count, 7), label);
    }
  }
}

TEST(StatsKernels, Float32SpecialValuesAreClassifiedExactly) {
  const float inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::min();
  const std::vector<float> values{1.0f, NAN, -inf, inf, 0.0f, -0.0f, tiny / 2, -tiny, -3.5f, tiny, inf};
  const TensorStats s =
      scan_values(DType::Float32, reinterpret_cast<const std::byte*>(values.data()), values.size(), 0);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.posinf, 2u);
  EXPECT_EQ(s.neginf, 1u);
  EXPECT_EQ(s.zero, 2u);
  EXPECT_EQ(s.subnormal, 1u);
  EXPECT_EQ(s.finite, 7u);
  EXPECT_EQ(s.min->f, -3.5);
  EXPECT_EQ(s.max->f, 1.0);
  EXPECT_EQ(s.first_nonfinite, 1u);
}

TEST(StatsKernels, AllNonFiniteHasNoMinMax) {
  const std::vector<double> values{NAN, -INFINITY};
  const TensorStats s = scan_values(DType::Float64, reinterpret_cast<const std::byte*>(values.data()), 2, 0);
  EXPECT_FALSE(s.min.has_value());
  EXPECT_FALSE(s.max.has_value());
  EXPECT_EQ(s.finite, 0u);
}

TEST(StatsKernels, IntegerExtremesStayExact) {
  const std::vector<std::uint64_t> u{0, std::numeric_limits<std::uint64_t>::max(), 5};
  const TensorStats su = scan_values(DType::UInt64, reinterpret_cast<const std::byte*>(u.data()), 3, 0);
  EXPECT_EQ(su.max->u, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(su.zero, 1u);
  const std::vector<std::int64_t> i{std::numeric_limits<std::int64_t>::min(), -1, 7};
  const TensorStats si = scan_values(DType::Int64, reinterpret_cast<const std::byte*>(i.data()), 3, 0);
  EXPECT_EQ(si.min->i, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(si.max->i, 7);
}

TEST(StatsKernels, ComplexCountsComponents) {
  const std::vector<float> c{1.0f, NAN, 0.0f, -2.0f};  // two complex64 values
  const TensorStats s = scan_values(DType::Complex64, reinterpret_cast<const std::byte*>(c.data()), 2, 10);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.finite, 3u);
  EXPECT_EQ(s.first_nonfinite, 21u);  // element 10 is components 20, 21
}

TEST(StatsKernels, FirstNonFiniteAcrossBlocks) {
  std::vector<float> values(3'000'000, 1.0f);
  values[2'500'000] = NAN;
  values[2'999'999] = INFINITY;
  const TensorStats s =
      scan_values(DType::Float32, reinterpret_cast<const std::byte*>(values.data()), values.size(), 0);
  EXPECT_EQ(s.first_nonfinite, 2'500'000u);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.posinf, 1u);
}

TEST(StatsKernels, SixteenBitFloatsMatchTheDecodeTableForEveryBitPattern) {
  // Every pattern three times over (past the 16-bit lane counters' 2^16), then a run of one
  // value long enough to overflow a lane counter that were never flushed.
  std::vector<std::uint16_t> values;
  for (int round = 0; round < 3; ++round) {
    for (std::uint32_t bits = 0; bits < (1u << 16); ++bits) values.push_back(static_cast<std::uint16_t>(bits));
  }
  for (DType dtype : {DType::BFloat16, DType::Float16}) {
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    expect_same(scan_values(dtype, data, values.size(), 0), scan_values_reference(dtype, data, values.size(), 0),
                std::string(name(dtype)) + " every pattern");
    const std::uint16_t nan = dtype == DType::BFloat16 ? 0x7FC0 : 0x7E00;
    const std::vector<std::uint16_t> nans(200000, nan);
    const TensorStats all_nan = scan_values(dtype, reinterpret_cast<const std::byte*>(nans.data()), nans.size(), 0);
    EXPECT_EQ(all_nan.nan, nans.size());
    EXPECT_FALSE(all_nan.min.has_value());
  }
}
