#pragma once

// The SVD of a complex matrix as NumPy and SciPy call it for complex input (?GESDD, or ?GESVD
// for SciPy's lapack_driver='gesvd'), so a NaN or Inf takes the same path it took in the
// program (ZGESDD's INFO = -4 for a NaN norm). The matrix is column-major and dense; A is
// overwritten. The singular values are real.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/lapack_drivers.h"

namespace blasscope::core {

// OpenBLAS 0.3.21's complex GEMV kernels (inside ?GEBD2: the complex SVDs and least squares)
// read up to min(m, n) elements past the end of an m x n A: harmless in a program's heap, a
// crash against the guard page after a tensor. A copy LAPACK works on gets this many elements
// of room after it, which LAPACK is not told of.
inline std::uint64_t complex_overread_room(std::uint64_t m, std::uint64_t n) {
  return std::max(m, n) + 64;
}

// The same room as whole columns of `rows` elements (a column-major copy's extra columns).
inline std::uint64_t complex_overread_columns(std::uint64_t m, std::uint64_t n, std::uint64_t rows) {
  return (complex_overread_room(m, n) + rows - 1) / std::max<std::uint64_t>(rows, 1);
}

// Workspace sizes, in elements: complex WORK, real RWORK, integer IWORK.
struct ComplexSvdWorkspace {
  std::int64_t work = 0, rwork = 0, iwork = 0;
};

template <typename Real>
ComplexSvdWorkspace complex_svd_workspace(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n);

// Singular values into s (min(m, n)); with `vectors` the thin U (m x min(m, n)) and V^H
// (min(m, n) x n) too. Returns INFO.
template <typename Real>
int complex_svd_run(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n, std::complex<Real>* a, Real* s,
                    std::complex<Real>* u, std::complex<Real>* vt, std::vector<std::complex<Real>>& work,
                    std::vector<Real>& rwork, std::vector<int>& iwork);

}  // namespace blasscope::core
