#include "kernels/complex_svd.h"

#include <algorithm>
#include <cstddef>

// The Fortran interfaces (hidden string lengths last); COMPLEX*16 as std::complex<double>,
// which has its layout.
extern "C" {
void zgesdd_(const char*, const int*, const int*, std::complex<double>*, const int*, double*, std::complex<double>*,
             const int*, std::complex<double>*, const int*, std::complex<double>*, const int*, double*, int*, int*,
             std::size_t);
void cgesdd_(const char*, const int*, const int*, std::complex<float>*, const int*, float*, std::complex<float>*,
             const int*, std::complex<float>*, const int*, std::complex<float>*, const int*, float*, int*, int*,
             std::size_t);
void zgesvd_(const char*, const char*, const int*, const int*, std::complex<double>*, const int*, double*,
             std::complex<double>*, const int*, std::complex<double>*, const int*, std::complex<double>*, const int*,
             double*, int*, std::size_t, std::size_t);
void cgesvd_(const char*, const char*, const int*, const int*, std::complex<float>*, const int*, float*,
             std::complex<float>*, const int*, std::complex<float>*, const int*, std::complex<float>*, const int*,
             float*, int*, std::size_t, std::size_t);
}

namespace blasscope::core {
namespace {

// One overload per precision, so the templates below are written once.
void gesdd(const char* jobz, const int* m, const int* n, std::complex<double>* a, const int* lda, double* s,
           std::complex<double>* u, const int* ldu, std::complex<double>* vt, const int* ldvt,
           std::complex<double>* work, const int* lwork, double* rwork, int* iwork, int* info) {
  zgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
}
void gesdd(const char* jobz, const int* m, const int* n, std::complex<float>* a, const int* lda, float* s,
           std::complex<float>* u, const int* ldu, std::complex<float>* vt, const int* ldvt, std::complex<float>* work,
           const int* lwork, float* rwork, int* iwork, int* info) {
  cgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
}
void gesvd(const char* job, const int* m, const int* n, std::complex<double>* a, const int* lda, double* s,
           std::complex<double>* u, const int* ldu, std::complex<double>* vt, const int* ldvt,
           std::complex<double>* work, const int* lwork, double* rwork, int* info) {
  zgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, 1, 1);
}
void gesvd(const char* job, const int* m, const int* n, std::complex<float>* a, const int* lda, float* s,
           std::complex<float>* u, const int* ldu, std::complex<float>* vt, const int* ldvt, std::complex<float>* work,
           const int* lwork, float* rwork, int* info) {
  cgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, 1, 1);
}

template <typename Real>
int call(SvdDriver driver, bool vectors, std::int64_t rows, std::int64_t cols, std::complex<Real>* a, Real* s,
         std::complex<Real>* u, std::complex<Real>* vt, std::complex<Real>* work, int lwork, Real* rwork, int* iwork) {
  const int m = static_cast<int>(rows), n = static_cast<int>(cols), k = std::min(m, n);
  const int lda = std::max(1, m), ldu = vectors ? std::max(1, m) : 1, ldvt = vectors ? std::max(1, k) : 1;
  std::complex<Real> unused = 0;
  int info = 0;
  if (driver == SvdDriver::Gesdd) {
    gesdd(vectors ? "S" : "N", &m, &n, a, &lda, s, vectors ? u : &unused, &ldu, vectors ? vt : &unused, &ldvt, work,
          &lwork, rwork, iwork, &info);
  } else {
    gesvd(vectors ? "S" : "N", &m, &n, a, &lda, s, vectors ? u : &unused, &ldu, vectors ? vt : &unused, &ldvt, work,
          &lwork, rwork, &info);
  }
  return info;
}

}  // namespace

template <typename Real>
ComplexSvdWorkspace complex_svd_workspace(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n) {
  std::complex<Real> size = 0, dummy = 0;
  Real real_dummy = 0;
  int int_dummy = 0;
  call<Real>(driver, vectors, m, n, &dummy, &real_dummy, &dummy, &dummy, &size, -1, &real_dummy, &int_dummy);
  const std::int64_t mn = std::max<std::int64_t>(1, std::min(m, n)), mx = std::max<std::int64_t>(1, std::max(m, n));
  // RWORK as the reference LAPACK documents it (no query gives it): ?GESDD's for JOBZ 'N' as
  // before LAPACK 3.7 (7 MN, the larger), else max(5 MN^2 + 5 MN, 2 MX MN + 2 MN^2 + MN); ?GESVD's 5 MN.
  const std::int64_t rwork = driver == SvdDriver::Gesvd ? 5 * mn
                             : vectors                  ? std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn)
                                                        : 7 * mn;
  return {workspace_elements(size.real()), rwork, driver == SvdDriver::Gesdd ? 8 * mn : 1};
}

template <typename Real>
int complex_svd_run(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n, std::complex<Real>* a, Real* s,
                    std::complex<Real>* u, std::complex<Real>* vt, std::vector<std::complex<Real>>& work,
                    std::vector<Real>& rwork, std::vector<int>& iwork) {
  return call<Real>(driver, vectors, m, n, a, s, u, vt, work.data(), static_cast<int>(work.size()), rwork.data(),
                    iwork.data());
}

template ComplexSvdWorkspace complex_svd_workspace<float>(SvdDriver, bool, std::int64_t, std::int64_t);
template ComplexSvdWorkspace complex_svd_workspace<double>(SvdDriver, bool, std::int64_t, std::int64_t);
template int complex_svd_run<float>(SvdDriver, bool, std::int64_t, std::int64_t, std::complex<float>*, float*,
                                    std::complex<float>*, std::complex<float>*, std::vector<std::complex<float>>&,
                                    std::vector<float>&, std::vector<int>&);
template int complex_svd_run<double>(SvdDriver, bool, std::int64_t, std::int64_t, std::complex<double>*, double*,
                                     std::complex<double>*, std::complex<double>*, std::vector<std::complex<double>>&,
                                     std::vector<double>&, std::vector<int>&);

}  // namespace blasscope::core
