#include "kernels/lapack_drivers.h"

#include <algorithm>

extern "C" {
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*, std::size_t);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*, const int*,
             float*, const int*, int*, int*, std::size_t);
void dgelsd_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*, const double*, int*,
             double*, const int*, int*, int*);
void sgelsd_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*, const float*, int*,
             float*, const int*, int*, int*);
}

namespace blasscope::core {
namespace {

void gesdd(const int* m, const int* n, double* a, const int* lda, double* s, double* work, const int* lwork, int* iwork,
           int* info) {
  const int one = 1;
  double unused = 0;
  dgesdd_("N", m, n, a, lda, s, &unused, &one, &unused, &one, work, lwork, iwork, info, 1);
}

void gesdd(const int* m, const int* n, float* a, const int* lda, float* s, float* work, const int* lwork, int* iwork,
           int* info) {
  const int one = 1;
  float unused = 0;
  sgesdd_("N", m, n, a, lda, s, &unused, &one, &unused, &one, work, lwork, iwork, info, 1);
}

void gelsd(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb, double* s,
           const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info) {
  dgelsd_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
}

void gelsd(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
           const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info) {
  sgelsd_(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
}

}  // namespace

template <typename T>
LapackWorkspace<T> gesdd_workspace(std::int64_t m, std::int64_t n) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), lda = std::max(1, im), query = -1;
  T work_size = 0, dummy = 0;
  int iwork = 0, info = 0;
  gesdd(&im, &in, &dummy, &lda, &dummy, &work_size, &query, &iwork, &info);
  return {static_cast<std::int64_t>(work_size) + 1, 8 * std::max<std::int64_t>(1, std::min(m, n))};
}

template <typename T>
int gesdd_values(std::int64_t m, std::int64_t n, T* a, T* s, std::vector<T>& work, std::vector<int>& iwork) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), lda = std::max(1, im);
  const int lwork = static_cast<int>(work.size());
  int info = 0;
  gesdd(&im, &in, a, &lda, s, work.data(), &lwork, iwork.data(), &info);
  return info;
}

template <typename T>
LapackWorkspace<T> gelsd_workspace(std::int64_t m, std::int64_t n, std::int64_t nrhs) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), inrhs = static_cast<int>(nrhs);
  const int lda = std::max(1, im), ldb = std::max({1, im, in}), query = -1;
  T work_size = 0, dummy = 0, rcond = -1;
  int iwork_size = 0, rank = 0, info = 0;
  gelsd(&im, &in, &inrhs, &dummy, &lda, &dummy, &ldb, &dummy, &rcond, &rank, &work_size, &query, &iwork_size, &info);
  return {static_cast<std::int64_t>(work_size) + 1, std::max(1, iwork_size)};
}

template <typename T>
int gelsd_solve(std::int64_t m, std::int64_t n, std::int64_t nrhs, T* a, T* b, T* s, T rcond, int& rank,
                std::vector<T>& work, std::vector<int>& iwork) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), inrhs = static_cast<int>(nrhs);
  const int lda = std::max(1, im), ldb = std::max({1, im, in}), lwork = static_cast<int>(work.size());
  int info = 0;
  gelsd(&im, &in, &inrhs, a, &lda, b, &ldb, s, &rcond, &rank, work.data(), &lwork, iwork.data(), &info);
  return info;
}

template LapackWorkspace<float> gesdd_workspace<float>(std::int64_t, std::int64_t);
template LapackWorkspace<double> gesdd_workspace<double>(std::int64_t, std::int64_t);
template int gesdd_values<float>(std::int64_t, std::int64_t, float*, float*, std::vector<float>&, std::vector<int>&);
template int gesdd_values<double>(std::int64_t, std::int64_t, double*, double*, std::vector<double>&,
                                  std::vector<int>&);
template LapackWorkspace<float> gelsd_workspace<float>(std::int64_t, std::int64_t, std::int64_t);
template LapackWorkspace<double> gelsd_workspace<double>(std::int64_t, std::int64_t, std::int64_t);
template int gelsd_solve<float>(std::int64_t, std::int64_t, std::int64_t, float*, float*, float*, float, int&,
                                std::vector<float>&, std::vector<int>&);
template int gelsd_solve<double>(std::int64_t, std::int64_t, std::int64_t, double*, double*, double*, double, int&,
                                 std::vector<double>&, std::vector<int>&);

}  // namespace blasscope::core
