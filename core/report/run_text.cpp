#include "report/run_text.h"

#include <cstdio>
#include <sstream>

#include "report/inspect_text.h"
#include "report/text_table.h"

namespace blasscope::core {
namespace {

std::string fixed(double value, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string optional_int(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

}  // namespace

std::string diagnoses_text(const std::vector<Diagnosis>& diagnoses) {
  if (diagnoses.empty()) return "diagnoses: none\n";
  std::ostringstream out;
  out << "diagnoses:\n";
  for (const auto& d : diagnoses) {
    out << "  " << name(d.severity) << " [" << d.id << "] " << d.title << '\n';
    for (const auto& line : d.evidence) out << "      - " << line << '\n';
  }
  out << "(blasscope-cli explain ID tells the cause, the fix and the error texts each shows up as)\n";
  return out.str();
}

std::string to_text(const RunResult& result, const std::vector<Diagnosis>& diagnoses) {
  std::ostringstream out;
  out << "workload: " << result.workload << '\n';
  if (const auto& cpu = result.environment.cpu) {
    out << "cpu: " << cpu->cpu_model << ", " << cpu->logical_cpus << " logical CPUs; OpenBLAS "
        << cpu->openblas_corename << " kernels, " << cpu->openblas_threads << " threads (" << cpu->openblas_parallel
        << ")\n";
    if (!cpu->kernel_mismatch.empty()) out << "note: " << cpu->kernel_mismatch << '\n';
  }
  if (!result.ops.empty()) {
    std::vector<std::vector<std::string>> rows{
        {"#", "OP", "DEVICE", "KERNEL", "DTYPE", "M", "N", "K", "STATUS", "TIME", "GFLOP/s", "GB/s", "INFO"}};
    for (const auto& r : result.ops) {
      rows.push_back(
          {std::to_string(r.op), text(r.op_kind), text(r.device), r.kernel.empty() ? "-" : r.kernel,
           r.dtype ? text(r.dtype) : "-", optional_int(r.m), optional_int(r.n), optional_int(r.k), text(r.status),
           r.seconds ? fixed(*r.seconds * 1e3, "%.3f ms") : "-", r.gflops ? fixed(*r.gflops, "%.2f") : "-",
           r.gbytes_per_second ? fixed(*r.gbytes_per_second, "%.2f") : "-", r.info ? std::to_string(*r.info) : "-"});
    }
    append_table(out, rows);
  }
  out << "peak host memory: " << format_bytes(result.peak_host_bytes) << '\n';
  out << diagnoses_text(diagnoses);
  if (result.crash) {
    if (result.crash->signal == kTimeLimitEnd) {
      out << "stopped: op " << (result.crash->op ? std::to_string(*result.crash->op) : std::string("?")) << " ("
          << result.crash->kernel << ") ran past its time limit (" << result.crash->output << ")";
    } else {
      out << "crash: worker died with " << result.crash->signal;
      if (result.crash->op) out << " in op " << *result.crash->op << " (" << result.crash->kernel << ")";
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace blasscope::core
