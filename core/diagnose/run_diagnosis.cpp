#include "diagnose/run_diagnosis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>

#include "diagnose/argument_evidence.h"
#include "diagnose/lapack_meanings.h"
#include "record/routine_names.h"
#include "results/event_codec.h"
#include "tensor/dtype_promotion.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

using nlohmann::json;

const KernelRecord* record_of(const RunResult& result, std::optional<std::size_t> op) {
  if (!op) return nullptr;
  for (const auto& r : result.ops) {
    if (r.op == *op && r.device == Device::Cpu) return &r;
  }
  for (const auto& r : result.ops) {
    if (r.op == *op) return &r;
  }
  return nullptr;
}

double dtype_max(std::optional<DType> dtype) {
  if (dtype == DType::Float16) return 65504.0;
  if (dtype == DType::Float32 || dtype == DType::Complex64 || dtype == DType::BFloat16)
    return std::numeric_limits<float>::max();
  return std::numeric_limits<double>::max();
}

void add_record_evidence(const Detection& f, const KernelRecord& r, std::vector<std::string>& evidence) {
  if (f.id == "dlascl-invalid-cfrom") {
    for (const auto& o : r.operands) {
      if (o.nan + o.inf > 0) {
        evidence.push_back("'" + o.tensor + "' " + format_shape(o.shape) + " holds " + std::to_string(o.nan) +
                           " NaN and " + std::to_string(o.inf) + " Inf" +
                           (o.first_nonfinite ? ", the first at " + format_shape(*o.first_nonfinite) : std::string()));
      }
    }
    if (!r.xerbla.empty()) {
      const auto& x = r.xerbla.front();
      // Only the reports of this parameter: another one (DLASCL's 5) is a finding of its own.
      const auto times = std::count_if(r.xerbla.begin(), r.xerbla.end(), [&x](const XerblaRecord& y) {
        return y.routine == x.routine && y.parameter == x.parameter;
      });
      evidence.push_back(x.routine + " reported parameter " + std::to_string(x.parameter) + " (" + x.meaning + ")" +
                         (times > 1 ? ", " + std::to_string(times) + " times" : std::string()) +
                         (r.op_kind == OpKind::Dlascl ? std::string() : ", called from inside " + r.kernel) +
                         ": OpenBLAS prints ' ** On entry to " + x.routine + " parameter number " +
                         (x.parameter < 10 ? " " : "") + std::to_string(x.parameter) +
                         " had an illegal value' (BLAScope's worker captures it instead); callers that turn "
                         "xerbla into an exception (NumPy's lstsq, SciPy) raise 'ValueError: On entry to " +
                         x.routine + " parameter number " + std::to_string(x.parameter) +
                         " had an illegal value', MKL prints 'Parameter " + std::to_string(x.parameter) +
                         " was incorrect on entry to " + x.routine + "'");
      if (r.info && *r.info != 0) {
        evidence.push_back(r.kernel + " then returned INFO = " + std::to_string(*r.info));
      }
    } else if (r.op_kind == OpKind::Svd || r.op_kind == OpKind::Lstsq) {
      evidence.push_back(r.kernel + " found the max-abs norm of its input to be NaN and returned INFO = " +
                         std::to_string(r.info.value_or(0)) +
                         " before calling DLASCL (this LAPACK checks the norm first)" +
                         (r.op_kind == OpKind::Svd
                              ? std::string("; NumPy raises 'LinAlgError: SVD did not converge', PyTorch "
                                            "'linalg.svd: The algorithm failed to converge because the input matrix "
                                            "contained non-finite values'")
                              : std::string()) +
                         "; MKL passes the norm to DLASCL and prints 'Parameter 4 was incorrect on entry to "
                         "DLASCL'");
    }
  } else if (f.id == "illegal-argument" && !r.xerbla.empty() && r.op_kind == OpKind::Gemm) {
    for (auto& line : gemm_argument_evidence(r, r.xerbla.front())) evidence.push_back(std::move(line));
  } else if (f.id == "non-finite-output" && r.input_nonfinite() > 0) {
    for (const auto& o : r.operands) {
      if (o.nan + o.inf == 0) continue;
      const bool input = !o.is_output();
      evidence.push_back(std::string(input ? "input" : "result") + " '" + o.tensor + "' " + format_shape(o.shape) +
                         " holds " + std::to_string(o.nan) + " NaN and " + std::to_string(o.inf) + " Inf" +
                         (o.first_nonfinite ? ", the first at " + format_shape(*o.first_nonfinite) : std::string()));
    }
    evidence.push_back(r.kernel + (r.info ? " returned INFO = " + std::to_string(*r.info) : " reported nothing") +
                       ": without a check of its own, the caller gets these values as a normal result");
  } else if (f.id == "non-finite-output" && r.k &&
             r.op_kind == OpKind::Gemm) {  // k x max|a| x max|b| bounds a GEMM only
    double bound = static_cast<double>(*r.k);
    for (const auto& o : r.operands) {
      if (o.role == "a" || o.role == "b") {
        evidence.push_back("max |" + o.role + "| = " + format_number(o.max_abs.value_or(0)) + " ('" + o.tensor + "')");
        bound *= o.max_abs.value_or(0);
      }
    }
    evidence.push_back("k x max|a| x max|b| = " + format_number(bound) + " against the largest " + text(r.dtype) + " " +
                       format_number(dtype_max(r.dtype)) +
                       (bound > dtype_max(r.dtype) ? ": the products overflow" : ""));
  } else if (f.id == "dtype-mismatch" && r.operands.size() >= 2) {
    const DType promoted = promote_types(r.operands[0].dtype, r.operands[1].dtype);
    for (const auto& o : r.operands) {
      if (o.dtype == promoted) continue;
      std::uint64_t elements = 1;
      for (auto d : o.shape) elements *= d;
      evidence.push_back("promoting '" + o.tensor + "' " + text(o.dtype) + " -> " + text(promoted) + " copies " +
                         std::to_string(elements) + " values into " + format_bytes(elements * item_size(promoted)) +
                         " of new memory");
    }
  }
  if (r.seconds) evidence.push_back(r.kernel + " ran in " + format_number(*r.seconds * 1e3) + " ms");
}

