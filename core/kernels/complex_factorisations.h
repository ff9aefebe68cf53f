#pragma once

// The factorisations and solvers of complex matrices as NumPy, SciPy and PyTorch call them:
// ?POTRF, ?GETRF, ?GESV, ?GETRS and the Hermitian eigen drivers ?HEEVD, ?HEEV and ?HEEVR (what
// the real ops' SYEVD, SYEV and SYEVR are for complex input), so a captured complex call replays
// its INFO. Column-major, dense; A is overwritten. Eigenvalues are real.
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/lapack_factorisations.h"

namespace blasscope::core {

// The LAPACK name of the driver for a complex matrix: "heevd" for Syevd, ...; the others keep theirs.
const char* complex_driver_name(FactorDriver driver);
// Its arguments in order, for an INFO = -i: the eigen drivers take RWORK and LRWORK too.
std::vector<const char*> complex_argument_names(FactorDriver driver);

// What the routine needs beside its matrices, as LAPACK's query says (at least the documented
// minimums): complex WORK, real RWORK and integer IWORK (pivots for GETRF, GESV and GETRS).
template <typename Real>
LapackWorkspace<double> complex_factor_workspace(FactorDriver driver, bool vectors, std::int64_t m, std::int64_t n);

// One call, as factor_run (lapack_factorisations.h) for a real matrix: GETRS's pivots in
// iwork; `uplo` is GETRS's TRANS ('N', 'T' or 'C'); eigenvalues into w (n).
template <typename Real>
int complex_factor_run(FactorDriver driver, char uplo, bool vectors, std::int64_t m, std::int64_t n, std::int64_t nrhs,
                       std::complex<Real>* a, std::complex<Real>* b, Real* w, std::vector<std::complex<Real>>& work,
                       std::vector<Real>& rwork, std::vector<int>& iwork);

}  // namespace blasscope::core
