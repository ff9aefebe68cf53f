#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "analysis/tensor_layout.h"
#include "exec/op_support.h"
#include "tensor/element_codec.h"
#include "workload/tensor_factory.h"

using namespace blasscope::core;

namespace {

TensorSpec synthetic(SyntheticTensorSource s) {
  return {"t", s};
}

}  // namespace

TEST(TensorFactory, SeededFillsAreReproducibleAndInjectExactCounts) {
  SyntheticTensorSource s;
  s.shape = {50, 40};
  s.dtype = DType::Float32;
  s.seed = 9;
  s.nan = 7;
  s.inf = 3;
  const HostTensor a = make_tensor(synthetic(s));
  const HostTensor b = make_tensor(synthetic(s));
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.storage_bytes()), 0);
  const auto [nan, inf] = count_nonfinite(a);
  EXPECT_EQ(nan, 7u);
  EXPECT_EQ(inf, 3u);
  s.seed = 10;
  const HostTensor c = make_tensor(synthetic(s));
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.storage_bytes()), 0);
}

TEST(TensorFactory, MisalignmentAndPaddingAreHonoured) {
  SyntheticTensorSource s;
  s.shape = {5, 3};
  s.dtype = DType::Float64;
  s.order = MemoryOrder::Fortran;
  s.ld = 8;
  s.misalign = 8;
  s.fill = FillKind::Range;
  const HostTensor t = make_tensor(synthetic(s));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 8u);
  EXPECT_EQ(alignment_of(reinterpret_cast<std::uintptr_t>(t.data())), 8u);
  EXPECT_EQ(t.leading_dim(), 8u);
  EXPECT_TRUE(t.is_padded());
  // Fortran order with ld 8: element (i, j) at j * 8 + i; values are the C-order flat index.
  EXPECT_EQ(load_element(DType::Float64, t.data() + t.offset_of(2, 1)).real(), 2 * 3 + 1);
  EXPECT_EQ(t.offset_of(2, 1), (1 * 8 + 2) * 8u);
}

TEST(TensorFactory, FillKinds) {
  SyntheticTensorSource s;
  s.shape = {1000};
  s.dtype = DType::Float64;
  s.fill = FillKind::Uniform;
  const HostTensor u = make_tensor(synthetic(s));
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const double v = load_element(DType::Float64, u.data() + i * 8).real();
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
  s.fill = FillKind::Ones;
  s.dtype = DType::Complex64;
  const HostTensor ones = make_tensor(synthetic(s));
  EXPECT_EQ(load_element(DType::Complex64, ones.data() + 8 * 999), std::complex<double>(1, 0));
}

TEST(TensorFactory, DataEndsRightBeforeAGuardPage) {
  HostTensor t("t", DType::Float64, {1000}, MemoryOrder::C);
  volatile const std::byte* end = t.data() + t.storage_bytes();
  EXPECT_DEATH({ (void)end[64]; }, "");
}

TEST(ElementCodec, HalfRoundTripsEveryFiniteValueAndRoundsToNearestEven) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    const float f = half_to_float(static_cast<std::uint16_t>(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), bits) << bits;
  }
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // halfway to 65536 rounds to even: infinity
  EXPECT_EQ(float_to_half(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3C00);     // tie to even
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: ties to zero
  EXPECT_EQ(float_to_bfloat16(1.0f + 1.0f / 256), 0x3F80);
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(3.0f)), 3.0f);
}
