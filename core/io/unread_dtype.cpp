#include "io/unread_dtype.h"

#include <string_view>

#include "io/python_literal.h"

namespace blasscope::core {
namespace {

constexpr std::size_t kMaxFieldsNamed = 6;
constexpr std::size_t kMaxFieldNameChars = 24;

bool all_digits(std::string_view text) {
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "8", "8[ns]", "8[10us]": datetime64/timedelta64 item size and optional unit.
bool is_datetime_suffix(std::string_view rest) {
  const std::size_t bracket = rest.find('[');
  if (bracket == std::string_view::npos) return all_digits(rest);
  if (rest.back() != ']' || !all_digits(rest.substr(0, bracket))) return false;
  for (char c : rest.substr(bracket + 1, rest.size() - bracket - 2)) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::string field_name(const PyValue& field) {
  if (field.type != PyValue::Type::Tuple || field.items.empty()) return "?";
  const PyValue& name = field.items[0];  // a name, or a (title, name) pair
  const PyValue& text = name.type == PyValue::Type::Tuple && name.items.size() == 2 ? name.items[1] : name;
  if (text.type != PyValue::Type::String) return "?";
  std::string out = text.text.substr(0, kMaxFieldNameChars);
  if (text.text.size() > kMaxFieldNameChars) out += "...";
  if (field.items.size() >= 2 && field.items[1].type == PyValue::Type::String) out += " " + field.items[1].text;
  if (field.items.size() >= 2 && field.items[1].type == PyValue::Type::List) out += " (nested)";
  return out;
}

UnreadDType structured(const PyValue& fields) {
  std::string list;
  for (std::size_t i = 0; i < fields.items.size() && i < kMaxFieldsNamed; ++i) {
    list += (i ? ", " : "") + field_name(fields.items[i]);
  }
  if (fields.items.size() > kMaxFieldsNamed) list += ", ... (" + std::to_string(fields.items.size()) + " fields)";
  return {"structured", "structured",
          "structured dtype [" + list +
              "] holds records, not one numeric type; save each numeric field as its own array to scan it"};
}

std::optional<UnreadDType> from_string(const std::string& descr) {
  if (descr.size() < 2) return std::nullopt;
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return std::nullopt;
  const char kind = descr[1];
  const std::string_view rest = std::string_view(descr).substr(2);
  const std::string quoted = "'" + descr + "'";
  switch (kind) {
    case 'O':
      if (!all_digits(rest)) return std::nullopt;
      return UnreadDType{"object", "object",
                         "object array (dtype " + quoted +
                             "): its values are pickled Python objects, and loading them would run code from the "
                             "file; BLAScope never unpickles, so they are not read"};
    case 'U':
    case 'S':
    case 'a':
      if (rest.empty() || !all_digits(rest)) return std::nullopt;
      return UnreadDType{"strings", descr, "string dtype " + quoted + " holds text, not numbers"};
    case 'V':
      if (rest.empty() || !all_digits(rest)) return std::nullopt;
      return UnreadDType{"structured", descr, "void dtype " + quoted + " holds raw records, not numbers"};
    case 'M':
    case 'm':
      if (rest.empty() || !is_datetime_suffix(rest)) return std::nullopt;
      return UnreadDType{"datetime", descr,
                         (kind == 'M' ? "datetime64" : "timedelta64") + std::string(" dtype ") + quoted +
                             " holds dates or durations, not numbers for BLAS"};
    case 'f':
    case 'c': {
      const bool long_double = kind == 'f' ? (rest == "12" || rest == "16") : (rest == "24" || rest == "32");
      if (!long_double) return std::nullopt;
      const std::string name = (kind == 'f' ? "float" : "complex") + std::to_string(std::stoi(std::string(rest)) * 8);
      return UnreadDType{name, name,
                         quoted + " is long double (" + name +
                             "), which no BLAS library takes; cast it to float64 or complex128 to scan it"};
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<UnreadDType> unread_npy_descr(const PyValue& descr) {
  if (descr.type == PyValue::Type::List) return structured(descr);
  if (descr.type == PyValue::Type::String) return from_string(descr.text);
  return std::nullopt;
}

}  // namespace blasscope::core
