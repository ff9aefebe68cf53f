#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "analysis/stats_kernels.h"
#include "analysis/stats_scanner.h"
#include "report/inspect_json.h"

using namespace blasscope::core;

namespace {

std::vector<double> values_with_specials(std::size_t n) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::vector<double> v(n);
  for (auto& x : v) x = normal(rng);
  v[n / 3] = NAN;
  v[n / 2] = -INFINITY;
  v[n - 1] = 4.9e-324;  // subnormal
  v[17] = 0.0;
  return v;
}

std::span<const std::byte> bytes_of(const std::vector<double>& v) {
  return std::as_bytes(std::span(v));
}

// Reverses the bytes of every `width`-byte word: little-endian data as a big-endian file holds it.
std::vector<std::byte> swap_each(std::span<const std::byte> bytes, std::size_t width) {
  std::vector<std::byte> swapped(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); i += width) {
    std::reverse_copy(bytes.begin() + i, bytes.begin() + i + width, swapped.begin() + i);
  }
  return swapped;
}

}  // namespace

TEST(StatsScanner, ParallelScanEqualsSingleThreaded) {
  const auto v = values_with_specials(9'000'000);  // 72 MB: above the parallel threshold
  ScanOptions one;
  one.threads = 1;
  ScanOptions four;
  four.threads = 4;
  const TensorStats a = scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v), one);
  const TensorStats b = scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v), four);
  EXPECT_EQ(a.nan, 1u);
  EXPECT_EQ(a.neginf, 1u);
  EXPECT_EQ(a.subnormal, 1u);
  EXPECT_EQ(a.first_nonfinite, 3'000'000u);
  EXPECT_EQ(to_json(b), to_json(a));
}

TEST(StatsScanner, BigEndianDataIsSwappedBeforeClassification) {
  const auto v = values_with_specials(100'000);
  const TensorStats le = scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v));
  const TensorStats be = scan_bytes(DType::Float64, ByteOrder::Big, swap_each(bytes_of(v), 8));
  EXPECT_EQ(le.nan, 1u);
  EXPECT_EQ(to_json(be), to_json(le));
}

TEST(StatsScanner, BigEndianComplexSwapsEachComponent) {
  const std::vector<float> c{1.5f, -2.0f, NAN, 3.0f};
  const TensorStats s = scan_bytes(DType::Complex64, ByteOrder::Big, swap_each(std::as_bytes(std::span(c)), 4));
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.min->f, -2.0);
  EXPECT_EQ(s.max->f, 3.0);
}

TEST(StatsScanner, ProgressReachesTheTotal) {
  const auto v = values_with_specials(6'000'000);
  std::uint64_t last = 0, total = 0, calls = 0;
  ScanOptions options;
  options.threads = 1;  // progress comes once per unit: deterministic, whatever else the machine runs
  options.progress = [&](std::uint64_t done, std::uint64_t all) {
    EXPECT_GE(done, last);
    last = done;
    total = all;
    ++calls;
  };
  scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v), options);
  EXPECT_EQ(last, v.size() * 8);
  EXPECT_EQ(total, v.size() * 8);
  EXPECT_GT(calls, 1u);
}

TEST(StatsScanner, ProgressFromSeveralThreadsOnlyGoesUpAndEndsAtTheTotal) {
  const auto v = values_with_specials(6'000'000);
  std::uint64_t last = 0, total = 0;
  ScanOptions options;
  options.threads = 4;
  options.progress = [&](std::uint64_t done, std::uint64_t all) {
    EXPECT_GE(done, last);
    EXPECT_LE(done, all);
    last = done;
    total = all;
  };
  const TensorStats s = scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v), options);
  EXPECT_EQ(last, v.size() * 8);
  EXPECT_EQ(total, v.size() * 8);
  EXPECT_EQ(s.finite + s.nonfinite(), v.size());
}

TEST(StatsScanner, StopRequestCancelsTheScan) {
  const auto v = values_with_specials(6'000'000);
  std::stop_source stop;
  ScanOptions options;
  options.stop = stop.get_token();
  // One thread: the caller scans every unit, so its first progress report (and the stop it
  // asks for) comes before the last unit. With helpers, a loaded machine could let them
  // finish everything before the caller reports once.
  options.threads = 1;
  options.progress = [&](std::uint64_t, std::uint64_t) { stop.request_stop(); };
  EXPECT_THROW(scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v), options), ScanCancelled);
  // With helpers, a stop asked for before the scan cancels it too.
  std::stop_source early;
  early.request_stop();
  ScanOptions parallel;
  parallel.stop = early.get_token();
  parallel.threads = 4;
  EXPECT_THROW(scan_bytes(DType::Float64, ByteOrder::Little, bytes_of(v), parallel), ScanCancelled);
}
