#pragma once

// The project's JSON: nlohmann's, with integer conversions that check the value.
//
// nlohmann converts a JSON number to an integer with a static_cast: 1e300 read into an
// int64 field is undefined behaviour (it printed m = -9223372036854775808), -1 read into a
// size becomes 2^64 - 1, and `true` reads as 1. Session files, workloads and recordings are
// input like any other, so every integer read through nlohmann (get<T>, value(key, T),
// the field macros) goes through checked_integer below and throws json::type_error naming
// the value and the range instead. Include this header, never <nlohmann/json.hpp> itself
// (a ctest check enforces it), so every translation unit sees the same conversions.

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace blasscope::core::json_detail {

template <typename Int>
inline constexpr bool kCheckedInteger =
    std::is_integral_v<Int> && !std::is_same_v<Int, bool> && !std::is_same_v<Int, char> &&
    !std::is_same_v<Int, signed char> && !std::is_same_v<Int, unsigned char> && !std::is_same_v<Int, wchar_t> &&
    !std::is_same_v<Int, char8_t> && !std::is_same_v<Int, char16_t> && !std::is_same_v<Int, char32_t>;

template <typename Int>
std::string integer_range() {
  return std::to_string(std::numeric_limits<Int>::min()) + ".." + std::to_string(std::numeric_limits<Int>::max());
}

template <typename BasicJson, typename Int>
[[noreturn]] void fail_integer(const BasicJson& j, const std::string& why) {
  throw BasicJson::type_error::create(302, "expected an integer in " + integer_range<Int>() + ", got " + why, &j);
}

template <typename BasicJson, typename Int>
void checked_integer(const BasicJson& j, Int& out) {
  using Limits = std::numeric_limits<Int>;
  if (j.is_number_unsigned()) {
    const auto value = j.template get_ref<const typename BasicJson::number_unsigned_t&>();
    if (value > static_cast<std::make_unsigned_t<Int>>(Limits::max())) fail_integer<BasicJson, Int>(j, j.dump());
    out = static_cast<Int>(value);
  } else if (j.is_number_integer()) {
    const long long value = j.template get_ref<const typename BasicJson::number_integer_t&>();
    bool fits = value >= 0 && static_cast<unsigned long long>(value) <= static_cast<unsigned long long>(Limits::max());
    if constexpr (std::is_signed_v<Int>) fits = value >= Limits::min() && value <= Limits::max();
    if (!fits) fail_integer<BasicJson, Int>(j, j.dump());
    out = static_cast<Int>(value);
  } else if (j.is_number_float()) {
    // 3.0 is accepted (hand-written files); 2.5, 1e300, NaN and infinities are not.
    const double value = j.template get_ref<const typename BasicJson::number_float_t&>();
    // The bounds are powers of two, exact as doubles: [min, max + 1) is the range that fits.
    const double lowest = static_cast<double>(Limits::min());
    const double past_max = 2.0 * static_cast<double>(Limits::max() / 2 + 1);
    if (!std::isfinite(value) || std::trunc(value) != value || value < lowest || value >= past_max) {
      fail_integer<BasicJson, Int>(j, j.dump());
    }
    out = static_cast<Int>(value);
  } else {
    fail_integer<BasicJson, Int>(j, std::string(j.type_name()));
  }
}

}  // namespace blasscope::core::json_detail

namespace nlohmann {

template <typename Int>
struct adl_serializer<Int, std::enable_if_t<blasscope::core::json_detail::kCheckedInteger<Int>>> {
  template <typename BasicJson>
  static void to_json(BasicJson& j, Int value) {
    ::nlohmann::to_json(j, value);
  }
  template <typename BasicJson>
  static void from_json(const BasicJson& j, Int& value) {
    blasscope::core::json_detail::checked_integer(j, value);
  }
};

}  // namespace nlohmann
