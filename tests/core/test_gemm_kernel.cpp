#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/gemm.h"
#include "kernels/gemm_reference.h"
#include "kernels/xerbla_capture.h"
#include "workload/tensor_factory.h"

using namespace blasscope::core;

namespace {

HostTensor random_matrix(DType dtype, std::uint64_t rows, std::uint64_t cols, MemoryOrder order, std::uint64_t pad,
                         std::size_t misalign, std::uint64_t seed) {
  const std::uint64_t dense = order == MemoryOrder::C ? cols : rows;
  HostTensor t("m", dtype, {rows, cols}, order, dense + pad, misalign);
  SyntheticTensorSource spec;
  spec.seed = seed;
  fill_synthetic(t, spec);
  return t;
}

MatrixView view(const HostTensor& t) {
  return {t.data(), t.dtype(), t.rows(), t.cols(), t.order(), t.leading_dim()};
}

double tolerance(DType dtype) {
  return item_size(dtype) == 4 || dtype == DType::Complex64 ? 2e-6 : 1e-14;
}

// Runs the CBLAS path for one configuration and checks every element of C.
void check_configuration(DType dtype, bool ta, bool tb, MemoryOrder oa, MemoryOrder ob, MemoryOrder oc,
                         std::uint64_t pad, std::size_t misalign, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  const HostTensor a = random_matrix(dtype, ta ? k : m, ta ? m : k, oa, pad, misalign, 1);
  const HostTensor b = random_matrix(dtype, tb ? n : k, tb ? k : n, ob, pad, misalign, 2);
  HostTensor c = random_matrix(dtype, m, n, oc, pad, misalign, 3);
  const HostTensor c0 = random_matrix(dtype, m, n, oc, pad, misalign, 3);
  const double alpha = 1.5, beta = -0.5;
  const GemmCall call = plan_gemm(view(a), ta, view(b), tb, view(c));
  XerblaCapture capture;
  call_gemm(dtype, call, alpha, beta, a.data(), b.data(), c.data());
  ASSERT_TRUE(capture.calls().empty());
  for (std::uint64_t i = 0; i < m; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      const auto want = reference_gemm_element(view(a), ta, view(b), tb, view(c0), alpha, beta, i, j);
      const auto got = load_element(dtype, c.data() + c.offset_of(i, j));
      const long double error = std::abs(std::complex<long double>(got) - want.value);
      ASSERT_LE(error, tolerance(dtype) * (want.magnitude + 1))
          << name(dtype) << " ta=" << ta << " tb=" << tb << " orders " << name(oa) << name(ob) << name(oc)
          << " pad=" << pad << " misalign=" << misalign << " at (" << i << "," << j << ")";
    }
  }
  // Padding between rows/columns is never written.
  if (pad > 0 && oc == MemoryOrder::C) {
    const auto padding = load_element(dtype, c.data() + c.offset_of(0, n));
    const auto original = load_element(dtype, c0.data() + c0.offset_of(0, n));
    EXPECT_EQ(padding, original);
  }
}

}  // namespace

