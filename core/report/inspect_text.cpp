#include "report/inspect_text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

#include "report/text_table.h"

namespace blasscope::core {

namespace {

using Row = std::vector<std::string>;

Row tensor_row(const TensorReport& t) {
  Row row{t.info.name,
          t.info.dtype_name(),
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
    for (const Detection& f : report.findings) {
      out << "  " << name(f.severity) << " [" << f.id << "] " << f.tensor.value_or("") << ": " << f.message << '\n';
    }
  }
  return out.str();
}

}  // namespace blasscope::core
