#include "text/format.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

namespace blasscope::core {

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  }
  return text;
}

std::string format_shape(const std::vector<std::uint64_t>& shape) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) out << ',';
  out << ')';
  return out.str();
}

void write_printable_utf8(std::ostream& out, std::string_view text, std::size_t piece) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = at + std::min(std::max<std::size_t>(piece, 4), text.size() - at);
    // Not inside a sequence: where one of the three bytes before the cut leads a sequence that
    // goes past it, the piece ends before that byte (stray continuation bytes are cut anywhere).
    for (std::size_t back = 1; back <= 3 && end < text.size() && end - back > at; ++back) {
      const auto lead = static_cast<unsigned char>(text[end - back]);
      if ((lead & 0xC0) == 0x80) continue;
      const std::size_t length = (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
      if (length > back) end -= back;
      break;
    }
    out << printable_utf8(text.substr(at, end - at));
    at = end;
  }
}

std::string printable_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80           ? 1
                               : (lead >> 5) == 0x6  ? 2
                               : (lead >> 4) == 0xE  ? 3
                               : (lead >> 3) == 0x1E ? 4
                                                     : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (valid && length > 1 && lead < 0xC2) valid = false;  // overlong two-byte form
    if (valid && lead >= 0x80) {
      out.append(text.substr(i, length));
      i += length;
    } else if (valid) {
      out += (lead < 0x20 && lead != '\n' && lead != '\t') ? '?' : static_cast<char>(lead);
      ++i;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", lead);
      out += escaped;
      ++i;
    }
  }
  return out;
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string format_duration(double seconds) {
  if (!(seconds > 0)) return format_number(seconds) + " s";
  static constexpr std::pair<double, const char*> kUnits[] = {{1e-9, " ns"}, {1e-6, " us"}, {1e-3, " ms"}};
  for (const auto& [scale, unit] : kUnits) {
    // Rounded as it will be printed: 999.97 us is "1 ms", not "1000 us".
    if (std::stod(format_number(seconds / scale)) < 1000) return format_number(seconds / scale) + unit;
  }
  return format_number(seconds) + " s";
}

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// One argument as a shell would need it: bare when safe, else quoted ('' for an empty one), with
// control characters as $'\n' escapes (a newline must not break the report's title line).
std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() &&
      arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
          std::string::npos) {
    return arg;
  }
  bool control = false;
  for (const unsigned char c : arg) control = control || c < 0x20 || c == 0x7f;
  if (!control) {
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  // ANSI-C quoting: quotes and backslashes escaped first, then the control characters.
  std::string escaped;
  for (const char c : arg) {
    if (c == '\'' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "$'" + one_line(escaped) + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& arg : argv) text += (text.empty() ? "" : " ") + shell_quoted(arg);
  return text;
}

}  // namespace blasscope::core
