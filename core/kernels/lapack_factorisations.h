#pragma once

// The factorisations and solvers NumPy, SciPy and PyTorch call for cholesky, solve/inv, det/lu
// and eigh, run as they call them: POTRF, GESV, GETRF, GETRS (SciPy's lu_solve), SYEVD, SYEV and
// SYEVR (SciPy's eigh). Their usual failures
// come from finite input (a matrix not positive definite, a singular one), which INFO > 0
// reports. All matrices are column-major and dense; A is overwritten.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/lapack_drivers.h"
#include "tensor/dtype.h"

namespace blasscope::core {

enum class FactorDriver { Potrf, Getrf, Gesv, Getrs, Syevd, Syev, Syevr };

// "potrf", "getrf", "gesv", "getrs", "syevd", "syev", "syevr"
std::optional<FactorDriver> factor_driver_named(std::string_view name);
const char* driver_name(FactorDriver driver);
// The names of the routine's arguments in order, for an INFO = -i ("UPLO", "N", ...).
std::vector<const char*> argument_names(FactorDriver driver);
// What INFO = info > 0 means for the routine.
std::string positive_info_meaning(FactorDriver driver, int info);

// What the routine needs beside its matrices, as LAPACK's query says: GETRF's and GESV's
// pivots and the eigen drivers' workspaces (SYEVD with vectors: about 2n^2 elements; SYEVR's
// also hold its Z, n^2, and ISUPPZ, 2n).
template <typename T>
LapackWorkspace<T> factor_workspace(FactorDriver driver, bool vectors, std::int64_t m, std::int64_t n);
// The same for a matrix of `dtype` (`work` in elements of it; complex ones: complex_factorisations.h).
LapackWorkspace<double> factor_workspace(DType dtype, FactorDriver driver, bool vectors, std::int64_t m,
                                         std::int64_t n);

// One call of the routine on the m x n matrix a (POTRF, SYEVD, SYEV: n x n, from the `uplo`
// triangle), with the workspace factor_workspace asked for. GESV solves A X = B for b
// (n x nrhs), leaving X in b; GETRS the same from GETRF's factors in a and its pivots in
// iwork, with `uplo` as its TRANS; the eigen drivers write the eigenvalues into w (n) and, with
// `vectors`, the eigenvectors over a (SYEVR, with RANGE 'A' and ABSTOL 0 as SciPy calls it,
// computes them into its Z, then copied over a). Returns INFO.
template <typename T>
int factor_run(FactorDriver driver, char uplo, bool vectors, std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a,
               T* b, T* w, std::vector<T>& work, std::vector<int>& iwork);

}  // namespace blasscope::core
