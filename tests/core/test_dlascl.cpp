#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/dlascl.h"
#include "kernels/lascl_element.h"
#include "kernels/xerbla_capture.h"

using namespace blasscope::core;

namespace {

template <typename T>
std::vector<T> test_matrix(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::vector<T> v(count);
  for (auto& x : v) x = static_cast<T>(normal(rng) * std::pow(10.0, exponent(rng) / 4.0));
  // Special values LAPACK must treat the same way we do.
  const T specials[] = {T(0),
                        -T(0),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max()};
  for (std::size_t i = 0; i < std::size(specials) && i * 7 < count; ++i) v[i * 7] = specials[i];
  return v;
}

// Bit-identical, except that a NaN's sign and payload are not compared: which NaN
// operand x86 returns depends on the operand order the compiler picked for x * mul,
// which differs between compilers (and between LAPACK builds).
template <typename T>
bool same_bits_or_both_nan(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return false;
  }
  return true;
}

template <typename T>
std::vector<T> interesting_scales() {
  using L = std::numeric_limits<T>;
  return {T(1),
          T(2),
          T(0.5),
          T(-3),
          T(1e-20),
          T(1e20),
          L::min(),
          L::denorm_min(),
          L::max(),
          -L::max(),
          L::min() * 16,
          L::max() / 3,
          L::infinity(),
          -L::infinity(),
          static_cast<T>(sizeof(T) == 8 ? 1e-300 : 1e-37),
          static_cast<T>(sizeof(T) == 8 ? 1e300 : 1e37),
          static_cast<T>(sizeof(T) == 8 ? 1e-310 : 1e-40)};
}

