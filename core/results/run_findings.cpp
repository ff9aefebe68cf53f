#include "results/run_findings.h"

#include <set>

#include "text/format.h"

namespace blasscope::core {
namespace {

std::string op_label(const KernelRecord& r) {
  return "op " + std::to_string(r.op) + " (" + text(r.op_kind) + (r.kernel.empty() ? "" : ", " + r.kernel) + ")";
}

}  // namespace

namespace {

// DLASCL's parameter 4 (CFROM) rejected, directly or through a driver that checks the norm
// itself (LAPACK >= 3.10 ?gesdd returns INFO = -4 for a NaN norm instead of calling DLASCL).
bool is_cfrom_report(const XerblaRecord& x) {
  return x.routine.size() == 6 && x.routine.substr(1) == "LASCL" && x.parameter == 4;  // any precision's
}

bool is_invalid_cfrom(const KernelRecord& r) {
  for (const auto& x : r.xerbla) {
    if (is_cfrom_report(x)) return true;
  }
  const bool driver = r.op_kind == OpKind::Svd || r.op_kind == OpKind::Lstsq;
  return driver && r.info == -4 && r.input_nonfinite() > 0;
}

// `of`: the operand's element count, said where it helps (an output's share that is not finite).
std::string nonfinite_summary(const OperandRecord& o, std::uint64_t of = 0) {
  std::string text = std::to_string(o.nan) + " NaN and " + std::to_string(o.inf) + " Inf values";
  if (of) text += " of " + std::to_string(of);
  if (o.first_nonfinite) {
    text += ", the first at (";
    for (std::size_t i = 0; i < o.first_nonfinite->size(); ++i) {
      text += (i ? ", " : "") + std::to_string((*o.first_nonfinite)[i]);
    }
    text += o.first_nonfinite->size() == 1 ? ",)" : ")";
  }
  return text;
}

// Which results hold the NaN/Inf and where the first is; which inputs brought them, or the
// overflow of finite ones.
Detection silent_nonfinite_output(const KernelRecord& r) {
  std::string where;
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& o : r.operands) {
    if (!o.is_output()) continue;
    if (o.nan + o.inf == 0) continue;
    std::uint64_t values = 1;
    for (auto d : o.shape) values *= d;
    where += std::string(where.empty() ? "" : "; ") + "'" + o.tensor + "' " + format_shape(o.shape) + " holds " +
             nonfinite_summary(o, values);
    outputs.push_back({{"tensor", o.tensor}, {"nan", o.nan}, {"inf", o.inf}, {"values", values}});
  }
  std::string cause;
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& o : r.operands) {
    if (o.is_output() || o.nan + o.inf == 0) continue;
    cause += std::string(cause.empty() ? "" : " and ") + "'" + o.tensor + "' (" + nonfinite_summary(o) + ")";
    inputs.push_back(o.tensor);
  }
  // ?LASCL multiplies by CTO/CFROM, which is not in the operands: an Inf CTO makes a zero NaN.
  // GETRS on the factors of a singular matrix divides by U's zero pivot.
  const std::string finite_cause =
      r.op_kind == OpKind::Dlascl
          ? "every element of the matrix was finite: the scale did it (an Inf CTO, or a CTO/CFROM beyond " +
                text(r.dtype) + ": a zero times Inf is NaN)"
      : r.zero_pivot
          ? "every input was finite, but U's diagonal in the LU factors holds an exact zero at (" +
                std::to_string(*r.zero_pivot - 1) + ", " + std::to_string(*r.zero_pivot - 1) +
                "): they are the factors of a singular matrix (GETRF returned INFO = " + std::to_string(*r.zero_pivot) +
                "), and GETRS divided by that zero"
          : "every input was finite: the values overflowed " + text(r.dtype);
  cause = cause.empty() ? finite_cause : "they come from the NaN/Inf in " + cause;
  const std::string silence = r.info ? r.kernel + " returned INFO = 0" : r.kernel + " reported no error";
  if (where.empty()) {
    where = std::to_string(r.output_nan) + " NaN and " + std::to_string(r.output_inf) + " Inf in the result";
  }
  return {"non-finite-output",
          Severity::Error,
          r.op,
          std::nullopt,
          op_label(r) + ": " + silence + " but its result is not finite: " + where + "; " + cause,
          {{"outputs", outputs}, {"caused_by", inputs}}};
}

}  // namespace

