#include "kernels/lapack_drivers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

// The Fortran interfaces (hidden string lengths last), in both real precisions.
extern "C" {
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*, std::size_t);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*, const int*,
             float*, const int*, int*, int*, std::size_t);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, std::size_t, std::size_t);
void sgesvd_(const char*, const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*,
             const int*, float*, const int*, int*, std::size_t, std::size_t);
void dgelsd_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*, const double*, int*,
             double*, const int*, int*, int*);
void sgelsd_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*, const float*, int*,
             float*, const int*, int*, int*);
void dgelss_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*, const double*, int*,
             double*, const int*, int*);
void sgelss_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*, const float*, int*,
             float*, const int*, int*);
void dgelsy_(const int*, const int*, const int*, double*, const int*, double*, const int*, int*, const double*, int*,
             double*, const int*, int*);
void sgelsy_(const int*, const int*, const int*, float*, const int*, float*, const int*, int*, const float*, int*,
             float*, const int*, int*);
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
            const int*, int*, std::size_t);
void sgels_(const char*, const int*, const int*, const int*, float*, const int*, float*, const int*, float*, const int*,
            int*, std::size_t);
}

namespace blasscope::core {
namespace {

// One set of overloads per precision, so the templates below are written once.
void gesdd(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
           const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info) {
  dgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
}
void gesdd(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
           float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info) {
  sgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
}
void gesvd(const char* job, const int* m, const int* n, double* a, const int* lda, double* s, double* u, const int* ldu,
           double* vt, const int* ldvt, double* work, const int* lwork, int* info) {
  dgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, 1, 1);
}
void gesvd(const char* job, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
           float* vt, const int* ldvt, float* work, const int* lwork, int* info) {
  sgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, 1, 1);
}
void gelsd(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb, double* s,
           const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info) {
  dgelsd_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
}
void gelsd(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
           const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info) {
  sgelsd_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
}
void gelss(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb, double* s,
           const double* rcond, int* rank, double* work, const int* lwork, int* info) {
  dgelss_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, info);
}
void gelss(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
           const float* rcond, int* rank, float* work, const int* lwork, int* info) {
  sgelss_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, info);
}
void gelsy(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb, int* jpvt,
           const double* rcond, int* rank, double* work, const int* lwork, int* info) {
  dgelsy_(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, work, lwork, info);
}
void gelsy(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* jpvt,
           const float* rcond, int* rank, float* work, const int* lwork, int* info) {
  sgelsy_(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, work, lwork, info);
}
void gels(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
          double* work, const int* lwork, int* info) {
  dgels_("N", m, n, nrhs, a, lda, b, ldb, work, lwork, info, 1);
}
void gels(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* work,
          const int* lwork, int* info) {
  sgels_("N", m, n, nrhs, a, lda, b, ldb, work, lwork, info, 1);
}

// The leading dimensions and sizes as LAPACK's ints (the plan checks they fit).
struct Dims {
  int m, n, nrhs, k, lda, ldb, ldu, ldvt;
  Dims(std::int64_t rows, std::int64_t cols, std::int64_t rhs = 0)
      : m(static_cast<int>(rows)),
        n(static_cast<int>(cols)),
        nrhs(static_cast<int>(rhs)),
        k(std::min(m, n)),
        lda(std::max(1, m)),
        ldb(std::max({1, m, n})),
        ldu(std::max(1, m)),
        ldvt(std::max(1, k)) {}
};

template <typename T>
int svd_call(SvdDriver driver, bool vectors, const Dims& d, T* a, T* s, T* u, T* vt, T* work, int lwork, int* iwork) {
  T unused = 0;
  const int one = 1;
  int info = 0;
  T* up = vectors ? u : &unused;
  T* vtp = vectors ? vt : &unused;
  const int* ldu = vectors ? &d.ldu : &one;
  const int* ldvt = vectors ? &d.ldvt : &one;
  if (driver == SvdDriver::Gesdd) {
    gesdd(vectors ? "S" : "N", &d.m, &d.n, a, &d.lda, s, up, ldu, vtp, ldvt, work, &lwork, iwork, &info);
  } else {
    gesvd(vectors ? "S" : "N", &d.m, &d.n, a, &d.lda, s, up, ldu, vtp, ldvt, work, &lwork, &info);
  }
  return info;
}

