#include "kernels/lapack_factorisations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/complex_factorisations.h"

extern "C" {
void dpotrf_(const char*, const int*, double*, const int*, int*, std::size_t);
void spotrf_(const char*, const int*, float*, const int*, int*, std::size_t);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
void sgesv_(const int*, const int*, float*, const int*, int*, float*, const int*, int*);
void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*, int*,
             std::size_t);
void sgetrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*, const int*, int*,
             std::size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, const int*,
             int*, std::size_t, std::size_t);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*, const int*,
             int*, std::size_t, std::size_t);
void dsyev_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, std::size_t,
            std::size_t);
void dsyevr_(const char*, const char*, const char*, const int*, double*, const int*, const double*, const double*,
             const int*, const int*, const double*, int*, double*, double*, const int*, int*, double*, const int*, int*,
             const int*, int*, std::size_t, std::size_t, std::size_t);
void ssyevr_(const char*, const char*, const char*, const int*, float*, const int*, const float*, const float*,
             const int*, const int*, const float*, int*, float*, float*, const int*, int*, float*, const int*, int*,
             const int*, int*, std::size_t, std::size_t, std::size_t);
void ssyev_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*, std::size_t,
            std::size_t);
}

namespace blasscope::core {
namespace {

// The precision's routine of each name, so that the templates below call the right one.
void potrf(const char* uplo, const int* n, double* a, const int* lda, int* info) {
  dpotrf_(uplo, n, a, lda, info, 1);
}
void potrf(const char* uplo, const int* n, float* a, const int* lda, int* info) {
  spotrf_(uplo, n, a, lda, info, 1);
}
void getrf(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info) {
  dgetrf_(m, n, a, lda, ipiv, info);
}
void getrf(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info) {
  sgetrf_(m, n, a, lda, ipiv, info);
}
void gesv(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info) {
  dgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
}
void gesv(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info) {
  sgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
}
void getrs(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
           double* b, const int* ldb, int* info) {
  dgetrs_(trans, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
void getrs(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
           const int* ldb, int* info) {
  sgetrs_(trans, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
void syevd(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
           const int* lwork, int* iwork, const int* liwork, int* info) {
  dsyevd_(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);
}
void syevd(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
           const int* lwork, int* iwork, const int* liwork, int* info) {
  ssyevd_(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);
}
void syev(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
          const int* lwork, int* info) {
  dsyev_(jobz, uplo, n, a, lda, w, work, lwork, info, 1, 1);
}
void syev(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
          const int* lwork, int* info) {
  ssyev_(jobz, uplo, n, a, lda, w, work, lwork, info, 1, 1);
}

// SYEVR of all eigenvalues (RANGE 'A': VL, VU, IL and IU are not referenced), ABSTOL 0.
template <typename T>
void syevr_all(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, int* found, T* w, T* z,
               const int* ldz, int* isuppz, T* work, const int* lwork, int* iwork, const int* liwork, int* info) {
  const T zero = 0;
  const int none = 0;
  if constexpr (std::is_same_v<T, double>) {
    dsyevr_(jobz, "A", uplo, n, a, lda, &zero, &zero, &none, &none, &zero, found, w, z, ldz, isuppz, work, lwork, iwork,
            liwork, info, 1, 1, 1);
  } else {
    ssyevr_(jobz, "A", uplo, n, a, lda, &zero, &zero, &none, &none, &zero, found, w, z, ldz, isuppz, work, lwork, iwork,
            liwork, info, 1, 1, 1);
  }
}

// The eigen drivers' LWORK (and SYEVD's and SYEVR's LIWORK) for an n x n matrix, as their
// query says.
template <typename T>
void eigen_query(FactorDriver driver, bool vectors, int n, T& lwork, int& liwork) {
  const int lda = std::max(1, n), query = -1;
  int info = 0, found = 0, isuppz[2] = {};
  T unused = 0;
  liwork = 1;
  if (driver == FactorDriver::Syevd) {
    syevd(vectors ? "V" : "N", "L", &n, &unused, &lda, &unused, &lwork, &query, &liwork, &query, &info);
  } else if (driver == FactorDriver::Syevr) {
    syevr_all<T>(vectors ? "V" : "N", "L", &n, &unused, &lda, &found, &unused, &unused, &lda, isuppz, &lwork, &query,
                 &liwork, &query, &info);
  } else {
    syev(vectors ? "V" : "N", "L", &n, &unused, &lda, &unused, &lwork, &query, &info);
  }
}

}  // namespace

std::optional<FactorDriver> factor_driver_named(std::string_view name) {
  for (FactorDriver d : {FactorDriver::Potrf, FactorDriver::Getrf, FactorDriver::Gesv, FactorDriver::Getrs,
                         FactorDriver::Syevd, FactorDriver::Syev, FactorDriver::Syevr}) {
    if (name == driver_name(d)) return d;
  }
  return std::nullopt;
}

const char* driver_name(FactorDriver driver) {
  switch (driver) {
    case FactorDriver::Potrf: return "potrf";
    case FactorDriver::Getrf: return "getrf";
    case FactorDriver::Gesv: return "gesv";
    case FactorDriver::Getrs: return "getrs";
    case FactorDriver::Syevd: return "syevd";
    case FactorDriver::Syevr: return "syevr";
    case FactorDriver::Syev: break;
  }
  return "syev";
}

std::vector<const char*> argument_names(FactorDriver driver) {
  switch (driver) {
    case FactorDriver::Potrf: return {"UPLO", "N", "A", "LDA", "INFO"};
    case FactorDriver::Getrf: return {"M", "N", "A", "LDA", "IPIV", "INFO"};
    case FactorDriver::Gesv: return {"N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "INFO"};
    case FactorDriver::Getrs: return {"TRANS", "N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "INFO"};
    case FactorDriver::Syevd: return {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK", "IWORK", "LIWORK", "INFO"};
    case FactorDriver::Syevr:
      return {"JOBZ", "RANGE", "UPLO", "N",   "A",      "LDA",  "VL",    "VU",    "IL",     "IU",  "ABSTOL",
              "M",    "W",     "Z",    "LDZ", "ISUPPZ", "WORK", "LWORK", "IWORK", "LIWORK", "INFO"};
    case FactorDriver::Syev: break;
  }
  return {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK", "INFO"};
}

std::string positive_info_meaning(FactorDriver driver, int info) {
  const std::string i = std::to_string(info);
  switch (driver) {
    case FactorDriver::Potrf: return "the leading minor of order " + i + " is not positive definite";
    case FactorDriver::Getrf:
    case FactorDriver::Gesv: return "U(" + i + "," + i + ") is exactly zero: the matrix is singular";
    case FactorDriver::Syevr: return "an internal error in the eigenvalue algorithm";
    case FactorDriver::Getrs: return "INFO = " + i + ", which GETRS never returns";
    case FactorDriver::Syevd:
    case FactorDriver::Syev: break;
  }
  return "the eigenvalue algorithm did not converge";
}

template <typename T>
LapackWorkspace<T> factor_workspace(FactorDriver driver, bool vectors, std::int64_t m, std::int64_t n) {
  switch (driver) {
    case FactorDriver::Potrf: return {};
    case FactorDriver::Getrf: return {0, std::max<std::int64_t>(1, std::min(m, n))};
    case FactorDriver::Gesv:
    case FactorDriver::Getrs: return {0, std::max<std::int64_t>(1, n)};  // the pivots (GETRS: given)
    case FactorDriver::Syevd:
    case FactorDriver::Syev:
    case FactorDriver::Syevr: break;
  }
  T lwork = 0;
  int liwork = 1;
  eigen_query<T>(driver, vectors, static_cast<int>(n), lwork, liwork);
  // The documented minimums, in 64 bits: from n = 32767 SYEVD's 1 + 6n + 2n^2 overflows
  // LAPACK's int and its query answers far too little (factor_run refuses what does not fit).
  if (driver == FactorDriver::Syevr) {  // LWORK >= 26n, LIWORK >= 10n; then Z and ISUPPZ
    const std::int64_t z = vectors ? n * n : 0;
    return {std::max(workspace_elements(lwork), std::max<std::int64_t>(1, 26 * n)) + z,
            std::max<std::int64_t>({1, liwork, 10 * n}) + 2 * std::max<std::int64_t>(1, n)};
  }
  const std::int64_t least = driver == FactorDriver::Syev ? std::max<std::int64_t>(1, 3 * n - 1)
                             : vectors                    ? 1 + 6 * n + 2 * n * n
                                                          : 2 * n + 1;
  const std::int64_t least_ints = vectors ? 3 + 5 * n : 1;
  return {std::max(workspace_elements(lwork), least),
          driver == FactorDriver::Syevd ? std::max<std::int64_t>({1, liwork, least_ints}) : 0};
}

template <typename T>
int factor_run(FactorDriver driver, char uplo, bool vectors, std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a,
               T* b, T* w, std::vector<T>& work, std::vector<int>& iwork) {
  // The sizes fit LAPACK's ints: the workload plan refuses those that do not.
  const int rows = static_cast<int>(m), cols = static_cast<int>(n), rhs = static_cast<int>(nrhs);
  const int lda = std::max(1, rows);
  const int lwork = static_cast<int>(std::min<std::size_t>(work.size(), INT32_MAX));
  const int liwork = static_cast<int>(std::min<std::size_t>(iwork.size(), INT32_MAX));
  const char triangle[2] = {uplo, '\0'};
  const char* jobz = vectors ? "V" : "N";
  int info = 0;
  switch (driver) {
    case FactorDriver::Potrf: potrf(triangle, &cols, a, &lda, &info); break;
    case FactorDriver::Getrf: getrf(&rows, &cols, a, &lda, iwork.data(), &info); break;
    case FactorDriver::Gesv: gesv(&cols, &rhs, a, &lda, iwork.data(), b, &lda, &info); break;
    case FactorDriver::Getrs: getrs(triangle, &cols, &rhs, a, &lda, iwork.data(), b, &lda, &info); break;
    case FactorDriver::Syevd:
      syevd(jobz, triangle, &cols, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info);
      break;
    case FactorDriver::Syev: syev(jobz, triangle, &cols, a, &lda, w, work.data(), &lwork, &info); break;
    case FactorDriver::Syevr: {
      // The workspace ends with Z (vectors: n x n) and the integer one with ISUPPZ (2n).
      const std::size_t z_size = vectors ? static_cast<std::size_t>(n) * static_cast<std::size_t>(n) : 0;
      const std::size_t isuppz_size = 2 * static_cast<std::size_t>(std::max<std::int64_t>(1, n));
      if (work.size() <= z_size) return -18;        // LWORK: too small
      if (iwork.size() <= isuppz_size) return -20;  // LIWORK
      T* z = work.data() + (work.size() - z_size);
      int* isuppz = iwork.data() + (iwork.size() - isuppz_size);
      const int work_left = static_cast<int>(std::min<std::size_t>(work.size() - z_size, INT32_MAX));
      const int iwork_left = static_cast<int>(std::min<std::size_t>(iwork.size() - isuppz_size, INT32_MAX));
      int found = 0;
      syevr_all<T>(jobz, triangle, &cols, a, &lda, &found, w, vectors ? z : w, &lda, isuppz, work.data(), &work_left,
                   iwork.data(), &iwork_left, &info);
      if (vectors) std::copy(z, z + z_size, a);  // the eigenvectors over A, as the other drivers leave them
      // With RANGE 'A' SYEVR can still return INFO = 0 and M < N (M = 0 on a NaN, on this
      // LAPACK): the eigenpairs it did not compute are NaN here, not whatever W and Z held.
      if (info == 0 && found < cols) {
        std::fill(w + std::max(found, 0), w + cols, std::numeric_limits<T>::quiet_NaN());
        if (vectors)
          std::fill(a + static_cast<std::size_t>(std::max(found, 0)) * lda, a + z_size,
                    std::numeric_limits<T>::quiet_NaN());
      }
      break;
    }
  }
  return info;
}

LapackWorkspace<double> factor_workspace(DType dtype, FactorDriver driver, bool vectors, std::int64_t m,
                                         std::int64_t n) {
  if (dtype == DType::Float64) return factor_workspace<double>(driver, vectors, m, n);
  if (dtype == DType::Complex128) return complex_factor_workspace<double>(driver, vectors, m, n);
  if (dtype == DType::Complex64) return complex_factor_workspace<float>(driver, vectors, m, n);
  const auto sizes = factor_workspace<float>(driver, vectors, m, n);
  return {sizes.work, sizes.iwork};
}

template LapackWorkspace<float> factor_workspace<float>(FactorDriver, bool, std::int64_t, std::int64_t);
template LapackWorkspace<double> factor_workspace<double>(FactorDriver, bool, std::int64_t, std::int64_t);
template int factor_run<float>(FactorDriver, char, bool, std::int64_t, std::int64_t, std::int64_t, float*, float*,
                               float*, std::vector<float>&, std::vector<int>&);
template int factor_run<double>(FactorDriver, char, bool, std::int64_t, std::int64_t, std::int64_t, double*, double*,
                                double*, std::vector<double>&, std::vector<int>&);

}  // namespace blasscope::core
