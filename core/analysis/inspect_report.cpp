#include "analysis/inspect_report.h"

#include "analysis/tensor_findings.h"
#include "io/tensor_file_reader.h"

namespace blasscope::core {
namespace {

// Listed, never read: a finding rather than an error, so the file's other tensors are still scanned.
Detection not_scanned_finding(const TensorInfo& tensor) {
  Detection d;
  d.id = "not-scanned";
  d.severity = Severity::Info;
  d.tensor = tensor.name;
  d.message = "not scanned: " + tensor.unread->category + " — " + tensor.unread->reason;
  d.facts = {{"category", tensor.unread->category}, {"dtype", tensor.unread->name}};
  return d;
}

}  // namespace

InspectReport describe_file(const TensorFile& file) {
  InspectReport report;
  report.file = file.path;
  report.format = file.format;
  report.file_size = file.file_size;
  report.metadata = file.metadata;
  for (const TensorInfo& tensor : file.tensors) {
    report.tensors.push_back({tensor, describe_layout(file, tensor), std::nullopt, false});
    if (tensor.unread) report.findings.push_back(not_scanned_finding(tensor));
  }
  return report;
}

void scan_report(const TensorFile& file, InspectReport& report, const ScanOptions& options,
                 const std::function<void(std::size_t)>& tensor_done) {
  std::uint64_t total = 0;
  for (const TensorInfo& tensor : file.tensors) total += tensor.nbytes;
  std::uint64_t before = 0;
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    const TensorInfo& tensor = file.tensors[i];
    ScanOptions per_tensor = options;
    if (options.progress) {
      per_tensor.progress = [&](std::uint64_t done, std::uint64_t) { options.progress(before + done, total); };
    }
    report.tensors[i].stats = scan_tensor(file, tensor, per_tensor);
    report.tensors[i].scanned = true;
    if (report.tensors[i].stats) {
      for (Detection& finding : findings_for_values(tensor, *report.tensors[i].stats)) {
        report.findings.push_back(std::move(finding));
      }
    }
    before += tensor.nbytes;
    if (tensor_done) tensor_done(i);
  }
}

InspectReport inspect_file(const std::string& path, const ScanOptions& options) {
  const TensorFile file = open_tensor_file(path);
  InspectReport report = describe_file(file);
  scan_report(file, report, options);
  return report;
}

}  // namespace blasscope::core