template <typename T>
int lstsq_call(LstsqDriver driver, const Dims& d, T* a, T* b, T* s, T rcond, int& rank, T* work, int lwork,
               int* iwork) {
  int info = 0;
  switch (driver) {
    case LstsqDriver::Gelsd:
      gelsd(&d.m, &d.n, &d.nrhs, a, &d.lda, b, &d.ldb, s, &rcond, &rank, work, &lwork, iwork, &info);
      break;
    case LstsqDriver::Gelss:
      gelss(&d.m, &d.n, &d.nrhs, a, &d.lda, b, &d.ldb, s, &rcond, &rank, work, &lwork, &info);
      break;
    case LstsqDriver::Gelsy:
      gelsy(&d.m, &d.n, &d.nrhs, a, &d.lda, b, &d.ldb, iwork, &rcond, &rank, work, &lwork, &info);
      break;
    case LstsqDriver::Gels:
      gels(&d.m, &d.n, &d.nrhs, a, &d.lda, b, &d.ldb, work, &lwork, &info);
      rank = info == 0 ? d.k : 0;
      break;
  }
  return info;
}

}  // namespace

template <typename T>
std::int64_t workspace_elements(T size) {
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(size) * (1 + 1e-6))) + 1;
}
template std::int64_t workspace_elements<float>(float);
template std::int64_t workspace_elements<double>(double);

std::optional<SvdDriver> svd_driver_named(std::string_view name) {
  if (name == "gesdd") return SvdDriver::Gesdd;
  if (name == "gesvd") return SvdDriver::Gesvd;
  return std::nullopt;
}

std::optional<LstsqDriver> lstsq_driver_named(std::string_view name) {
  if (name == "gelsd") return LstsqDriver::Gelsd;
  if (name == "gelsy") return LstsqDriver::Gelsy;
  if (name == "gelss") return LstsqDriver::Gelss;
  if (name == "gels") return LstsqDriver::Gels;
  return std::nullopt;
}

const char* driver_name(SvdDriver driver) {
  return driver == SvdDriver::Gesdd ? "gesdd" : "gesvd";
}

const char* driver_name(LstsqDriver driver) {
  switch (driver) {
    case LstsqDriver::Gelsd: return "gelsd";
    case LstsqDriver::Gelsy: return "gelsy";
    case LstsqDriver::Gelss: return "gelss";
    case LstsqDriver::Gels: return "gels";
  }
  return "?";
}

std::vector<const char*> argument_names(SvdDriver driver) {
  if (driver == SvdDriver::Gesdd) {
    return {"JOBZ", "M", "N", "A", "LDA", "S", "U", "LDU", "VT", "LDVT", "WORK", "LWORK", "IWORK", "INFO"};
  }
  return {"JOBU", "JOBVT", "M", "N", "A", "LDA", "S", "U", "LDU", "VT", "LDVT", "WORK", "LWORK", "INFO"};
}

std::vector<const char*> argument_names(LstsqDriver driver) {
  switch (driver) {
    case LstsqDriver::Gelsd:
      return {"M", "N", "NRHS", "A", "LDA", "B", "LDB", "S", "RCOND", "RANK", "WORK", "LWORK", "IWORK", "INFO"};
    case LstsqDriver::Gelss:
      return {"M", "N", "NRHS", "A", "LDA", "B", "LDB", "S", "RCOND", "RANK", "WORK", "LWORK", "INFO"};
    case LstsqDriver::Gelsy:
      return {"M", "N", "NRHS", "A", "LDA", "B", "LDB", "JPVT", "RCOND", "RANK", "WORK", "LWORK", "INFO"};
    case LstsqDriver::Gels: return {"TRANS", "M", "N", "NRHS", "A", "LDA", "B", "LDB", "WORK", "LWORK", "INFO"};
  }
  return {};
}

