#include "report/inspect_text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

#include "report/text_table.h"
#include "text/format.h"

namespace blasscope::core {

namespace {

using Row = std::vector<std::string>;

Row tensor_row(const TensorReport& t, bool sharded) {
  Row row{one_line(t.info.name),           t.info.dtype_name(),         format_shape(t.info.shape),
          std::string(name(t.info.order)), format_bytes(t.info.nbytes), std::to_string(t.layout.file_alignment)};
  if (sharded) row.push_back(one_line(t.info.shard));
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
  out << one_line(report.file) << ": " << name(report.format) << ", " << report.tensors.size()
      << (report.tensors.size() == 1 ? " tensor, " : " tensors, ") << format_bytes(report.file_size) << '\n';
  for (const auto& [key, value] : report.metadata)
    out << "  metadata " << one_line(key) << " = " << one_line(value) << '\n';
  const bool sharded = !report.shards.empty();
  if (sharded) {
    std::vector<Row> rows{{"SHARD", "FORMAT", "SIZE", "TENSORS", "TENSOR BYTES"}};
    for (const ShardSummary& shard : report.shards) {
      rows.push_back({one_line(shard.name), std::string(name(shard.format)), format_bytes(shard.file_size),
                      std::to_string(shard.tensor_count), format_bytes(shard.tensor_bytes)});
    }
    out << "shards:\n";
    append_table(out, rows);
  }
  if (!report.tensors.empty()) {
    Row header{"NAME", "DTYPE", "SHAPE", "ORDER", "BYTES", "ALIGN"};
    if (sharded) header.push_back("SHARD");
    header.insert(header.end(), {"NaN", "+Inf", "-Inf", "ZERO", "SUBNORMAL", "MIN", "MAX"});
    std::vector<Row> rows{header};
    for (const TensorReport& t : report.tensors) rows.push_back(tensor_row(t, sharded));
    append_table(out, rows);
  }
  if (report.findings.empty()) {
    out << "findings: none\n";
  } else {
    out << "findings:\n";
    for (const Detection& f : report.findings) {
      out << "  " << name(f.severity) << " [" << f.id << "] ";
      if (f.tensor) out << one_line(*f.tensor) << ": ";
      out << one_line(f.message) << '\n';
    }
  }
  return out.str();
}

}  // namespace blasscope::core
