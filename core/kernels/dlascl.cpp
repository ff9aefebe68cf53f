#include "kernels/dlascl.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <thread>

#include "kernels/lascl_element.h"
#include "kernels/xerbla_capture.h"

extern "C" {
void dlascl_(const char* type, const int* kl, const int* ku, const double* cfrom, const double* cto, const int* m,
             const int* n, double* a, const int* lda, int* info, std::size_t type_length);
void slascl_(const char* type, const int* kl, const int* ku, const float* cfrom, const float* cto, const int* m,
             const int* n, float* a, const int* lda, int* info, std::size_t type_length);
}

namespace blasscope::core {
namespace {

constexpr std::int64_t kRowBlock = 2048;              // rows scaled through all factors while in cache
constexpr std::uint64_t kParallelElements = 1 << 20;  // smaller matrices use one thread

template <typename T>
const char* routine() {
  return sizeof(T) == 8 ? "DLASCL" : "SLASCL";
}

template <typename T>
void scale_columns(char type, const std::vector<T>& muls, std::int64_t m, std::int64_t j0, std::int64_t j1, T* a,
                   std::int64_t lda) {
  for (std::int64_t j = j0; j < j1; ++j) {
    std::int64_t first = 0, last = 0;
    lascl_row_range(type, m, j, first, last);
    T* column = a + j * lda;
    for (std::int64_t r0 = first; r0 < last; r0 += kRowBlock) {
      const std::int64_t r1 = std::min(last, r0 + kRowBlock);
      // Multiplier by multiplier over a cached block: the same per-element sequence as
      // lascl_scale_element (and LAPACK), in a loop the compiler vectorizes.
      for (const T mul : muls) {
        for (std::int64_t i = r0; i < r1; ++i) column[i] *= mul;
      }
    }
  }
}

char upper(char c) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

}  // namespace

template <typename T>
int lascl_check(char type, T cfrom, T cto, std::int64_t m, std::int64_t n, std::int64_t lda) {
  const char t = upper(type);
  if (t != 'G' && t != 'L' && t != 'U' && t != 'H') return -1;
  if (cfrom == T(0) || std::isnan(cfrom)) return -4;
  if (std::isnan(cto)) return -5;
  if (m < 0) return -6;
  if (n < 0) return -7;
  if (lda < std::max<std::int64_t>(1, m)) return -9;
  return 0;
}

template <typename T>
std::vector<T> lascl_multipliers(T cfrom, T cto) {
  // LAPACK's loop, step for step: SMLNUM = DLAMCH('S'), BIGNUM = 1/SMLNUM.
  const T smlnum = std::numeric_limits<T>::min();
  const T bignum = T(1) / smlnum;
  std::vector<T> muls;
  T cfromc = cfrom, ctoc = cto;
  bool done = false;
  while (!done) {
    const T cfrom1 = cfromc * smlnum;
    T mul;
    if (cfrom1 == cfromc) {
      // CFROMC is an infinity: a correctly signed zero, or NaN for an infinite CTOC.
      mul = ctoc / cfromc;
      done = true;
    } else {
      const T cto1 = ctoc / bignum;
      if (cto1 == ctoc) {
        // CTOC is 0 or an infinity; it is itself the factor.
        mul = ctoc;
        done = true;
        cfromc = 1;
      } else if (std::abs(cfrom1) > std::abs(ctoc) && ctoc != T(0)) {
        mul = smlnum;
        cfromc = cfrom1;
      } else if (std::abs(cto1) > std::abs(cfromc)) {
        mul = bignum;
        ctoc = cto1;
      } else {
        mul = ctoc / cfromc;
        done = true;
      }
    }
    muls.push_back(mul);
  }
  return muls;
}

template <typename T>
int blasscope_lascl(char type, T cfrom, T cto, std::int64_t m, std::int64_t n, T* a, std::int64_t lda,
                    unsigned threads) {
  const int info = lascl_check(type, cfrom, cto, m, n, lda);
  if (info != 0) {
    report_argument_error(routine<T>(), -info);
    return info;
  }
  if (m == 0 || n == 0) return 0;
  const std::vector<T> muls = lascl_multipliers(cfrom, cto);
  const char t = upper(type);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n) < kParallelElements) threads = 1;
  threads = static_cast<unsigned>(std::min<std::int64_t>(threads, n));
  if (threads <= 1) {
    scale_columns(t, muls, m, 0, n, a, lda);
    return 0;
  }
  std::vector<std::jthread> pool;
  for (unsigned w = 0; w < threads; ++w) {
    const std::int64_t j0 = n * w / threads, j1 = n * (w + 1) / threads;
    pool.emplace_back([&, j0, j1] { scale_columns(t, muls, m, j0, j1, a, lda); });
  }
  return 0;
}

template int lascl_check<float>(char, float, float, std::int64_t, std::int64_t, std::int64_t);
template int lascl_check<double>(char, double, double, std::int64_t, std::int64_t, std::int64_t);
template std::vector<float> lascl_multipliers<float>(float, float);
template std::vector<double> lascl_multipliers<double>(double, double);
template int blasscope_lascl<float>(char, float, float, std::int64_t, std::int64_t, float*, std::int64_t, unsigned);
template int blasscope_lascl<double>(char, double, double, std::int64_t, std::int64_t, double*, std::int64_t, unsigned);

const char* lascl_parameter_name(int p) {
  static const char* const kNames[] = {"TYPE", "KL", "KU", "CFROM", "CTO", "M", "N", "A", "LDA", "INFO"};
  return p >= 1 && p <= 10 ? kNames[p - 1] : "?";
}

int lapack_lascl(char type, double cfrom, double cto, std::int64_t m, std::int64_t n, double* a, std::int64_t lda) {
  const int kl = 0, ku = 0, im = static_cast<int>(m), in = static_cast<int>(n), ilda = static_cast<int>(lda);
  int info = 0;
  dlascl_(&type, &kl, &ku, &cfrom, &cto, &im, &in, a, &ilda, &info, 1);
  return info;
}

int lapack_lascl(char type, float cfrom, float cto, std::int64_t m, std::int64_t n, float* a, std::int64_t lda) {
  const int kl = 0, ku = 0, im = static_cast<int>(m), in = static_cast<int>(n), ilda = static_cast<int>(lda);
  int info = 0;
  slascl_(&type, &kl, &ku, &cfrom, &cto, &im, &in, a, &ilda, &info, 1);
  return info;
}

}  // namespace blasscope::core