// An argument a routine other than GEMM refused (a replayed GEMV, a LAPACK op's): its own list
// for the Cause, and the leading dimension's bound where that was the argument.
void explain_argument_outside_gemm(const RunResult& result, Diagnosis& d) {
  const KernelRecord* r = record_of(result, d.op);
  if (!r || r->op_kind == OpKind::Gemm || r->xerbla.empty()) return;
  const XerblaRecord& x = r->xerbla.front();
  if (r->op_kind != OpKind::Dlascl) d.cause = xerbla_list_cause(x.routine);
  const std::string name = xerbla_parameter_name(x.routine, x.parameter);
  if (name.size() != 3 || !name.starts_with("LD")) return;
  const std::string role(1, static_cast<char>(std::tolower(name[2])));
  for (const auto& o : r->operands) {
    if (o.shape.size() != 2 || (o.role != role && !(role == "c" && o.role == "out"))) continue;
    const bool row = o.order == MemoryOrder::C;
    const std::uint64_t bound = std::max<std::uint64_t>(1, row ? o.shape[1] : o.shape[0]);
    d.evidence.push_back(name + " = " + std::to_string(o.ld) + " for '" + o.tensor + "', stored " +
                         (row ? "row-major" : "column-major") + " as " + std::to_string(o.shape[0]) + " x " +
                         std::to_string(o.shape[1]) + ": it must be at least " + std::to_string(bound) + " (its " +
                         (row ? "row" : "column") + " length)");
    return;
  }
}

// Below this slowdown against a clean twin, a layout difference is reported as costing nothing.
constexpr double kMeasurableSlowdown = 1.05;

