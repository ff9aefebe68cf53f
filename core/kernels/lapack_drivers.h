#pragma once

#include <cstdint>
#include <vector>

namespace blasscope::core {

// LAPACK drivers run exactly as NumPy/SciPy call them, so a NaN in the input reproduces
// the real failure path (INFO, or DLASCL's parameter-4 error on other LAPACK builds).
// All matrices are column-major and dense; A is overwritten.

// Workspace elements (T) and integer workspace ?gesdd needs for singular values only.
template <typename T>
struct LapackWorkspace {
  std::int64_t work = 0;
  std::int64_t iwork = 0;
};

template <typename T>
LapackWorkspace<T> gesdd_workspace(std::int64_t m, std::int64_t n);
// ?gesdd with JOBZ='N': singular values into s (min(m, n) values). Returns INFO.
template <typename T>
int gesdd_values(std::int64_t m, std::int64_t n, T* a, T* s, std::vector<T>& work, std::vector<int>& iwork);

template <typename T>
LapackWorkspace<T> gelsd_workspace(std::int64_t m, std::int64_t n, std::int64_t nrhs);
// ?gelsd: least-squares solution of A X = B; b is max(m, n) x nrhs and returns X in its
// first n rows. rcond < 0 means machine precision, as NumPy's lstsq(rcond=None) uses.
template <typename T>
int gelsd_solve(std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a, T* b, T* s, T rcond, int& rank,
                std::vector<T>& work, std::vector<int>& iwork);

}  // namespace blasscope::core
