#include "report/session_report.h"

#include <cstdio>
#include <sstream>

#include "report/html_page.h"
#include "report/inspect_text.h"

namespace blasscope::core {
namespace {

using Row = std::vector<std::string>;

std::string fixed(std::optional<double> v, const char* format, double scale = 1) {
  if (!v) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, *v * scale);
  return text;
}

std::string optional_int(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

Row op_header() {
  return {"#", "op", "device", "kernel", "dtype", "m", "n", "k", "status", "time", "GFLOP/s", "INFO"};
}

Row op_row(const KernelRecord& r) {
  return {std::to_string(r.op),
          text(r.op_kind),
          text(r.device),
          r.kernel.empty() ? "-" : r.kernel,
          r.dtype ? text(r.dtype) : "-",
          optional_int(r.m),
          optional_int(r.n),
          optional_int(r.k),
          text(r.status),
          fixed(r.seconds, "%.3f ms", 1e3),
          fixed(r.gflops, "%.2f"),
          r.info ? std::to_string(*r.info) : "-"};
}

std::vector<std::pair<std::string, std::string>> environment_lines(const RunResult& result) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (const auto& cpu = result.environment.cpu) {
    lines = {{"cpu_model", cpu->cpu_model},
             {"openblas_config", cpu->openblas_config},
             {"openblas_corename", cpu->openblas_corename},
             {"openblas_threads", std::to_string(cpu->openblas_threads)},
             {"peak_gflops_fp64", nlohmann::json(cpu->peak_gflops_fp64).dump()}};
    if (!cpu->kernel_mismatch.empty()) lines.emplace_back("kernel_mismatch", cpu->kernel_mismatch);
  }
  if (!result.environment.gpu.available && !result.environment.gpu.reason.empty()) {
    lines.emplace_back("gpu", result.environment.gpu.reason);
  }
  return lines;
}

std::string escape_md(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string markdown_report(const RunResult& result, const std::vector<Diagnosis>& diagnoses) {
  std::ostringstream out;
  out << "# BLAScope report: " << result.workload << "\n\n## Environment\n\n";
  for (const auto& [key, value] : environment_lines(result)) out << "- **" << key << "**: " << value << '\n';
  out << "- **peak host memory**: " << format_bytes(result.peak_host_bytes) << "\n\n## Ops\n\n";
  const Row header = op_header();
  for (const auto& h : header) out << "| " << h << ' ';
  out << "|\n";
  for (std::size_t i = 0; i < header.size(); ++i) out << "|---";
  out << "|\n";
  for (const auto& r : result.ops) {
    for (const auto& cell : op_row(r)) out << "| " << escape_md(cell) << ' ';
    out << "|\n";
  }
  if (result.crash) out << "\n**The worker crashed** with " << result.crash->signal << ".\n";
  out << "\n## Diagnoses\n\n";
  if (diagnoses.empty()) out << "None: nothing to report.\n";
  for (const auto& d : diagnoses) {
    out << "### " << name(d.severity) << ": " << d.title << " (`" << d.id << "`)\n\n";
    if (d.op) out << "Op " << *d.op << (d.tensor ? ", tensor `" + *d.tensor + "`" : std::string()) << ".\n\n";
    out << "**Evidence**\n\n";
    for (const auto& e : d.evidence) out << "- " << e << '\n';
    out << "\n**Cause**\n\n" << d.cause << "\n\n**Fix**\n\n" << d.fix << "\n\n**Seen as**\n\n";
    for (const auto& s : d.seen_as) out << "- `" << s << "`\n";
    out << '\n';
  }
  return out.str();
}

std::string html_report(const RunResult& result, const std::vector<Diagnosis>& diagnoses) {
  std::ostringstream out;
  html_page_start(out, "BLAScope report: " + result.workload);
  out << "<h2>Environment</h2><ul>";
  for (const auto& [key, value] : environment_lines(result)) {
    out << "<li><b>" << escape_html(key) << "</b>: " << escape_html(value) << "</li>";
  }
  out << "<li><b>peak host memory</b>: " << format_bytes(result.peak_host_bytes) << "</li></ul>\n<h2>Ops</h2>";
  std::vector<std::vector<std::string>> rows = {op_header()};
  for (const auto& r : result.ops) rows.push_back(op_row(r));
  html_table(out, rows);
  if (result.crash) out << "<p><b>The worker crashed</b> with " << escape_html(result.crash->signal) << ".</p>\n";
  html_diagnoses(out, diagnoses);
  html_page_end(out);
  return out.str();
}

}  // namespace blasscope::core