template <typename T>
void expect_bit_identical_to_lapack(std::int64_t m, std::int64_t n, std::int64_t lda, unsigned threads) {
  int compared = 0;
  for (char type : {'G', 'L', 'U', 'H'}) {
    for (T cfrom : interesting_scales<T>()) {
      std::vector<T> ctos = interesting_scales<T>();
      ctos.push_back(T(0));
      for (T cto : ctos) {
        const auto original = test_matrix<T>(static_cast<std::size_t>(lda * n), 11);
        auto ours = original, theirs = original;
        XerblaCapture capture;
        const int info_ours = blasscope_lascl<T>(type, cfrom, cto, m, n, ours.data(), lda, threads);
        const int info_theirs = lapack_lascl(type, cfrom, cto, m, n, theirs.data(), lda);
        ASSERT_EQ(info_ours, info_theirs);
        ASSERT_TRUE(same_bits_or_both_nan(ours, theirs))
            << "type " << type << " cfrom " << cfrom << " cto " << cto << " m " << m << " n " << n;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace

TEST(Dlascl, BitIdenticalToLapackForExtremeScalesDouble) {
  expect_bit_identical_to_lapack<double>(9, 7, 11, 1);
}

TEST(Dlascl, BitIdenticalToLapackForExtremeScalesFloat) {
  expect_bit_identical_to_lapack<float>(6, 9, 8, 1);
}

TEST(Dlascl, MultiThreadedLargeMatrixIsBitIdentical) {
  const std::int64_t m = 1500, n = 900, lda = 1503;
  const auto original = test_matrix<double>(static_cast<std::size_t>(lda * n), 5);
  for (const auto& [cfrom, cto] : {std::pair{1e-300, 1e300}, std::pair{3.0, 7.0}, std::pair{1e300, 4.9e-324}}) {
    auto ours = original, theirs = original;
    ASSERT_EQ(blasscope_lascl<double>('G', cfrom, cto, m, n, ours.data(), lda, 2), 0);
    ASSERT_EQ(lapack_lascl('G', cfrom, cto, m, n, theirs.data(), lda), 0);
    EXPECT_TRUE(same_bits_or_both_nan(ours, theirs)) << cfrom << " " << cto;
  }
}

TEST(Dlascl, ArgumentErrorsMatchLapackIncludingXerbla) {
  std::vector<double> a(16, 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    char type;
    double cfrom, cto;
    std::int64_t m, n, lda;
    int info;
  };
  const Case cases[] = {{'X', 1, 1, 2, 2, 2, -1},   {'G', 0, 1, 2, 2, 2, -4},  {'G', nan, 1, 2, 2, 2, -4},
                        {'G', 1, nan, 2, 2, 2, -5}, {'G', 1, 1, -1, 2, 2, -6}, {'G', 1, 1, 2, -1, 2, -7},
                        {'G', 1, 1, 4, 2, 3, -9}};
  for (const Case& c : cases) {
    XerblaCapture ours_capture;
    const int ours = blasscope_lascl<double>(c.type, c.cfrom, c.cto, c.m, c.n, a.data(), c.lda);
    ASSERT_EQ(ours_capture.calls().size(), 1u);
    XerblaCapture theirs_capture;
    const int theirs = lapack_lascl(c.type, c.cfrom, c.cto, c.m, c.n, a.data(), c.lda);
    ASSERT_EQ(theirs_capture.calls().size(), 1u);
    EXPECT_EQ(ours, c.info);
    EXPECT_EQ(theirs, c.info);
    EXPECT_EQ(ours_capture.calls()[0].routine, "DLASCL");
    EXPECT_EQ(theirs_capture.calls()[0].routine, "DLASCL");
    EXPECT_EQ(ours_capture.calls()[0].parameter, -c.info);
    EXPECT_EQ(theirs_capture.calls()[0].parameter, -c.info);
  }
}

TEST(Dlascl, MultipliersFollowLapacksSafeSteps) {
  EXPECT_EQ(lascl_multipliers(2.0, 6.0), std::vector<double>{3.0});
  // 1e300 / 1e-300 overflows in one step: LAPACK multiplies by BIGNUM first.
  const auto steps = lascl_multipliers(1e-300, 1e300);
  ASSERT_GT(steps.size(), 1u);
  EXPECT_EQ(steps.front(), 1.0 / std::numeric_limits<double>::min());
  EXPECT_EQ(lascl_multipliers(std::numeric_limits<double>::infinity(), 2.0), std::vector<double>{0.0});
}

// The CUDA kernel's per-element logic (kernels/lascl_element.h, compiled for the device
// too), run here on the host: it must match LAPACK bit for bit.
TEST(Dlascl, SharedElementLogicOfTheGpuKernelMatchesLapack) {
  const std::int64_t m = 7, n = 9, lda = 8;
  int compared = 0;
  for (char type : {'G', 'L', 'U', 'H'}) {
    for (double cfrom : interesting_scales<double>()) {
      for (double cto : interesting_scales<double>()) {
        const auto original = test_matrix<double>(static_cast<std::size_t>(lda * n), 3);
        auto device_logic = original, lapack = original;
        const auto muls = lascl_multipliers(cfrom, cto);
        for (std::int64_t j = 0; j < n; ++j) {
          std::int64_t first = 0, last = 0;
          lascl_row_range(type, m, j, first, last);
          for (std::int64_t i = first; i < last; ++i) {
            double& x = device_logic[static_cast<std::size_t>(j * lda + i)];
            x = lascl_scale_element(x, muls.data(), static_cast<int>(muls.size()));
          }
        }
        XerblaCapture quiet;
        ASSERT_EQ(lapack_lascl(type, cfrom, cto, m, n, lapack.data(), lda), 0);
        ASSERT_TRUE(same_bits_or_both_nan(device_logic, lapack)) << type << " " << cfrom << " " << cto;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// The CUDA kernel's tile indexing (row and column of element e of a block's tile, from a
// float reciprocal instead of an integer division), checked here for every tile shape.
TEST(Dlascl, GpuTilePositionIsExactForEveryTileShape) {
  constexpr int kTile = 4096;  // the kernel's elements per block
  for (int rows = 1; rows <= kTile; ++rows) {
    const float inverse = 1.0f / static_cast<float>(rows);
    for (int e = 0; e < kTile; ++e) {
      int li = -1, lj = -1;
      lascl_tile_position(e, rows, inverse, li, lj);
      if (li != e % rows || lj != e / rows) {
        FAIL() << "rows " << rows << " element " << e << ": got (" << li << ", " << lj << ")";
      }
    }
  }
}

// Each CUDA thread walks elements tid, tid + 256, ... of its block's tile by additions
// (LasclTileCursor): the walk gives every element's exact row and column, for every tile shape.
TEST(Dlascl, GpuTileCursorWalksTheExactPositions) {
  constexpr int kThreads = kLasclThreads;
  for (const int kPerThread : {kLasclPerThread, kLasclSegmentPerThread}) {
    const int kTile = kThreads * kPerThread;
    for (int rows = 1; rows <= kTile; ++rows) {
      const LasclTiling t = lascl_tiling(rows, 1, kTile);
      ASSERT_EQ(t.rows, rows);
      for (int tid = 0; tid < kThreads; ++tid) {
        LasclTileCursor c = lascl_tile_cursor(t, tid, kThreads);
        for (int k = 0; k < kPerThread; ++k, lascl_tile_advance(c, t.rows)) {
          const int e = tid + k * kThreads;
          if (c.li != e % rows || c.lj != e / rows) {
            FAIL() << "rows " << rows << " element " << e << ": got (" << c.li << ", " << c.lj << ")";
          }
        }
      }
    }
  }
}

// The CUDA kernel's launch, simulated block by block and thread by thread on the host with its
// shared plan and tiling code (kernels/lascl_element.h): every element ?LASCL scales is visited
// exactly once, nothing else (padding between columns, the untouched triangle) ever is. Small
// blocks and grid caps make the kernel's column loop run several times; the real block size
// checks each path the plan picks (a padless G matrix as one column, tiles of one segment of 16
// or 8 elements a thread, the general walk).
TEST(Dlascl, GpuTilesCoverExactlyTheScaledElements) {
  struct Case {
    char type;
    std::int64_t m, n, lda;
    int threads, max_grid_y;
  };
  int paths[3] = {0, 0, 0};  // segments of 16 elements a thread, segments of 8, the general walk
  for (const Case c : {Case{'G', 1, 1, 1, 16, 65535},
                       Case{'G', 7, 300, 9, 16, 5},
                       Case{'U', 100, 37, 100, 16, 3},
                       Case{'L', 130, 90, 131, 16, 4},
                       Case{'H', 64, 64, 64, 16, 2},
                       Case{'G', 65, 3, 70, 16, 65535},
                       Case{'G', 200, 30, 200, 16, 7},
                       Case{'L', 5, 3000, 5, 16, 65535},
                       Case{'U', 300, 2, 301, 16, 65535},
                       Case{'U', 5, 200, 5, kLasclThreads, 65535},
                       Case{'G', 3000, 5, 3001, kLasclThreads, 65535},
                       Case{'L', 9000, 3, 9000, kLasclThreads, 65535},
                       Case{'U', 1500, 40, 1501, kLasclThreads, 7},
                       Case{'H', 2047, 9, 2050, kLasclThreads, 65535},
                       Case{'G', 1000, 50, 1000, kLasclThreads, 3},
                       Case{'G', 5000, 7, 5003, kLasclThreads, 65535},
                       Case{'L', 4097, 20, 4100, kLasclThreads, 6},
                       Case{'U', 300, 300, 301, kLasclThreads, 65535},
                       Case{'G', 100, 777, 100, kLasclThreads, 65535},
                       Case{'G', 1, 9000, 1, kLasclThreads, 65535},
                       Case{'G', 40, 30, 41, kLasclThreads, 65535}}) {
    const LasclLaunchPlan p = lascl_launch_plan(c.type, c.m, c.n, c.lda, c.threads);
    const LasclTiling& t = p.tiling;
    ++paths[p.per_thread == kLasclSegmentPerThread ? 0 : p.segment ? 1 : 2];
    ASSERT_EQ(p.segment, t.cols == 1);
    std::vector<int> visits(static_cast<std::size_t>(c.lda * c.n), 0);
    const std::int64_t grid_y = std::min<std::int64_t>(t.col_blocks, c.max_grid_y);
    for (std::int64_t bx = 0; bx < t.row_blocks; ++bx) {
      for (std::int64_t by = 0; by < grid_y; ++by) {
        for (std::int64_t col0 = by * t.cols; col0 < p.n; col0 += grid_y * t.cols) {
          if (p.segment) {  // the kernel's one-segment path
            std::int64_t first = 0, last = 0;
            lascl_row_range(c.type, p.m, col0, first, last);
            for (std::int64_t e = 0; e < c.threads * p.per_thread; ++e) {
              const std::int64_t i = bx * t.rows + e;
              if (i >= first && i < last) ++visits[static_cast<std::size_t>(col0 * p.lda + i)];
            }
            continue;
          }
          for (int tid = 0; tid < c.threads; ++tid) {
            LasclTileCursor cursor = lascl_tile_cursor(t, tid, c.threads);
            for (int k = 0; k < p.per_thread; ++k, lascl_tile_advance(cursor, t.rows)) {
              std::int64_t offset = -1;
              if (lascl_cursor_element(c.type, p.m, p.n, p.lda, t, bx * t.rows, col0, cursor, offset)) {
                ASSERT_GE(offset, 0);
                ASSERT_LT(offset, c.lda * c.n);
                ++visits[static_cast<std::size_t>(offset)];
              }
            }
          }
        }
      }
    }
    for (std::int64_t j = 0; j < c.n; ++j) {
      std::int64_t first = 0, last = 0;
      lascl_row_range(c.type, c.m, j, first, last);
      for (std::int64_t i = 0; i < c.lda; ++i) {
        const bool scaled = i >= first && i < last && i < c.m;
        ASSERT_EQ(visits[static_cast<std::size_t>(j * c.lda + i)], scaled ? 1 : 0)
            << c.type << " m " << c.m << " n " << c.n << " at (" << i << ", " << j << ")";
      }
    }
  }
  for (int path : paths) EXPECT_GT(path, 0);  // the cases cover every path
}

TEST(Dlascl, BoundedScalingStepsAreTheSameSteps) {
  for (double cfrom : interesting_scales<double>()) {
    for (double cto : interesting_scales<double>()) {
      const auto muls = lascl_multipliers(cfrom, cto);
      ASSERT_LE(muls.size(), 8u);
      double bounded[8] = {};
      std::copy(muls.begin(), muls.end(), bounded);
      for (double x : {1.0, -3.5, 1e-310, 1e308, 0.0}) {
        const double a = lascl_scale_element(x, muls.data(), static_cast<int>(muls.size()));
        const double b = lascl_scale_element_bounded(x, bounded, static_cast<int>(muls.size()));
        ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << cfrom << " " << cto << " " << x;
      }
    }
  }
}