const char* positive_info_meaning(SvdDriver driver) {
  return driver == SvdDriver::Gesdd ? "the divide-and-conquer SVD did not converge"
                                    : "the QR iteration of the bidiagonal SVD did not converge";
}

const char* positive_info_meaning(LstsqDriver driver) {
  switch (driver) {
    case LstsqDriver::Gels:
      return "a diagonal element of A's triangular factor is exactly zero: A does not have full rank, and gels "
             "computes no solution";
    case LstsqDriver::Gelsy: return "an unexpected positive INFO";  // gelsy only returns 0 or -i
    default: return "the SVD inside the least-squares solver did not converge";
  }
}

template <typename T>
LapackWorkspace<T> svd_workspace(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n) {
  const Dims d(m, n);
  T size = 0, dummy = 0;
  int iwork = 0;
  svd_call<T>(driver, vectors, d, &dummy, &dummy, &dummy, &dummy, &size, -1, &iwork);
  const std::int64_t ints = driver == SvdDriver::Gesdd ? 8 * std::max<std::int64_t>(1, std::min(m, n)) : 1;
  return {workspace_elements(size), ints};
}

template <typename T>
int svd_run(SvdDriver driver, bool vectors, std::int64_t m, std::int64_t n, T* a, T* s, T* u, T* vt,
            std::vector<T>& work, std::vector<int>& iwork) {
  return svd_call<T>(driver, vectors, Dims(m, n), a, s, u, vt, work.data(), static_cast<int>(work.size()),
                     iwork.data());
}

template <typename T>
LapackWorkspace<T> lstsq_workspace(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs) {
  const Dims d(m, n, nrhs);
  T size = 0, dummy = 0;
  int iwork = 1, rank = 0;
  lstsq_call<T>(driver, d, &dummy, &dummy, &dummy, T(-1), rank, &size, -1, &iwork);
  std::int64_t ints = 1;
  if (driver == LstsqDriver::Gelsd) ints = std::max(1, iwork);
  if (driver == LstsqDriver::Gelsy) ints = std::max<std::int64_t>(1, n);  // JPVT
  return {workspace_elements(size), ints};
}

template <typename T>
int lstsq_run(LstsqDriver driver, std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a, T* b, T* s, T rcond,
              int& rank, std::vector<T>& work, std::vector<int>& iwork) {
  std::fill(iwork.begin(), iwork.end(), 0);  // gelsy: every column free to pivot
  return lstsq_call<T>(driver, Dims(m, n, nrhs), a, b, s, rcond, rank, work.data(), static_cast<int>(work.size()),
                       iwork.data());
}

template LapackWorkspace<float> svd_workspace<float>(SvdDriver, bool, std::int64_t, std::int64_t);
template LapackWorkspace<double> svd_workspace<double>(SvdDriver, bool, std::int64_t, std::int64_t);
template int svd_run<float>(SvdDriver, bool, std::int64_t, std::int64_t, float*, float*, float*, float*,
                            std::vector<float>&, std::vector<int>&);
template int svd_run<double>(SvdDriver, bool, std::int64_t, std::int64_t, double*, double*, double*, double*,
                             std::vector<double>&, std::vector<int>&);
template LapackWorkspace<float> lstsq_workspace<float>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t);
template LapackWorkspace<double> lstsq_workspace<double>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t);
template int lstsq_run<float>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t, float*, float*, float*, float,
                              int&, std::vector<float>&, std::vector<int>&);
template int lstsq_run<double>(LstsqDriver, std::int64_t, std::int64_t, std::int64_t, double*, double*, double*, double,
                               int&, std::vector<double>&, std::vector<int>&);

}  // namespace blasscope::core
