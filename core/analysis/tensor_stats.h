#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace blasscope::core {

// A value that keeps integers exact: int64/uint64 extremes do not survive a double.
struct Scalar {
  enum class Kind : std::uint8_t { Float, Signed, Unsigned };
  Kind kind = Kind::Float;
  double f = 0;
  std::int64_t i = 0;
  std::uint64_t u = 0;

  static Scalar from_float(double v) { return {Kind::Float, v, 0, 0}; }
  static Scalar from_signed(std::int64_t v) { return {Kind::Signed, 0, v, 0}; }
  static Scalar from_unsigned(std::uint64_t v) { return {Kind::Unsigned, 0, 0, v}; }
  double as_double() const;
};

// What one pass over a tensor's values found. For complex tensors every count is over
// the real and imaginary components separately (two per element).
struct TensorStats {
  std::uint64_t nan = 0;
  std::uint64_t posinf = 0;
  std::uint64_t neginf = 0;
  std::uint64_t zero = 0;
  std::uint64_t subnormal = 0;
  std::uint64_t finite = 0;
  std::optional<Scalar> min;  // of the finite values; empty when there are none
  std::optional<Scalar> max;
  // Flat storage-order index (in values, i.e. components for complex) of the first NaN
  // or infinity, the first piece of evidence a user wants.
  std::optional<std::uint64_t> first_nonfinite;

  std::uint64_t nonfinite() const { return nan + posinf + neginf; }
};

// A statistic's value as the reports print it ("%.7g" for floats).
std::string format_scalar(const Scalar& value);

}  // namespace blasscope::core
