#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace blasscope::core {

// LAPACK drivers run exactly as NumPy, SciPy and PyTorch call them, so a NaN or Inf in the
// input takes the real path of each (INFO, a DLASCL refusal, or a silent NaN result).
// All matrices are column-major and dense; A is overwritten.

// NumPy's svd and SciPy's default: gesdd (divide and conquer); SciPy's lapack_driver='gesvd'.
enum class SvdDriver { Gesdd, Gesvd };
// NumPy's and SciPy's lstsq: gelsd; PyTorch's CPU default: gelsy; the others SciPy and
// PyTorch offer: gelss (SVD), gels (QR, full rank only).
enum class LstsqDriver { Gelsd, Gelsy, Gelss, Gels };

std::optional<SvdDriver> svd_driver_named(std::string_view name);      // "gesdd", "gesvd"
std::optional<LstsqDriver> lstsq_driver_named(std::string_view name);  // "gelsd", "gelsy", "gelss", "gels"
const char* driver_name(SvdDriver driver);
const char* driver_name(LstsqDriver driver);
// The names of the driver's arguments in order, for an INFO = -i ("A", "LDA", ...).
std::vector<const char*> argument_names(SvdDriver driver);
std::vector<const char*> argument_names(LstsqDriver driver);
// What INFO > 0 means for the driver.
const char* positive_info_meaning(SvdDriver driver);
const char* positive_info_meaning(LstsqDriver driver);

// LWORK as a workspace query returned it: a REAL above 2^24 may have been rounded below the
// true minimum, so a little is added rather than trusted.
template <typename T>
std::int64_t workspace_elements(T size);

template <typename T>
struct LapackWorkspace {
  std::int64_t work = 0;   // elements of T
  std::int64_t iwork = 0;  // ints (gelsy: its column pivots)
  std::int64_t rwork = 0;  // reals, for the complex drivers' RWORK
};

// The largest of a workspace's arrays by LAPACK's name for its size (LWORK, LRWORK, LIWORK):
// each must fit LAPACK's 32-bit int.
template <typename T>
std::pair<const char*, std::int64_t> largest_workspace(const LapackWorkspace<T>& w) {
  if (w.rwork > w.work && w.rwork >= w.iwork) return {"LRWORK", w.rwork};
  if (w.iwork > w.work) return {"LIWORK", w.iwork};
  return {"LWORK", w.work};
}

// The SVD of the m x n matrix a: singular values into s (min(m, n)); with `vectors`, the
// thin U (m x min(m, n)) and V^T (min(m, n) x n) as well. Returns INFO.
template <typename T>
LapackWorkspace<T> svd_workspace(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n);
template <typename T>
int svd_run(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n, T* a, T* s, T* u, T* vt,
            std::vector<T>& work, std::vector<int>& iwork);

// Least squares A X = B: b is max(m, n) x nrhs and returns X in its first n rows; s gets
// the singular values (gelsd, gelss). rcond < 0 means machine precision. Returns INFO.
template <typename T>
LapackWorkspace<T> lstsq_workspace(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs);
template <typename T>
int lstsq_run(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a, T* b, T* s, T rcond,
              int& rank, std::vector<T>& work, std::vector<int>& iwork);

}  // namespace blasscope::core