struct TwinTiming {
  std::string evidence;
  double ratio;
};

// An op of the same kernel and shape without the suspect property (`clean`): the measured
// cost of that property in this run.
std::optional<TwinTiming> twin_timing(const RunResult& result, const KernelRecord& r,
                                      bool (*clean)(const KernelRecord&)) {
  if (!r.seconds) return std::nullopt;
  for (const auto& q : result.ops) {
    if (q.op == r.op || q.kernel != r.kernel || q.m != r.m || q.n != r.n || q.k != r.k || !q.seconds) continue;
    if (!clean(q)) continue;
    const double ratio = *r.seconds / *q.seconds;
    std::string text = "measured: " + format_number(*r.seconds * 1e3) + " ms here against " +
                       format_number(*q.seconds * 1e3) + " ms for op " + std::to_string(q.op) + " (ratio " +
                       format_number(ratio) + ")";
    if (ratio < kMeasurableSlowdown) text += ": no measurable cost in this run (GEMM packs its operands first)";
    return TwinTiming{text, ratio};
  }
  return std::nullopt;
}

// Adds the measured cost: a real slowdown makes the diagnosis a warning, noise an info.
void add_twin_timing(const RunResult& result, const KernelRecord& r, bool (*clean)(const KernelRecord&), Diagnosis& d) {
  if (auto twin = twin_timing(result, r, clean)) {
    d.evidence.push_back(twin->evidence);
    d.severity = twin->ratio < kMeasurableSlowdown ? Severity::Info : Severity::Warning;
  }
}

bool aligned(const KernelRecord& r) {
  for (const auto& o : r.operands) {
    if (o.alignment < 64) return false;
  }
  return true;
}

bool no_aliasing(const KernelRecord& r) {
  for (const auto& o : r.operands) {
    if (o.is_output()) continue;  // C is written once; the packed inputs are what is walked
    if (o.ld > 0 && (static_cast<std::uint64_t>(o.ld) * item_size(o.dtype)) % 4096 == 0) return false;
  }
  return true;
}

bool is_blas_kernel(const KernelRecord& r) {
  return r.op_kind == OpKind::Gemm || r.op_kind == OpKind::Dlascl || is_lapack_op(r.op_kind) ||
         is_blas_call_op(r.op_kind);
}

void add_layout_diagnoses(const RunResult& result, const KernelRecord& r, std::vector<Diagnosis>& out) {
  if (r.status != OpStatus::Ok || !is_blas_kernel(r)) return;
  std::vector<std::string> misaligned, layout;
  for (const auto& o : r.operands) {
    if (o.alignment < 64) {
      misaligned.push_back("'" + o.tensor + "' (" + o.role + ") starts " + std::to_string(o.alignment) +
                           "-byte aligned");
    }
    if (r.op_kind == OpKind::Gemm && (o.order == MemoryOrder::Fortran || o.padded)) {
      layout.push_back("'" + o.tensor + "' (" + o.role + ") is " +
                       (o.order == MemoryOrder::Fortran ? "Fortran-order" : "C-order") +
                       (o.padded ? ", padded to ld = " + std::to_string(o.ld) : std::string()) +
                       ": passed as is with ld = " + std::to_string(o.ld) + ", no copy");
    }
  }
  if (!misaligned.empty()) {
    Diagnosis d =
        detected("misaligned-buffer", Severity::Info, r.op, std::nullopt,
                 "op " + std::to_string(r.op) + ": data off a 64-byte boundary (harmless to correctness)", misaligned);
    add_twin_timing(result, r, aligned, d);
    out.push_back(std::move(d));
  }
  // A replayed capture's operands are laid out as the recorded call had them: its recording said
  // nothing of that, and neither does the replay (the same diagnoses).
  if (!layout.empty() && !result.recorded_call) {
    if (r.call) {
      layout.push_back(std::string("the call used ") + (r.call->row_major ? "CblasRowMajor" : "CblasColMajor") +
                       " with TransA=" + (r.call->trans_a ? "Trans" : "NoTrans") +
                       ", TransB=" + (r.call->trans_b ? "Trans" : "NoTrans"));
    }
    out.push_back(detected("non-contiguous-layout", Severity::Info, r.op, std::nullopt,
                           "op " + std::to_string(r.op) + ": Fortran-order or padded operands, passed without copies",
                           layout));
  }
}

