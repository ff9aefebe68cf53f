#include "kernels/complex_factorisations.h"

#include <algorithm>
#include <cstddef>
#include <limits>

// The Fortran interfaces (hidden string lengths last); COMPLEX*16 as std::complex<double>,
// which has its layout.
using Z = std::complex<double>;
using C = std::complex<float>;
extern "C" {
void zpotrf_(const char*, const int*, Z*, const int*, int*, std::size_t);
void cpotrf_(const char*, const int*, C*, const int*, int*, std::size_t);
void zgetrf_(const int*, const int*, Z*, const int*, int*, int*);
void cgetrf_(const int*, const int*, C*, const int*, int*, int*);
void zgesv_(const int*, const int*, Z*, const int*, int*, Z*, const int*, int*);
void cgesv_(const int*, const int*, C*, const int*, int*, C*, const int*, int*);
void zgetrs_(const char*, const int*, const int*, const Z*, const int*, const int*, Z*, const int*, int*, std::size_t);
void cgetrs_(const char*, const int*, const int*, const C*, const int*, const int*, C*, const int*, int*, std::size_t);
void zheevd_(const char*, const char*, const int*, Z*, const int*, double*, Z*, const int*, double*, const int*, int*,
             const int*, int*, std::size_t, std::size_t);
void cheevd_(const char*, const char*, const int*, C*, const int*, float*, C*, const int*, float*, const int*, int*,
             const int*, int*, std::size_t, std::size_t);
void zheev_(const char*, const char*, const int*, Z*, const int*, double*, Z*, const int*, double*, int*, std::size_t,
            std::size_t);
void cheev_(const char*, const char*, const int*, C*, const int*, float*, C*, const int*, float*, int*, std::size_t,
            std::size_t);
void zheevr_(const char*, const char*, const char*, const int*, Z*, const int*, const double*, const double*,
             const int*, const int*, const double*, int*, double*, Z*, const int*, int*, Z*, const int*, double*,
             const int*, int*, const int*, int*, std::size_t, std::size_t, std::size_t);
void cheevr_(const char*, const char*, const char*, const int*, C*, const int*, const float*, const float*, const int*,
             const int*, const float*, int*, float*, C*, const int*, int*, C*, const int*, float*, const int*, int*,
             const int*, int*, std::size_t, std::size_t, std::size_t);
}

