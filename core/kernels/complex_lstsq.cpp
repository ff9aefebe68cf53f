#include "kernels/complex_lstsq.h"

#include <algorithm>
#include <cstddef>

// The Fortran interfaces (hidden string lengths last); COMPLEX*16 as std::complex<double>.
using Z = std::complex<double>;
using C = std::complex<float>;
extern "C" {
void zgelsd_(const int*, const int*, const int*, Z*, const int*, Z*, const int*, double*, const double*, int*, Z*,
             const int*, double*, int*, int*);
void cgelsd_(const int*, const int*, const int*, C*, const int*, C*, const int*, float*, const float*, int*, C*,
             const int*, float*, int*, int*);
void zgelss_(const int*, const int*, const int*, Z*, const int*, Z*, const int*, double*, const double*, int*, Z*,
             const int*, double*, int*);
void cgelss_(const int*, const int*, const int*, C*, const int*, C*, const int*, float*, const float*, int*, C*,
             const int*, float*, int*);
void zgelsy_(const int*, const int*, const int*, Z*, const int*, Z*, const int*, int*, const double*, int*, Z*,
             const int*, double*, int*);
void cgelsy_(const int*, const int*, const int*, C*, const int*, C*, const int*, int*, const float*, int*, C*,
             const int*, float*, int*);
void zgels_(const char*, const int*, const int*, const int*, Z*, const int*, Z*, const int*, Z*, const int*, int*,
            std::size_t);
void cgels_(const char*, const int*, const int*, const int*, C*, const int*, C*, const int*, C*, const int*, int*,
            std::size_t);
}

namespace blasscope::core {
namespace {

// The arguments every driver takes, as LAPACK's ints (the plan checks that they fit).
struct Call {
  int m, n, nrhs, lda, ldb;
  Call(std::int64_t rows, std::int64_t cols, std::int64_t rhs)
      : m(static_cast<int>(rows)),
        n(static_cast<int>(cols)),
        nrhs(static_cast<int>(rhs)),
        lda(std::max(1, m)),
        ldb(std::max({1, m, n})) {}
};

// One overload per precision, so that call() below is written once.
void gelsd(const Call& c, Z* a, Z* b, double* s, const double* rcond, int* rank, Z* work, const int* lwork,
           double* rwork, int* iwork, int* info) {
  zgelsd_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
}
void gelsd(const Call& c, C* a, C* b, float* s, const float* rcond, int* rank, C* work, const int* lwork, float* rwork,
           int* iwork, int* info) {
  cgelsd_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
}
void gelss(const Call& c, Z* a, Z* b, double* s, const double* rcond, int* rank, Z* work, const int* lwork,
           double* rwork, int* info) {
  zgelss_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, rcond, rank, work, lwork, rwork, info);
}
void gelss(const Call& c, C* a, C* b, float* s, const float* rcond, int* rank, C* work, const int* lwork, float* rwork,
           int* info) {
  cgelss_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, rcond, rank, work, lwork, rwork, info);
}
void gelsy(const Call& c, Z* a, Z* b, int* jpvt, const double* rcond, int* rank, Z* work, const int* lwork,
           double* rwork, int* info) {
  zgelsy_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, jpvt, rcond, rank, work, lwork, rwork, info);
}
void gelsy(const Call& c, C* a, C* b, int* jpvt, const float* rcond, int* rank, C* work, const int* lwork, float* rwork,
           int* info) {
  cgelsy_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, jpvt, rcond, rank, work, lwork, rwork, info);
}
void gels(const Call& c, Z* a, Z* b, Z* work, const int* lwork, int* info) {
  zgels_("N", &c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, work, lwork, info, 1);
}
void gels(const Call& c, C* a, C* b, C* work, const int* lwork, int* info) {
  cgels_("N", &c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, work, lwork, info, 1);
}

template <typename Real>
int call(LstsqDriver driver, const Call& c, std::complex<Real>* a, std::complex<Real>* b, Real* s, Real rcond,
         int& rank, std::complex<Real>* work, int lwork, Real* rwork, int* iwork) {
  int info = 0;
  switch (driver) {
    case LstsqDriver::Gelsd: gelsd(c, a, b, s, &rcond, &rank, work, &lwork, rwork, iwork, &info); break;
    case LstsqDriver::Gelss: gelss(c, a, b, s, &rcond, &rank, work, &lwork, rwork, &info); break;
    case LstsqDriver::Gelsy: gelsy(c, a, b, iwork, &rcond, &rank, work, &lwork, rwork, &info); break;
    case LstsqDriver::Gels:
      gels(c, a, b, work, &lwork, &info);
      rank = info == 0 ? std::min(c.m, c.n) : 0;
      break;
  }
  return info;
}

}  // namespace

template <typename Real>
LapackWorkspace<double> complex_lstsq_workspace(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs) {
  std::complex<Real> size = 0, unused = 0;
  Real rsize = 0, real_unused = 0;
  int isize = 1, rank = 0;
  // The query fills WORK(1), and for GELSD RWORK(1) and IWORK(1) with their minimums.
  call<Real>(driver, Call(m, n, nrhs), &unused, &unused, &real_unused, Real(-1), rank, &size, -1, &rsize, &isize);
  const std::int64_t mn = std::max<std::int64_t>(1, std::min(m, n));
  LapackWorkspace<double> sizes;
  sizes.work = std::max<std::int64_t>(1, workspace_elements(size.real()));
  switch (driver) {
    case LstsqDriver::Gelsd:
      sizes.rwork = std::max<std::int64_t>(1, workspace_elements(rsize));
      sizes.iwork = std::max(1, isize);
      break;
    case LstsqDriver::Gelss: sizes.rwork = 5 * mn; break;  // 5 min(M, N)
    case LstsqDriver::Gelsy:
      sizes.rwork = 2 * std::max<std::int64_t>(1, n);  // 2 N
      sizes.iwork = std::max<std::int64_t>(1, n);      // JPVT
      break;
    case LstsqDriver::Gels: break;
  }
  return sizes;
}

template <typename Real>
int complex_lstsq_run(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs, std::complex<Real>* a,
                      std::complex<Real>* b, Real* s, Real rcond, int& rank, std::vector<std::complex<Real>>& work,
                      std::vector<Real>& rwork, std::vector<int>& iwork) {
  std::fill(iwork.begin(), iwork.end(), 0);  // gelsy: every column free to pivot
  const int lwork = static_cast<int>(std::min<std::size_t>(work.size(), INT32_MAX));
  return call<Real>(driver, Call(m, n, nrhs), a, b, s, rcond, rank, work.data(), lwork, rwork.data(), iwork.data());
}

template LapackWorkspace<double> complex_lstsq_workspace<float>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t);
template LapackWorkspace<double> complex_lstsq_workspace<double>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t);
template int complex_lstsq_run<float>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t, C*, C*, float*, float,
                                      int&, std::vector<C>&, std::vector<float>&, std::vector<int>&);
template int complex_lstsq_run<double>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t, Z*, Z*, double*, double,
                                       int&, std::vector<Z>&, std::vector<double>&, std::vector<int>&);

}  // namespace blasscope::core