std::optional<Diagnosis> kernel_mismatch(const RunResult& result) {
  if (!result.environment.cpu || result.environment.cpu->kernel_mismatch.empty()) return std::nullopt;
  const CpuEnvironment& cpu = *result.environment.cpu;
  Diagnosis d = detected("blas-kernel-mismatch", Severity::Warning, std::nullopt, std::nullopt, cpu.kernel_mismatch,
                         {cpu.kernel_mismatch});
  // The CPU's GEMMs only (a GPU's would dwarf the CPU peak), each against its precision's peak.
  double best_share = 0, best = 0, best_peak = 0;
  std::string best_precision;
  for (const auto& r : result.ops) {
    if (r.op_kind != OpKind::Gemm || r.device != Device::Cpu || !r.gflops) continue;
    const bool single = r.dtype == DType::Float32 || r.dtype == DType::Complex64;
    const double peak = single ? cpu.peak_gflops_fp32 : cpu.peak_gflops_fp64;
    if (peak > 0 && *r.gflops / peak > best_share) {
      best_share = *r.gflops / peak, best = *r.gflops, best_peak = peak;
      best_precision = single ? "float32" : "float64";
    }
  }
  if (best > 0) {
    d.evidence.push_back("best CPU GEMM here: " + format_number(best) +
                         " GFLOP/s = " + format_number(100 * best_share) + "% of the " + format_number(best_peak) +
                         " GFLOP/s " + best_precision + " peak estimate");
  }
  return d;
}

// A positive INFO from a routine BLAScope knows is said in that routine's terms, as the
// recording of the same call says it (title, cause, fix), not the page's general ones.
void say_what_the_info_means(const RunResult& result, Diagnosis& d) {
  const KernelRecord* r = record_of(result, d.op);
  if (!r || !r->info || *r->info <= 0) return;
  const auto routine = record::parse_routine_name(r->kernel);
  if (!routine) return;
  const auto meaning = positive_info_meaning(routine->first, *r->info, {});  // no replayed op is a SYGVD
  if (!meaning) return;
  // As a recording says it: a "singular" on NaN/Inf input is the values' doing (not said for a
  // solver, where a recording cannot tell A's values from B's).
  const auto role = [r](const char* name) {
    return std::find_if(r->operands.begin(), r->operands.end(),
                        [name](const OperandRecord& o) { return o.role == name; });
  };
  const bool nonfinite =
      role("b") == r->operands.end() && role("a") != r->operands.end() && role("a")->nan + role("a")->inf > 0;
  d.title = "op " + std::to_string(r->op) + " (" + std::string(name(r->op_kind)) + ", " + r->kernel +
            ") returned INFO = " + std::to_string(*r->info) + ": " + meaning->summary +
            (nonfinite ? ", on input holding NaN/Inf" : "");
  d.cause = meaning->cause;
  d.fix = meaning->fix;
  put_seen_as_first(d, meaning->seen_as_key);
  if (routine->first == record::Routine::Getrf) d.severity = Severity::Warning;  // as the recording says it
}

}  // namespace

bool is_environment_diagnosis(const std::string& id) {
  return id == "blas-kernel-mismatch";
}

