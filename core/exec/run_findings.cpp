#include "exec/run_findings.h"

#include <set>

#include "report/inspect_text.h"

namespace blasscope::core {
namespace {

std::string op_label(const KernelRecord& r) {
  return "op " + std::to_string(r.op) + " (" + r.op_kind + (r.kernel.empty() ? "" : ", " + r.kernel) + ")";
}

void add_record_findings(const KernelRecord& r, std::vector<RunFinding>& out) {
  static const std::set<std::string> kErrorKinds = {"shape-mismatch", "dtype-mismatch", "unsupported-dtype",
                                                    "out-of-memory", "illegal-argument", "lapack-failed"};
  if (kErrorKinds.count(r.error_kind) && r.error) {
    out.push_back({r.error_kind, Severity::Error, r.op, std::nullopt, op_label(r) + ": " + *r.error});
  } else if (r.error_kind == "no-gpu") {
    out.push_back({"no-gpu", Severity::Warning, r.op, std::nullopt, op_label(r) + " was not run on the GPU: " + r.error.value_or("")});
  }
  for (const auto& operand : r.operands) {
    if (operand.role == "out" || operand.nan + operand.inf == 0) continue;
    out.push_back({"non-finite-input", Severity::Warning, r.op, operand.tensor,
                   op_label(r) + ": input '" + operand.tensor + "' holds " + std::to_string(operand.nan) + " NaN and " +
                       std::to_string(operand.inf) + " Inf values"});
  }
  if (r.status == "ok" && r.input_nonfinite() == 0 && r.output_nan + r.output_inf > 0) {
    out.push_back({"non-finite-output", Severity::Warning, r.op, std::nullopt,
                   op_label(r) + ": finite inputs produced " + std::to_string(r.output_nan) + " NaN and " +
                       std::to_string(r.output_inf) + " Inf values (overflow in " + r.dtype + ")"});
  }
  if (r.cast_overflow > 0) {
    out.push_back({"cast-overflow", Severity::Warning, r.op, std::nullopt,
                   op_label(r) + ": " + std::to_string(r.cast_overflow) + " finite values became infinite in " + r.dtype});
  }
}

}  // namespace

std::vector<RunFinding> derive_run_findings(const RunResult& result) {
  std::vector<RunFinding> out;
  for (const auto& event : result.events) {
    if (event.value("event", "") == "out_of_memory" && event["op"].is_null()) {
      out.push_back({"out-of-memory", Severity::Error, std::nullopt, event.value("tensor", ""),
                     "input " + event.value("message", std::string("did not fit the memory budget"))});
    } else if (event.value("event", "") == "tensor_error") {
      out.push_back({"unreadable-input", Severity::Error, std::nullopt, event.value("tensor", ""),
                     event.value("message", std::string())});
    }
  }
  for (const auto& record : result.ops) add_record_findings(record, out);
  if (result.crash) {
    const auto& crash = *result.crash;
    std::string message = "the worker process died (" + crash.signal + ")";
    if (crash.op) message += " while running op " + std::to_string(*crash.op) + " (" + crash.kernel + ")";
    message += "; events before the crash were kept";
    if (crash.signal == "SIGSEGV" || crash.signal == "SIGBUS") {
      message += ". A kernel read or wrote outside its buffers: check the leading dimensions against the tensors' shapes";
    }
    out.push_back({"worker-crashed", Severity::Error, crash.op, std::nullopt, message});
  }
  return out;
}

}  // namespace blasscope::core
