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
#include <utility>

namespace blasscope::core::json_detail {

// The value the last refused conversion on this thread was asked to read: json_path() finds
// it in the document, so an error can name the field ("record.m") and not only the type.
inline thread_local const void* t_refused_value = nullptr;

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
  t_refused_value = &j;
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

template <typename BasicJson, typename Value>
void checked_leaf(const BasicJson& j, Value& out) {
  // nlohmann reads a bool as a number and the reverse; a field of one kind holding the other
  // is a damaged file.
  // A non-finite double is written as null (JSON has no Inf or NaN: nlohmann's dump), so null
  // reads back as NaN: a file BLAScope wrote must open again.
  if constexpr (std::is_floating_point_v<Value>) {
    if (j.is_null()) {
      out = std::numeric_limits<Value>::quiet_NaN();
      return;
    }
  }
  const bool fits = std::is_same_v<Value, bool>       ? j.is_boolean()
                    : std::is_floating_point_v<Value> ? j.is_number()
                                                      : j.is_string();
  if (!fits) {
    t_refused_value = &j;
    const char* expected = std::is_same_v<Value, bool>       ? "true or false"
                           : std::is_floating_point_v<Value> ? "a number"
                                                             : "a string";
    throw BasicJson::type_error::create(
        302, std::string("expected ") + expected + ", got " + (j.is_string() ? j.dump() : std::string(j.type_name())),
        &j);
  }
  if constexpr (std::is_same_v<Value, bool>) {
    out = j.template get_ref<const typename BasicJson::boolean_t&>();
  } else if constexpr (std::is_floating_point_v<Value>) {
    out = j.is_number_float() ? static_cast<Value>(j.template get_ref<const typename BasicJson::number_float_t&>())
          : j.is_number_unsigned()
              ? static_cast<Value>(j.template get_ref<const typename BasicJson::number_unsigned_t&>())
              : static_cast<Value>(j.template get_ref<const typename BasicJson::number_integer_t&>());
  } else {
    out = j.template get_ref<const typename BasicJson::string_t&>();
  }
}

}  // namespace blasscope::core::json_detail

namespace blasscope::core {

// Where `target` (an element of `root`) sits, as "record.operands[0].shape[1]"; "" for the
// root itself or when it is not inside `root`. For error messages: it walks the document.
std::string json_path(const nlohmann::json& root, const void* target);

// The path of the value the last refused conversion on this thread read, if it is in `root`.
// Clears it: the next error starts afresh.
inline std::string refused_json_path(const nlohmann::json& root) {
  const void* refused = std::exchange(json_detail::t_refused_value, nullptr);
  return refused ? json_path(root, refused) : std::string();
}

}  // namespace blasscope::core

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

template <typename Value>
struct adl_serializer<Value, std::enable_if_t<std::is_same_v<Value, bool> || std::is_same_v<Value, double> ||
                                              std::is_same_v<Value, float> || std::is_same_v<Value, std::string>>> {
  template <typename BasicJson>
  static void to_json(BasicJson& j, const Value& value) {
    ::nlohmann::to_json(j, value);
  }
  template <typename BasicJson>
  static void from_json(const BasicJson& j, Value& value) {
    blasscope::core::json_detail::checked_leaf(j, value);
  }
};

}  // namespace nlohmann