namespace blasscope::core {
namespace {

// One overload per precision, so that the templates below are written once.
void potrf(const char* uplo, const int* n, Z* a, const int* lda, int* info) {
  zpotrf_(uplo, n, a, lda, info, 1);
}
void potrf(const char* uplo, const int* n, C* a, const int* lda, int* info) {
  cpotrf_(uplo, n, a, lda, info, 1);
}
void getrf(const int* m, const int* n, Z* a, const int* lda, int* ipiv, int* info) {
  zgetrf_(m, n, a, lda, ipiv, info);
}
void getrf(const int* m, const int* n, C* a, const int* lda, int* ipiv, int* info) {
  cgetrf_(m, n, a, lda, ipiv, info);
}
void gesv(const int* n, const int* nrhs, Z* a, const int* lda, int* ipiv, Z* b, const int* ldb, int* info) {
  zgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
}
void gesv(const int* n, const int* nrhs, C* a, const int* lda, int* ipiv, C* b, const int* ldb, int* info) {
  cgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
}
void getrs(const char* trans, const int* n, const int* nrhs, const Z* a, const int* lda, const int* ipiv, Z* b,
           const int* ldb, int* info) {
  zgetrs_(trans, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
void getrs(const char* trans, const int* n, const int* nrhs, const C* a, const int* lda, const int* ipiv, C* b,
           const int* ldb, int* info) {
  cgetrs_(trans, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
void heevd(const char* jobz, const char* uplo, const int* n, Z* a, const int* lda, double* w, Z* work, const int* lwork,
           double* rwork, const int* lrwork, int* iwork, const int* liwork, int* info) {
  zheevd_(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1);
}
void heevd(const char* jobz, const char* uplo, const int* n, C* a, const int* lda, float* w, C* work, const int* lwork,
           float* rwork, const int* lrwork, int* iwork, const int* liwork, int* info) {
  cheevd_(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1);
}
void heev(const char* jobz, const char* uplo, const int* n, Z* a, const int* lda, double* w, Z* work, const int* lwork,
          double* rwork, int* info) {
  zheev_(jobz, uplo, n, a, lda, w, work, lwork, rwork, info, 1, 1);
}
void heev(const char* jobz, const char* uplo, const int* n, C* a, const int* lda, float* w, C* work, const int* lwork,
          float* rwork, int* info) {
  cheev_(jobz, uplo, n, a, lda, w, work, lwork, rwork, info, 1, 1);
}
// ?HEEVR of every eigenvalue (RANGE 'A': VL, VU, IL and IU are not referenced), ABSTOL 0, as
// SciPy calls it.
void heevr_all(const char* jobz, const char* uplo, const int* n, Z* a, const int* lda, int* found, double* w, Z* z,
               const int* ldz, int* isuppz, Z* work, const int* lwork, double* rwork, const int* lrwork, int* iwork,
               const int* liwork, int* info) {
  const double zero = 0;
  const int none = 0;
  zheevr_(jobz, "A", uplo, n, a, lda, &zero, &zero, &none, &none, &zero, found, w, z, ldz, isuppz, work, lwork, rwork,
          lrwork, iwork, liwork, info, 1, 1, 1);
}
void heevr_all(const char* jobz, const char* uplo, const int* n, C* a, const int* lda, int* found, float* w, C* z,
               const int* ldz, int* isuppz, C* work, const int* lwork, float* rwork, const int* lrwork, int* iwork,
               const int* liwork, int* info) {
  const float zero = 0;
  const int none = 0;
  cheevr_(jobz, "A", uplo, n, a, lda, &zero, &zero, &none, &none, &zero, found, w, z, ldz, isuppz, work, lwork, rwork,
          lrwork, iwork, liwork, info, 1, 1, 1);
}

int clamp_int(std::size_t size) {
  return static_cast<int>(std::min<std::size_t>(size, INT32_MAX));
}

}  // namespace

const char* complex_driver_name(FactorDriver driver) {
  switch (driver) {
    case FactorDriver::Syevd: return "heevd";
    case FactorDriver::Syev: return "heev";
    case FactorDriver::Syevr: return "heevr";
    default: return driver_name(driver);
  }
}

std::vector<const char*> complex_argument_names(FactorDriver driver) {
  switch (driver) {
    case FactorDriver::Syevd:
      return {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK", "RWORK", "LRWORK", "IWORK", "LIWORK", "INFO"};
    case FactorDriver::Syev: return {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK", "RWORK", "INFO"};
    case FactorDriver::Syevr:
      return {"JOBZ", "RANGE", "UPLO", "N",      "A",    "LDA",   "VL",    "VU",     "IL",    "IU",     "ABSTOL", "M",
              "W",    "Z",     "LDZ",  "ISUPPZ", "WORK", "LWORK", "RWORK", "LRWORK", "IWORK", "LIWORK", "INFO"};
    default: return argument_names(driver);
  }
}

template <typename Real>
LapackWorkspace<double> complex_factor_workspace(FactorDriver driver, bool vectors, std::int64_t m, std::int64_t n) {
  using Complex = std::complex<Real>;
  switch (driver) {
    case FactorDriver::Potrf: return {};
    case FactorDriver::Getrf: return {0, std::max<std::int64_t>(1, std::min(m, n))};
    case FactorDriver::Gesv:
    case FactorDriver::Getrs: return {0, std::max<std::int64_t>(1, n)};  // the pivots (GETRS: given)
    default: break;
  }
  const int order = static_cast<int>(n), lda = std::max(1, order), query = -1;
  Complex lwork = 0, unused = 0;
  Real lrwork = 0, real_unused = 0;
  int liwork = 1, info = 0, found = 0, isuppz[2] = {};
  const char* jobz = vectors ? "V" : "N";
  // The documented minimums, in 64 bits: a query's answer overflows LAPACK's int for large n.
  std::int64_t least = 0, least_reals = 0, least_ints = 0, z = 0;
  if (driver == FactorDriver::Syevd) {
    heevd(jobz, "L", &order, &unused, &lda, &real_unused, &lwork, &query, &lrwork, &query, &liwork, &query, &info);
    least = vectors ? 2 * n + n * n : n + 1;
    least_reals = vectors ? 1 + 5 * n + 2 * n * n : n;
    least_ints = vectors ? 3 + 5 * n : 1;
  } else if (driver == FactorDriver::Syevr) {
    heevr_all(jobz, "L", &order, &unused, &lda, &found, &real_unused, &unused, &lda, isuppz, &lwork, &query, &lrwork,
              &query, &liwork, &query, &info);
    least = 2 * n, least_reals = 24 * n, least_ints = 10 * n;
    z = vectors ? n * n : 0;  // heevr's Z, at the end of WORK; ISUPPZ (2n) at the end of IWORK
  } else {
    heev(jobz, "L", &order, &unused, &lda, &real_unused, &lwork, &query, &real_unused, &info);
    least = 2 * n - 1, least_reals = 3 * n - 2;
  }
  LapackWorkspace<double> sizes;
  sizes.work = std::max<std::int64_t>({1, workspace_elements(lwork.real()), least}) + z;
  sizes.rwork = std::max<std::int64_t>({1, driver == FactorDriver::Syev ? 0 : workspace_elements(lrwork), least_reals});
  sizes.iwork = driver == FactorDriver::Syev ? 0 : std::max<std::int64_t>({1, liwork, least_ints});
  if (driver == FactorDriver::Syevr) sizes.iwork += 2 * std::max<std::int64_t>(1, n);
  return sizes;
}

template <typename Real>
int complex_factor_run(FactorDriver driver, char uplo, bool vectors, std::int64_t m, std::int64_t n, std::int64_t nrhs,
                       std::complex<Real>* a, std::complex<Real>* b, Real* w, std::vector<std::complex<Real>>& work,
                       std::vector<Real>& rwork, std::vector<int>& iwork) {
  // The sizes fit LAPACK's ints: the workload plan refuses those that do not.
  const int rows = static_cast<int>(m), cols = static_cast<int>(n), rhs = static_cast<int>(nrhs);
  const int lda = std::max(1, rows);
  const int lwork = clamp_int(work.size()), lrwork = clamp_int(rwork.size()), liwork = clamp_int(iwork.size());
  const char triangle[2] = {uplo, '\0'};
  const char* jobz = vectors ? "V" : "N";
  int info = 0;
  switch (driver) {
    case FactorDriver::Potrf: potrf(triangle, &cols, a, &lda, &info); break;
    case FactorDriver::Getrf: getrf(&rows, &cols, a, &lda, iwork.data(), &info); break;
    case FactorDriver::Gesv: gesv(&cols, &rhs, a, &lda, iwork.data(), b, &lda, &info); break;
    case FactorDriver::Getrs: getrs(triangle, &cols, &rhs, a, &lda, iwork.data(), b, &lda, &info); break;
    case FactorDriver::Syevd:
      heevd(jobz, triangle, &cols, a, &lda, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork,
            &info);
      break;
    case FactorDriver::Syev: heev(jobz, triangle, &cols, a, &lda, w, work.data(), &lwork, rwork.data(), &info); break;
    case FactorDriver::Syevr: {
      // WORK ends with Z (vectors: n x n) and IWORK with ISUPPZ (2n), as for the real SYEVR.
      const std::size_t z_size = vectors ? static_cast<std::size_t>(n) * static_cast<std::size_t>(n) : 0;
      const std::size_t isuppz_size = 2 * static_cast<std::size_t>(std::max<std::int64_t>(1, n));
      if (work.size() <= z_size) return -18;        // LWORK: too small
      if (iwork.size() <= isuppz_size) return -22;  // LIWORK
      std::complex<Real>* z = work.data() + (work.size() - z_size);
      int* isuppz = iwork.data() + (iwork.size() - isuppz_size);
      const int work_left = clamp_int(work.size() - z_size), iwork_left = clamp_int(iwork.size() - isuppz_size);
      int found = 0;
      heevr_all(jobz, triangle, &cols, a, &lda, &found, w, vectors ? z : a, &lda, isuppz, work.data(), &work_left,
                rwork.data(), &lrwork, iwork.data(), &iwork_left, &info);
      if (vectors) std::copy(z, z + z_size, a);
      // As for SYEVR: INFO = 0 with fewer eigenvalues than asked (none, on a NaN) leaves the
      // missing ones NaN here, not whatever W and Z held.
      if (info == 0 && found < cols) {
        const Real nan = std::numeric_limits<Real>::quiet_NaN();
        std::fill(w + std::max(found, 0), w + cols, nan);
        if (vectors)
          std::fill(a + static_cast<std::size_t>(std::max(found, 0)) * lda, a + z_size, std::complex{nan, nan});
      }
      break;
    }
  }
  return info;
}

template LapackWorkspace<double> complex_factor_workspace<float>(FactorDriver, bool, std::int64_t, std::int64_t);
template LapackWorkspace<double> complex_factor_workspace<double>(FactorDriver, bool, std::int64_t, std::int64_t);
template int complex_factor_run<float>(FactorDriver, char, bool, std::int64_t, std::int64_t, std::int64_t, C*, C*,
                                       float*, std::vector<C>&, std::vector<float>&, std::vector<int>&);
template int complex_factor_run<double>(FactorDriver, char, bool, std::int64_t, std::int64_t, std::int64_t, Z*, Z*,
                                        double*, std::vector<Z>&, std::vector<double>&, std::vector<int>&);

}  // namespace blasscope::core
