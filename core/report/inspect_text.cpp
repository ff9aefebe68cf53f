#include "report/inspect_text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

#include "report/text_table.h"

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

std::string format_scalar(const Scalar& value) {
  switch (value.kind) {
    case Scalar::Kind::Signed: return std::to_string(value.i);
    case Scalar::Kind::Unsigned: return std::to_string(value.u);
    case Scalar::Kind::Float: break;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value.f);
  return text;
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

namespace {

using Row = std::vector<std::string>;

Row tensor_row(const TensorReport& t) {
  Row row{t.info.name,
          std::string(name(t.info.dtype)),
          format_shape(t.info.shape),
          std::string(name(t.info.order)),
          format_bytes(t.info.nbytes),
          std::to_string(t.layout.file_alignment)};
  if (!t.stats) {
    row.insert(row.end(), {"-", "-", "-", "-", "-", "-", "-"});
    return row;
  }
  const TensorStats& s = *t.stats;
  row.insert(row.end(),
             {std::to_string(s.nan), std::to_string(s.posinf), std::to_string(s.neginf), std::to_string(s.zero),
              std::to_string(s.subnormal), s.min ? format_scalar(*s.min) : "-", s.max ? format_scalar(*s.max) : "-"});
  return row;
}

}  // namespace

std::string to_text(const InspectReport& report) {
  std::ostringstream out;
  out << report.file << ": " << name(report.format) << ", " << report.tensors.size()
      << (report.tensors.size() == 1 ? " tensor, " : " tensors, ") << format_bytes(report.file_size) << '\n';
  for (const auto& [key, value] : report.metadata) out << "  metadata " << key << " = " << value << '\n';
  if (!report.tensors.empty()) {
    std::vector<Row> rows{{"NAME", "DTYPE", "SHAPE", "ORDER", "BYTES", "ALIGN", "NaN", "+Inf", "-Inf", "ZERO",
                           "SUBNORMAL", "MIN", "MAX"}};
    for (const TensorReport& t : report.tensors) rows.push_back(tensor_row(t));
    append_table(out, rows);
  }
  if (report.findings.empty()) {
    out << "findings: none\n";
  } else {
    out << "findings:\n";
    for (const Finding& f : report.findings) {
      out << "  " << name(f.severity) << " [" << f.id << "] " << f.tensor << ": " << f.message << '\n';
    }
  }
  return out.str();
}

}  // namespace blasscope::core
