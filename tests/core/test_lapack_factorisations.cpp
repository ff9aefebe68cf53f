// The eigen drivers as the eigh op runs them, on this LAPACK: SYEVR (SciPy's default) gives the
// eigenpairs SYEVD gives, its Z copied over A.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/lapack_factorisations.h"

using namespace blasscope::core;

namespace {

template <typename T>
std::vector<T> random_symmetric(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> a(static_cast<std::size_t>(n) * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i <= j; ++i) a[j * n + i] = a[i * n + j] = static_cast<T>(dist(rng));
  }
  return a;
}

// Eigenvalues (and with `vectors`, eigenvectors over the returned matrix) of `a`.
template <typename T>
int eigen(FactorDriver driver, char uplo, bool vectors, int n, std::vector<T>& a, std::vector<T>& w) {
  const auto sizes = factor_workspace<T>(driver, vectors, n, n);
  std::vector<T> work(static_cast<std::size_t>(sizes.work));
  std::vector<int> iwork(static_cast<std::size_t>(sizes.iwork));
  w.assign(static_cast<std::size_t>(n), 0);
  return factor_run<T>(driver, uplo, vectors, n, n, 0, a.data(), nullptr, w.data(), work, iwork);
}

template <typename T>
void expect_syevr_matches_syevd(double tolerance, bool vectors) {
  for (const int n : {1, 7, 64}) {
    for (const char uplo : {'L', 'U'}) {
      const std::vector<T> original = random_symmetric<T>(n, static_cast<unsigned>(n));
      std::vector<T> by_syevd = original, by_syevr = original, w_syevd, w_syevr;
      ASSERT_EQ(eigen<T>(FactorDriver::Syevd, uplo, false, n, by_syevd, w_syevd), 0);
      ASSERT_EQ(eigen<T>(FactorDriver::Syevr, uplo, vectors, n, by_syevr, w_syevr), 0);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(w_syevr[i], w_syevd[i], tolerance) << "n " << n << " eigenvalue " << i;
      // Each column v of the result: A v = lambda v, |v| = 1.
      for (int k = 0; vectors && k < n; ++k) {
        double residual = 0, norm = 0;
        for (int i = 0; i < n; ++i) {
          double av = 0;
          for (int j = 0; j < n; ++j) av += static_cast<double>(original[j * n + i]) * by_syevr[k * n + j];
          residual = std::max(residual, std::abs(av - static_cast<double>(w_syevr[k]) * by_syevr[k * n + i]));
          norm += static_cast<double>(by_syevr[k * n + i]) * by_syevr[k * n + i];
        }
        EXPECT_LT(residual, tolerance * n) << "n " << n << " uplo " << uplo << " vector " << k;
        EXPECT_NEAR(norm, 1.0, tolerance * n);
      }
    }
  }
}

}  // namespace

TEST(LapackFactorisations, SyevrGivesTheEigenpairsSyevdGives) {
  expect_syevr_matches_syevd<double>(1e-12, true);
  expect_syevr_matches_syevd<double>(1e-12, false);
  expect_syevr_matches_syevd<float>(2e-5, true);
}

TEST(LapackFactorisations, TheEigenpairsSyevrDidNotComputeAreNaN) {
  // A NaN off the diagonal: this LAPACK's DSYEVR returns INFO = 0 having computed no eigenvalue
  // (M = 0), and leaves W and Z as they were. The eigh op's results say so: NaN, not zeros.
  constexpr int n = 8;
  for (const bool vectors : {true, false}) {
    std::vector<double> a = random_symmetric<double>(n, 4), w;
    a[1] = a[n] = std::nan("");  // (1, 0) and (0, 1)
    const int info = eigen<double>(FactorDriver::Syevr, 'L', vectors, n, a, w);
    if (info != 0) {
      EXPECT_GT(info, 0) << "vectors " << vectors;  // INFO > 0 says it (without vectors, here)
      continue;
    }
    EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](double v) { return !std::isfinite(v); }))
        << "INFO = 0 from a NaN: every eigenvalue must be NaN or not finite, vectors " << vectors;
    if (vectors) {
      EXPECT_TRUE(std::isnan(a[0]) && std::isnan(a[n * n - 1]));
    }
  }
  EXPECT_EQ(positive_info_meaning(FactorDriver::Syevr, 1), "an internal error in the eigenvalue algorithm");
  EXPECT_EQ(argument_names(FactorDriver::Syevr).size(), 21u);
}

// GETRS from GETRF's factors and pivots solves A X = B, and with TRANS 'T' A^T X = B: checked by
// multiplying back, in both precisions.
template <typename T>
void expect_getrs_solves(double tolerance) {
  const int n = 9, nrhs = 3;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> a(n * n), b(n * nrhs);
  for (auto& v : a) v = static_cast<T>(dist(rng));
  for (auto& v : b) v = static_cast<T>(dist(rng));
  std::vector<T> lu = a, none;
  std::vector<int> pivots(n);
  ASSERT_EQ(factor_run<T>(FactorDriver::Getrf, 'N', false, n, n, 0, lu.data(), nullptr, nullptr, none, pivots), 0);
  for (const char trans : {'N', 'T'}) {
    std::vector<T> x = b;
    std::vector<int> given = pivots;
    ASSERT_EQ(factor_run<T>(FactorDriver::Getrs, trans, false, n, n, nrhs, lu.data(), x.data(), nullptr, none, given),
              0);
    for (int c = 0; c < nrhs; ++c) {
      for (int i = 0; i < n; ++i) {
        double sum = 0;  // row i of A (or of A^T) times column c of X
        for (int j = 0; j < n; ++j) sum += double(trans == 'N' ? a[j * n + i] : a[i * n + j]) * x[c * n + j];
        EXPECT_NEAR(sum, b[c * n + i], tolerance) << trans << " row " << i << " column " << c;
      }
    }
  }
  EXPECT_EQ(factor_driver_named("getrs"), FactorDriver::Getrs);
  EXPECT_EQ(argument_names(FactorDriver::Getrs).size(), 9u);
}

TEST(LapackFactorisations, GetrsSolvesFromGetrfsFactorsInBothPrecisions) {
  expect_getrs_solves<double>(1e-10);
  expect_getrs_solves<float>(1e-3);
}
