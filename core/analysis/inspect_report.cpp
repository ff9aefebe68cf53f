#include "analysis/inspect_report.h"

#include "analysis/tensor_batch_scan.h"
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

Detection reader_finding(const ReaderWarning& warning) {
  Detection d;
  d.id = warning.id;
  d.severity = Severity::Warning;
  if (!warning.tensor.empty()) d.tensor = warning.tensor;
  d.message = warning.message;
  for (const auto& [key, value] : warning.facts) d.facts[key] = value;
  return d;
}

}  // namespace

InspectReport describe_file(const TensorFile& file) {
  InspectReport report;
  report.file = file.path;
  report.format = file.format;
  report.file_size = file.file_size;
  report.metadata = file.metadata;
  report.shards = file.shards;
  for (const ReaderWarning& warning : file.warnings) report.findings.push_back(reader_finding(warning));
  for (const TensorInfo& tensor : file.tensors) {
    report.tensors.push_back({tensor, describe_layout(file, tensor), std::nullopt, false});
    // A report describes; it does not keep a shard's file mapped (the TensorFile does).
    report.tensors.back().info.storage.mapping.reset();
    if (tensor.unread) report.findings.push_back(not_scanned_finding(tensor));
  }
  return report;
}

void scan_report(const TensorFile& file, InspectReport& report, const ScanOptions& options,
                 const std::function<void(std::size_t)>& tensor_done) {
  std::uint64_t total = 0;
  for (const TensorInfo& tensor : file.tensors) total += tensor.nbytes;
  std::uint64_t before = 0;
  auto record = [&](std::size_t i, std::optional<TensorStats> stats) {
    report.tensors[i].stats = std::move(stats);
    report.tensors[i].scanned = true;
  };
  auto add_findings = [&](std::size_t i) {
    if (!report.tensors[i].stats) return;
    for (Detection& finding : findings_for_values(file.tensors[i], *report.tensors[i].stats)) {
      report.findings.push_back(std::move(finding));
    }
  };
  std::vector<std::optional<TensorStats>> batch_results(file.tensors.size());
  for (std::size_t i = 0; i < file.tensors.size();) {
    // A run of tensors each scanned by one thread (a checkpoint's many small ones) is scanned
    // several at a time; a big tensor is split across the threads by scan_tensor itself.
    std::size_t end = i;
    while (end < file.tensors.size() && scans_single_threaded(file.tensors[end])) ++end;
    if (end - i >= 2) {
      scan_batch(
          file, i, end, options, batch_results,
          [&](std::uint64_t done) {
            if (options.progress) options.progress(before + done, total);
          },
          [&](std::size_t row) {
            record(row, std::move(batch_results[row]));
            if (tensor_done) tensor_done(row);
          });
      for (std::size_t row = i; row < end; ++row) {
        add_findings(row);  // in index order, whatever order the tensors finished in
        before += file.tensors[row].nbytes;
      }
      i = end;
      continue;
    }
    const TensorInfo& tensor = file.tensors[i];
    ScanOptions per_tensor = options;
    if (options.progress) {
      per_tensor.progress = [&](std::uint64_t done, std::uint64_t) { options.progress(before + done, total); };
    }
    record(i, scan_tensor(file, tensor, per_tensor));
    add_findings(i);
    before += tensor.nbytes;
    if (tensor_done) tensor_done(i);
    ++i;
  }
}

InspectReport inspect_file(const std::string& path, const ScanOptions& options) {
  const TensorFile file = open_tensor_file(path);
  InspectReport report = describe_file(file);
  scan_report(file, report, options);
  return report;
}

}  // namespace blasscope::core