std::vector<Detection> findings_for_record(const KernelRecord& r) {
  std::vector<Detection> out;
  // Errors whose finding id is the error kind's name.
  static const std::set<ErrorKind> kErrorKinds = {
      ErrorKind::ShapeMismatch,   ErrorKind::DtypeMismatch, ErrorKind::UnsupportedDtype, ErrorKind::OutOfMemory,
      ErrorKind::IllegalArgument, ErrorKind::LapackFailed,  ErrorKind::CublasError,      ErrorKind::CudaError};
  if (is_invalid_cfrom(r)) {
    out.push_back({"dlascl-invalid-cfrom", Severity::Error, r.op, std::nullopt,
                   op_label(r) + ": " + r.error.value_or("DLASCL rejected CFROM (parameter 4)")});
    // Another argument the same run refused (DLASCL's CTO, parameter 5, after an Inf norm) is a
    // finding of its own, as it is in a recording.
    for (const auto& x : r.xerbla) {
      if (is_cfrom_report(x)) continue;
      out.push_back({"illegal-argument", Severity::Error, r.op, std::nullopt,
                     op_label(r) + ": on entry to " + x.routine + " parameter number " + std::to_string(x.parameter) +
                         " had an illegal value (" + x.meaning + ")"});
      break;
    }
  } else if (kErrorKinds.count(r.error_kind) && r.error) {
    out.push_back({text(r.error_kind), Severity::Error, r.op, std::nullopt, op_label(r) + ": " + *r.error});
  } else if (r.error_kind == ErrorKind::NoGpu) {
    out.push_back({"no-gpu",
                   Severity::Warning,
                   r.op,
                   std::nullopt,
                   op_label(r) + " was not run on the GPU: " + r.error.value_or(""),
                   {{"reason", r.error.value_or("")}}});
  }
  // A LAPACK driver that took NaN/Inf, said nothing and returned a finite result: the values were
  // lost on the way, and the result means nothing (SYEVR with eigenvectors returns zeros).
  const bool swallowed = is_lapack_op(r.op_kind) && r.status == OpStatus::Ok && r.info == 0 && r.xerbla.empty() &&
                         r.output_nan + r.output_inf == 0;
  for (const auto& operand : r.operands) {
    if (operand.is_output()) continue;
    if (operand.nan + operand.inf > 0) {
      out.push_back({"non-finite-input", swallowed ? Severity::Error : Severity::Warning, r.op, operand.tensor,
                     op_label(r) + ": input '" + operand.tensor + "' holds " + nonfinite_summary(operand) +
                         (swallowed ? "; " + r.kernel +
                                          " returned INFO = 0 and a finite result: nothing reported them, and the "
                                          "result means nothing"
                                    : std::string())});
    }
    if (operand.subnormal > 0) {
      out.push_back({"subnormal-values", Severity::Warning, r.op, operand.tensor,
                     op_label(r) + ": input '" + operand.tensor + "' holds " + std::to_string(operand.subnormal) +
                         " subnormal values"});
    }
  }
  // The library said nothing (no INFO, no xerbla) and the result holds NaN/Inf: the silent
  // failure, an error whatever the inputs were. A cast's infinities are its overflow, reported
  // as cast-overflow.
  if (r.status == OpStatus::Ok && r.op_kind != OpKind::Cast && r.output_nan + r.output_inf > 0) {
    out.push_back(silent_nonfinite_output(r));
  }
  if (r.cast_overflow > 0) {
    out.push_back({"cast-overflow", Severity::Warning, r.op, std::nullopt,
                   op_label(r) + ": " + std::to_string(r.cast_overflow) + " finite values became infinite in " +
                       text(r.dtype) + " (the largest was " + std::to_string(r.cast_overflow_max.value_or(0)) + ")"});
  }
  if (r.cast_inexact > 0) {
    out.push_back({"cast-precision-loss", Severity::Warning, r.op, std::nullopt,
                   op_label(r) + ": " + std::to_string(r.cast_inexact) + " values changed by more than " +
                       text(r.dtype) + " rounding allows (worst relative error " +
                       std::to_string(r.cast_max_relative_error.value_or(0)) + ")"});
  }
  return out;
}

Detection finding_for_unallocated_input(const std::string& tensor, const std::string& message,
                                        const nlohmann::json& facts) {
  return {"out-of-memory", Severity::Error, std::nullopt, tensor, "input " + message, facts};
}

Detection finding_for_crash(const CrashInfo& crash) {
  if (crash.signal == kTimeLimitEnd) {
    std::string message = "op " + (crash.op ? std::to_string(*crash.op) : std::string("?")) + " (" + crash.kernel +
                          ") never returned: " + crash.output + "; the worker was stopped and every earlier event kept";
    if (crash.input_nan + crash.input_inf > 0) {
      message += ". Its inputs held " + std::to_string(crash.input_nan) + " NaN and " +
                 std::to_string(crash.input_inf) + " Inf";
    }
    return {"kernel-hang", Severity::Error, crash.op,
            std::nullopt,  message,         {{"input_nan", crash.input_nan}, {"input_inf", crash.input_inf}}};
  }
  std::string message = "the worker process died (" + crash.signal + ")";
  if (crash.op) message += " while running op " + std::to_string(*crash.op) + " (" + crash.kernel + ")";
  message += "; events before the crash were kept";
  if (crash.signal == "SIGSEGV" || crash.signal == "SIGBUS") {
    message += ". A kernel read or wrote outside its buffers: check the leading dimensions against the tensors' shapes";
  }
  return {"worker-crashed", Severity::Error, crash.op, std::nullopt, message};
}

nlohmann::json to_json(const Detection& f) {
  return {{"id", f.id},
          {"severity", std::string(name(f.severity))},
          {"op", f.op ? nlohmann::json(*f.op) : nlohmann::json()},
          {"tensor", f.tensor ? nlohmann::json(*f.tensor) : nlohmann::json()},
          {"message", f.message},
          {"facts", f.facts}};
}

Detection run_finding_from_json(const nlohmann::json& j) {
  Detection f;
  f.id = j.at("id").get<std::string>();
  const std::string severity = j.at("severity").get<std::string>();
  f.severity = severity == "error" ? Severity::Error : severity == "warning" ? Severity::Warning : Severity::Info;
  if (j.contains("op") && !j["op"].is_null()) f.op = j["op"].get<std::size_t>();
  if (j.contains("tensor") && !j["tensor"].is_null()) f.tensor = j["tensor"].get<std::string>();
  f.message = j.at("message").get<std::string>();
  f.facts = j.value("facts", nlohmann::json::object());
  return f;
}

}  // namespace blasscope::core