TEST(GemmKernel, MatchesReferenceForEveryDtypeTransposeOrderPaddingAndAlignment) {
  const MemoryOrder orders[] = {MemoryOrder::C, MemoryOrder::Fortran};
  int configurations = 0;
  for (DType dtype : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (MemoryOrder oa : orders) {
          for (MemoryOrder ob : orders) {
            for (MemoryOrder oc : orders) {
              const std::uint64_t pad = (configurations % 3 == 0) ? 3 : 0;
              const std::size_t misalign = (configurations % 2) * 8;
              check_configuration(dtype, ta, tb, oa, ob, oc, pad, misalign, 7, 5, 6);
              ++configurations;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(configurations, 128);
}

TEST(GemmKernel, LargerShapesUseTheBlockedKernels) {
  check_configuration(DType::Float64, false, true, MemoryOrder::C, MemoryOrder::Fortran, MemoryOrder::C, 5, 0, 131, 67,
                      90);
  check_configuration(DType::Float32, true, false, MemoryOrder::Fortran, MemoryOrder::C, MemoryOrder::Fortran, 0, 4, 97,
                      129, 64);
}

TEST(GemmKernel, PlanPassesOtherOrderOperandsAsTransposesWithoutCopies) {
  HostTensor a("a", DType::Float64, {4, 3}, MemoryOrder::Fortran);
  HostTensor b("b", DType::Float64, {3, 2}, MemoryOrder::C, 5);
  HostTensor c("c", DType::Float64, {4, 2}, MemoryOrder::C);
  const GemmCall call = plan_gemm(view(a), false, view(b), false, view(c));
  EXPECT_TRUE(call.row_major);
  EXPECT_TRUE(call.trans_a);  // Fortran-order A viewed row-major is A^T
  EXPECT_FALSE(call.trans_b);
  EXPECT_EQ(call.lda, 4);
  EXPECT_EQ(call.ldb, 5);  // padding passed through
  EXPECT_EQ(call.ldc, 2);
  EXPECT_EQ(call.k, 3);
}

TEST(GemmKernel, BFloat16NeedsSbgemmAndFloat16IsRefused) {
  std::string reason;
  EXPECT_FALSE(gemm_supported(DType::Float16, reason));
  EXPECT_NE(reason.find("float16"), std::string::npos);
  EXPECT_FALSE(gemm_supported(DType::Int32, reason));
  const bool sbgemm = gemm_supported(DType::BFloat16, reason);
  if (!sbgemm) {
    EXPECT_NE(reason.find("cblas_sbgemm"), std::string::npos);
  }
}

TEST(XerblaCapture, EveryGemmParameterNumberIsCapturedNotPrinted) {
  double a[16] = {}, b[16] = {}, c[16] = {};
  struct Case {
    CBLAS_ORDER order;
    int transa, transb, m, n, k, lda, ldb, ldc, expected;
  };
  const Case cases[] = {
      {CblasColMajor, 999, CblasNoTrans, 2, 2, 2, 2, 2, 2, 1},
      {CblasColMajor, CblasNoTrans, 999, 2, 2, 2, 2, 2, 2, 2},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 2, 2, 2, 3},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 2, -1, 2, 2, 2, 2, 4},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, -1, 2, 2, 2, 5},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 2, 2, 2, 2, 4, 8},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 4, 2, 2, 2, 10},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 2, 2, 4, 2, 2, 13},
      // Row-major: OpenBLAS swaps A and B, so the user's bad lda is reported as 10, ldb as 8.
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 4, 2, 2, 2, 10},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 4, 2, 2, 2, 4, 8},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 4, 2, 2, 4, 2, 13},
  };
  for (const Case& t : cases) {
    XerblaCapture capture;
    cblas_dgemm(t.order, static_cast<CBLAS_TRANSPOSE>(t.transa), static_cast<CBLAS_TRANSPOSE>(t.transb), t.m, t.n, t.k,
                1.0, a, t.lda, b, t.ldb, 0.0, c, t.ldc);
    ASSERT_EQ(capture.calls().size(), 1u) << "expected parameter " << t.expected;
    EXPECT_EQ(capture.calls()[0].routine, "DGEMM");
    EXPECT_EQ(capture.calls()[0].parameter, t.expected);
  }
  EXPECT_EQ(gemm_parameter_meaning(true, 10), "LDB of the swapped call: the leading dimension of A (lda)");
  EXPECT_EQ(gemm_parameter_meaning(false, 8), "LDA: leading dimension of A");
}

TEST(XerblaCapture, NestedCapturesGoToTheInnermost) {
  XerblaCapture outer;
  {
    XerblaCapture inner;
    report_argument_error("DLASCL", 4);
    EXPECT_EQ(inner.calls().size(), 1u);
  }
  EXPECT_TRUE(outer.calls().empty());
}