std::vector<Diagnosis> diagnose_run(const RunResult& result) {
  std::vector<Diagnosis> out;
  for (const Detection& f : result.findings) {
    Diagnosis d = diagnosis_of(f);
    const KernelRecord* r = f.id == "no-gpu" ? nullptr : record_of(result, f.op);  // no-gpu is about the run
    if (r) add_record_evidence(f, *r, d.evidence);
    if (f.id == "worker-crashed") {
      std::string last;
      for (std::size_t i = result.events.size() > 4 ? result.events.size() - 4 : 0; i < result.events.size(); ++i) {
        last += (last.empty() ? "" : ", ") + event_name(result.events[i]);
      }
      d.evidence.push_back("last events: " + last);
      if (result.crash && !result.crash->output.empty()) {
        // Its last lines on stderr often say why (OpenBLAS's own messages, an abort's reason).
        std::string tail = result.crash->output;
        while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
        std::size_t from = tail.size();
        for (int lines = 0; lines < 3 && from != std::string::npos && from > 0; ++lines)
          from = tail.rfind('\n', from - 1);
        d.evidence.push_back("the worker's last words on stderr: " +
                             printable_utf8(tail.substr(from == std::string::npos ? 0 : from + 1)));
      }
    }
    if (f.id == "out-of-memory") {
      for (const auto& e : result.events) {
        if (const auto* started = e.as<events::RunStarted>()) {
          d.evidence.push_back("predicted peak for the whole workload: " + format_bytes(started->predicted_peak_bytes) +
                               " against a budget of " + format_bytes(started->memory_limit));
        }
      }
    }
    if (f.id == "ld-cache-aliasing") {
      const KernelRecord* r = record_of(result, f.op);
      if (!r || r->status != OpStatus::Ok) continue;  // a slowdown of an op that never ran says nothing
      add_twin_timing(result, *r, no_aliasing, d);
    }
    out.push_back(std::move(d));
  }
  for (const auto& r : result.ops) add_layout_diagnoses(result, r, out);
  if (auto d = kernel_mismatch(result)) out.push_back(std::move(*d));
  // One per (id, op, tensor), keeping the first (the richest) and its evidence; a missing GPU
  // is one fact about the run, said once with the ops it kept off the GPU.
  std::set<std::tuple<std::string, std::optional<std::size_t>, std::optional<std::string>>> seen;
  std::vector<Diagnosis> unique;
  std::string cpu_only_ops;
  for (auto& d : out) {
    if (d.id == "no-gpu") {
      if (d.op) cpu_only_ops += (cpu_only_ops.empty() ? "" : ", ") + std::to_string(*d.op);
      d.op.reset();
    }
    if (seen.insert({d.id, d.op, d.tensor}).second) unique.push_back(explained(std::move(d)));
  }
  for (auto& d : unique) {
    if (d.id == "lapack-failed") say_what_the_info_means(result, d);
    if (d.id == "illegal-argument") explain_argument_outside_gemm(result, d);
    // The page's title is about multiplying operands; a LAPACK op's shape error says its own.
    const KernelRecord* r = d.id == "shape-mismatch" ? record_of(result, d.op) : nullptr;
    if (r && is_lapack_op(r->op_kind) && !d.evidence.empty()) d.title = d.evidence.front();
  }
  for (auto& d : unique) {
    if (d.id == "no-gpu" && !cpu_only_ops.empty()) d.evidence.push_back("ops run on the CPU only: " + cpu_only_ops);
  }
  return unique;
}

std::vector<Diagnosis> diagnose_inspect(const InspectReport& report) {
  std::vector<Diagnosis> out;
  for (const Detection& f : report.findings) out.push_back(explained(diagnosis_of(f)));
  for (const TensorReport& t : report.tensors) {
    const std::size_t size = item_size(t.info.dtype);
    if (size > 1 && t.layout.memory_alignment && *t.layout.memory_alignment < size) {
      out.push_back(
          explained(detected("misaligned-buffer", Severity::Info, std::nullopt, t.info.name, {},
                             {"'" + t.info.name + "' starts at file offset " + std::to_string(t.info.data_offset) +
                              ", " + std::to_string(t.layout.file_alignment) + "-byte aligned, below its " +
                              std::to_string(size) + "-byte elements: a memory-mapped view is misaligned"})));
    }
  }
  return out;
}

}  // namespace blasscope::core
