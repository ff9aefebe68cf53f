#pragma once

// The SVD of a complex matrix as NumPy and SciPy call it for complex input (?GESDD, or ?GESVD
// for SciPy's lapack_driver='gesvd'), so a NaN or Inf takes the same path it took in the
// program (ZGESDD's INFO = -4 for a NaN norm). The matrix is column-major and dense; A is
// overwritten. The singular values are real.
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/lapack_drivers.h"

namespace blasscope::core {

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
