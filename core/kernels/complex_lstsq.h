#pragma once

// Least squares A X = B for complex matrices as NumPy, SciPy and PyTorch call it (?GELSD,
// ?GELSY, ?GELSS, ?GELS with TRANS 'N'), so a captured complex call replays its path. Column-major,
// dense; A and B are overwritten, X is B's first n rows. The singular values are real.
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/lapack_drivers.h"

namespace blasscope::core {

// Complex WORK, real RWORK and integer IWORK (GELSY: its column pivots), as LAPACK's query
// says, at least the documented minimums.
template <typename Real>
LapackWorkspace<double> complex_lstsq_workspace(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs);

// b is max(m, n) x nrhs; s gets min(m, n) singular values (gelsd, gelss). rcond < 0 means
// machine precision. Returns INFO.
template <typename Real>
int complex_lstsq_run(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs, std::complex<Real>* a,
                      std::complex<Real>* b, Real* s, Real rcond, int& rank, std::vector<std::complex<Real>>& work,
                      std::vector<Real>& rwork, std::vector<int>& iwork);

}  // namespace blasscope::core
