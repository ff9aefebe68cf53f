#include "kernels/lapack_factorisations.h"

#include <algorithm>
#include <cmath>
#include <string>

extern "C" {
void dpotrf_(const char*, const int*, double*, const int*, int*, std::size_t);
void spotrf_(const char*, const int*, float*, const int*, int*, std::size_t);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
void sgesv_(const int*, const int*, float*, const int*, int*, float*, const int*, int*);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, const int*,
             int*, std::size_t, std::size_t);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*, const int*,
             int*, std::size_t, std::size_t);
void dsyev_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, std::size_t,
            std::size_t);
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

// LWORK as a query returned it, with a little added: a REAL above 2^24 may have been rounded
// below the true minimum.
template <typename T>
int workspace_size(T size) {
  return static_cast<int>(std::ceil(static_cast<double>(size) * (1 + 1e-6))) + 1;
}

template <typename T>
int eigen_call(FactorDriver driver, const char* jobz, const char* uplo, int n, T* a, T* w) {
  const int lda = std::max(1, n);
  int info = 0, iwork_size = 1;
  T size = 0;
  int query = -1;
  if (driver == FactorDriver::Syevd) {
    syevd(jobz, uplo, &n, a, &lda, w, &size, &query, &iwork_size, &query, &info);
  } else {
    syev(jobz, uplo, &n, a, &lda, w, &size, &query, &info);
  }
  if (info != 0) return info;
  const int lwork = workspace_size(size), liwork = std::max(1, iwork_size);
  std::vector<T> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  if (driver == FactorDriver::Syevd) {
    syevd(jobz, uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info);
  } else {
    syev(jobz, uplo, &n, a, &lda, w, work.data(), &lwork, &info);
  }
  return info;
}

}  // namespace

std::optional<FactorDriver> factor_driver_named(std::string_view name) {
  for (FactorDriver d :
       {FactorDriver::Potrf, FactorDriver::Getrf, FactorDriver::Gesv, FactorDriver::Syevd, FactorDriver::Syev}) {
    if (name == driver_name(d)) return d;
  }
  return std::nullopt;
}

const char* driver_name(FactorDriver driver) {
  switch (driver) {
    case FactorDriver::Potrf: return "potrf";
    case FactorDriver::Getrf: return "getrf";
    case FactorDriver::Gesv: return "gesv";
    case FactorDriver::Syevd: return "syevd";
    case FactorDriver::Syev: break;
  }
  return "syev";
}

std::vector<const char*> argument_names(FactorDriver driver) {
  switch (driver) {
    case FactorDriver::Potrf: return {"UPLO", "N", "A", "LDA", "INFO"};
    case FactorDriver::Getrf: return {"M", "N", "A", "LDA", "IPIV", "INFO"};
    case FactorDriver::Gesv: return {"N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "INFO"};
    case FactorDriver::Syevd: return {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK", "IWORK", "LIWORK", "INFO"};
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
    case FactorDriver::Syevd:
    case FactorDriver::Syev: break;
  }
  return "the eigenvalue algorithm did not converge";
}

template <typename T>
int factor_run(FactorDriver driver, char uplo, bool vectors, std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a,
               T* b, T* w) {
  // The sizes fit LAPACK's ints: the workload plan refuses those that do not.
  const int rows = static_cast<int>(m), cols = static_cast<int>(n), rhs = static_cast<int>(nrhs);
  const int lda = std::max(1, rows);
  const char triangle[2] = {uplo, '\0'};
  int info = 0;
  switch (driver) {
    case FactorDriver::Potrf: potrf(triangle, &cols, a, &lda, &info); break;
    case FactorDriver::Getrf: {
      std::vector<int> pivots(static_cast<std::size_t>(std::max(1, std::min(rows, cols))));
      getrf(&rows, &cols, a, &lda, pivots.data(), &info);
      break;
    }
    case FactorDriver::Gesv: {
      std::vector<int> pivots(static_cast<std::size_t>(std::max(1, cols)));
      gesv(&cols, &rhs, a, &lda, pivots.data(), b, &lda, &info);
      break;
    }
    case FactorDriver::Syevd:
    case FactorDriver::Syev: info = eigen_call<T>(driver, vectors ? "V" : "N", triangle, cols, a, w); break;
  }
  return info;
}

template int factor_run<float>(FactorDriver, char, bool, std::int64_t, std::int64_t, std::int64_t, float*, float*,
                               float*);
template int factor_run<double>(FactorDriver, char, bool, std::int64_t, std::int64_t, std::int64_t, double*, double*,
                                double*);

}  // namespace blasscope::core
