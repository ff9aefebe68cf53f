// GEMV, SYRK and TRSM as the replay op calls them, against plain loops, in both layouts.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/blas_calls.h"

using namespace blasscope::core;

namespace {

// Element (i, j) of an r x c matrix stored in `data` with leading dimension ld.
double& at(std::vector<double>& data, bool row_major, std::int64_t ld, std::int64_t i, std::int64_t j) {
  return data[static_cast<std::size_t>(row_major ? i * ld + j : j * ld + i)];
}

std::vector<double> filled(std::size_t n, double start) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + 0.25 * static_cast<double>(i % 7) - 0.1 * static_cast<double>(i);
  return v;
}

}  // namespace

TEST(BlasCalls, GemvMatchesItsDefinitionInBothLayoutsAndWithStrides) {
  for (const bool row_major : {false, true}) {
    for (const bool trans : {false, true}) {
      SCOPED_TRACE(std::to_string(row_major) + std::to_string(trans));
      const std::int64_t m = 5, n = 3, ld = row_major ? n + 2 : m + 1;  // padded
      std::vector<double> a = filled(static_cast<std::size_t>(ld * (row_major ? m : n)), 1.0);
      const std::int64_t lx = trans ? m : n, ly = trans ? n : m;
      std::vector<double> x = filled(static_cast<std::size_t>(2 * lx), -0.5),
                          y = filled(static_cast<std::size_t>(ly), 2);
      std::vector<double> expected(static_cast<std::size_t>(ly));
      for (std::int64_t i = 0; i < ly; ++i) {
        double sum = 0;
        for (std::int64_t j = 0; j < lx; ++j) {
          sum += (trans ? at(a, row_major, ld, j, i) : at(a, row_major, ld, i, j)) * x[static_cast<std::size_t>(2 * j)];
        }
        expected[static_cast<std::size_t>(i)] = 1.5 * sum + 0.5 * y[static_cast<std::size_t>(i)];
      }
      call_gemv(DType::Float64, {row_major, trans, m, n, ld, 2, 1}, 1.5, 0.5, a.data(), x.data(), y.data());
      for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-12) << i;
    }
  }
}

TEST(BlasCalls, SyrkWritesOnlyItsTriangle) {
  for (const bool row_major : {false, true}) {
    for (const char uplo : {'L', 'U'}) {
      SCOPED_TRACE(std::string(1, uplo) + std::to_string(row_major));
      const std::int64_t n = 4, k = 3;
      std::vector<double> a = filled(static_cast<std::size_t>(n * k), 0.5);  // n x k, dense
      const std::int64_t lda = row_major ? k : n;
      std::vector<double> c(static_cast<std::size_t>(n * n), -7.0);
      call_syrk(DType::Float64, {row_major, false, uplo, n, k, lda, n}, 1.0, 0.0, a.data(), c.data());
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::int64_t l = 0; l < k; ++l) dot += at(a, row_major, lda, i, l) * at(a, row_major, lda, j, l);
          const bool written = uplo == 'L' ? i >= j : i <= j;
          EXPECT_NEAR(at(c, row_major, n, i, j), written ? dot : -7.0, 1e-12) << i << "," << j;
        }
      }
    }
  }
}

TEST(BlasCalls, TrsmSolvesOnEitherSide) {
  for (const bool row_major : {false, true}) {
    for (const char side : {'L', 'R'}) {
      SCOPED_TRACE(std::string(1, side) + std::to_string(row_major));
      const std::int64_t m = 4, n = 3, ka = side == 'L' ? m : n;
      std::vector<double> a(static_cast<std::size_t>(ka * ka), 0.0);
      for (std::int64_t i = 0; i < ka; ++i) {
        for (std::int64_t j = 0; j <= i; ++j) at(a, row_major, ka, i, j) = i == j ? 2.0 + static_cast<double>(i) : 0.3;
      }
      const std::vector<double> b0 = filled(static_cast<std::size_t>(m * n), 1.0);
      std::vector<double> x = b0;
      const std::int64_t ldb = row_major ? n : m;
      call_trsm(DType::Float64, {row_major, false, false, side, 'L', m, n, ka, ldb}, 1.0, a.data(), x.data());
      // A X = B (left) or X A = B (right), with A lower triangular.
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::int64_t l = 0; l < ka; ++l) {
            sum += side == 'L' ? at(a, row_major, ka, i, l) * at(x, row_major, ldb, l, j)
                               : at(x, row_major, ldb, i, l) * at(a, row_major, ka, l, j);
          }
          EXPECT_NEAR(sum, b0[static_cast<std::size_t>(row_major ? i * n + j : j * m + i)], 1e-12) << i << "," << j;
        }
      }
    }
  }
}
