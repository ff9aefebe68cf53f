#include "diagnose/recording_diagnosis.h"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "diagnose/diagnosis_collector.h"
#include "diagnose/lapack_meanings.h"
#include "diagnose/recorded_argument_evidence.h"
#include "diagnose/recorded_call_text.h"
#include "gpu_model/cublas_status.h"
#include "record/call_flops.h"
#include "record/routine_names.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

using record::CallRecord;
using record::Routine;
using namespace recorded;

// LAPACKE_<routine> returned `info` < 0 without calling LAPACK: its NaN check found NaN/Inf
// in the matrix at position -info, or it refused an argument itself. Positions are LAPACKE's:
// its first argument is the layout, so each is one past the Fortran routine's.
void add_lapacke_refusal(Collector& out, const CallRecord& c) {
  const std::string lapacke = "LAPACKE_" + record::routine_name(c.routine, c.precision);
  const std::string returned = lapacke + " returned " + std::to_string(c.info);
  if (c.input_nan + c.input_inf > 0) {
    out.add("non-finite-input", Severity::Error, c,
            label(c) + ": " + lapacke + " refused its input (" + values(c) + ") and returned " +
                std::to_string(c.info) + " without calling " + call_name(c),
            {label(c) + ": " + values(c),
             returned + " and " + call_name(c) + " never ran: LAPACKE checks its matrices for NaN first (not Inf) " +
                 "and returns minus the position of the first that holds one (argument " + std::to_string(-c.info) +
                 " here), printing nothing; the outputs keep whatever they held"},
            Specific{"refused by LAPACKE",
                     "LAPACKE, the C interface to LAPACK, looks for NaN (not Inf, which reaches LAPACK) in the "
                     "matrices it is given (unless "
                     "LAPACKE_set_nancheck(0) or LAPACKE_NANCHECK=0 turned that off) and returns minus the "
                     "argument's position before LAPACK runs. Nothing is printed: a program that does not check the "
                     "value returned goes on with outputs that were never written.",
                     "Check every LAPACKE return value (info < 0: argument -info was refused; info > 0: LAPACK "
                     "failed) and find where the NaN entered the input. Turning the check off only moves the "
                     "failure into LAPACK."});
    return;
  }
  // The layout is refused by LAPACKE_<routine>, a row-major leading dimension by the
  // LAPACKE_<routine>_work it calls, each naming itself.
  out.add("illegal-argument", Severity::Error, c,
          label(c) + ": " + lapacke + " refused its argument " + std::to_string(-c.info) + " (returned " +
              std::to_string(c.info) + ") without calling " + call_name(c),
          {returned + " and " + call_name(c) +
               " never ran: LAPACKE checks the layout and the leading dimensions "
               "itself and prints \"Wrong parameter " +
               std::to_string(-c.info) + " in " + lapacke + (c.info == -1 ? "" : "_work") + "\"",
           std::string("LAPACKE counts the layout (LAPACK_ROW_MAJOR 101 or LAPACK_COL_MAJOR 102) as argument 1, ") +
               "so its positions are one past " + call_name(c) + "'s own" +
               ((c.flags & record::kRowMajor) ? "; row-major, a leading dimension must be at least the columns" : "")},
          Specific{"refused by LAPACKE",
                   "LAPACKE refused one of the arguments of the C call before LAPACK ran: a layout that is neither "
                   "101 nor 102, or a leading dimension below the rows (column-major) or the columns (row-major).",
                   "Pass LAPACK_ROW_MAJOR or LAPACK_COL_MAJOR, and a leading dimension of at least the columns of a "
                   "row-major matrix (the rows of a column-major one)."});
}

void add_gpu_failure(Collector& out, const CallRecord& c) {
  const std::string routine = record::routine_name(c.routine, c.precision);
  if (c.routine == Routine::CudaMalloc) {
    // cudaErrorMemoryAllocation is 2; other statuses are the runtime's (no driver, a sticky fault).
    const bool oom = c.info == 2;
    const std::uint64_t bytes = record::malloc_bytes(c);
    out.add(oom ? "out-of-memory" : "cuda-error", Severity::Error, c,
            "call " + std::to_string(c.id) + " cudaMalloc of " + format_bytes(bytes) + " returned cudaError " +
                std::to_string(c.info) + (oom ? " (cudaErrorMemoryAllocation)" : ""),
            {"cudaMalloc(" + std::to_string(bytes) + " bytes) returned " + std::to_string(c.info)});
    return;
  }
  const CublasStatusInfo& status = cublas_status_info(c.info);
  std::vector<std::string> evidence = {routine + " returned " + status.name + " (" + std::to_string(c.info) +
                                       "): " + status.meaning};
  if (c.routine != Routine::CublasCreate) evidence.push_back(routine + " was called with " + sizes(c));
  if (c.routine == Routine::CublasCreate && c.info == 1) {
    evidence.push_back(
        "cublasCreate_v2 cannot initialise without a usable CUDA driver and device (or with device "
        "memory held by another process): TensorFlow reports this as \"Blas GEMM launch failed\"");
  }
  out.add("cublas-error", Severity::Error, c,
          "call " + std::to_string(c.id) + " " + routine + " returned " + status.name, evidence);
}

// A DGETRS whose NaN/Inf result comes from the singular factor an earlier DGETRF warned about
// (INFO = i > 0: U(i,i) = 0), not from its inputs or an overflow.
void add_singular_solve(Collector& out, const CallRecord& solve, const CallRecord& factor) {
  const std::string pivot = std::to_string(factor.info);
  const std::string result = std::to_string(solve.output_nan) + " NaN and " + std::to_string(solve.output_inf) + " Inf";
  out.add(
      "non-finite-output", Severity::Error, solve,
      label(solve) + ": gave " + result + " after " + label(factor) +
          " found the matrix singular (most likely the factor it solved with)",
      {label(factor) + " returned INFO = " + pivot + ": U(" + pivot + "," + pivot + ") is exactly zero" +
           ((factor.flags & record::kValuesChecked) ? ", with a finite input" : ""),
       label(solve) + " came after it in the same process, with the same N and LDA, and returned INFO = 0: "
                      "GETRS divides by U's diagonal and checks nothing",
       label(solve) + ": " + ((solve.flags & record::kValuesChecked) ? "B was finite; " : std::string()) +
           "the solution has " + result},
      Specific{
          "singular factor",
          "GETRS solves with the LU factors GETRF computed and checks none of them: when GETRF returned "
          "INFO = i > 0, U(i,i) is exactly zero, and the back substitution divides by it, giving Inf "
          "and, from Inf - Inf or 0 * Inf, NaN, with INFO = 0. Whatever library made the two calls, "
          "only GETRF's INFO said so, and nothing stops a solve with the factor: SciPy's lu_factor, "
          "for one, only warns (LinAlgWarning \"Diagonal number i is exactly zero. Singular "
          "matrix.\") and lu_solve returns the NaN/Inf result without an error. BLAScope matches the solve to the last "
          "factorisation of the same size in the process; it does not see which factor was passed.",
          "Treat GETRF's INFO > 0 (SciPy's LinAlgWarning) as an error: the matrix is singular and the "
          "system has no unique solution (warnings.simplefilter('error', "
          "scipy.linalg.LinAlgWarning) makes it one). Solve in the least-squares sense instead "
          "(scipy.linalg.lstsq, numpy.linalg.lstsq) or remove the dependent rows and columns."});
}

// Whether the call is a LAPACK call of the program's that returned INFO < 0 with no xerbla
// report: a program with an xerbla_ of its own (C and Fortran programs may define one) takes
// LAPACK's report before the preload's xerbla_ can, and only INFO says which argument it was.
// Not ?GESDD's -4, which LAPACK 3.10 and later return without a report for a NaN norm (its
// parameter 4, A, is never an illegal argument), nor a ?GESVD's -4 on NaN/Inf input, diagnosed
// as that too. (No other routine recorded returns INFO < 0 unreported.)
bool refused_without_report(const CallRecord& c) {
  const bool nan_norm =
      c.info == -4 && (c.routine == Routine::Gesdd || (c.routine == Routine::Gesvd && c.input_nan + c.input_inf > 0));
  return record::is_lapack(c.routine) && c.info < 0 && c.parent == 0 && !record::has_xerbla(c) &&
         !(c.flags & record::kLapacke) && c.routine != Routine::Xerbla && !nan_norm;
}

// Where a crash outside every recorded call may have been.
constexpr const char* kUnseenCrashPlaces =
    "it crashed in the program, in another library, or in a BLAS/LAPACK call the recording does not see (a "
    "routine it does not record, or one called through a pointer looked up with dlvsym)";

// SIGKILL's cause and fix, for the program and for a child.
constexpr const char* kKilledCause =
    "The process ended on SIGKILL, which a process can neither catch nor ignore. It is sent from outside: by "
    "kill -9, by a parent or job scheduler ending it, or by the kernel's out-of-memory killer when the machine "
    "(or the program's container or cgroup) ran out of memory. It is not a fault of a BLAS/LAPACK call; a call "
    "named as running was the one in progress.";
constexpr const char* kKilledFix =
    "Find who sent it. The kernel log says when the out-of-memory killer did (`dmesg` or `journalctl -k`: "
    "\"Out of memory: Killed process PID\"); then the program needs less memory (smaller batches or matrices, "
    "float32 instead of float64) or a larger limit. Otherwise look at the scheduler's limits (time, memory) or "
    "the parent process.";

// A child process (a multiprocessing worker, an MPI rank) that died by a fault outside every
// recorded call: its own line says so, and so does the session it belongs to. One that died
// inside a call is named by that call; SIGTERM, SIGINT and SIGHUP are how pools and launchers end
// their workers, and SIGPIPE how a pipeline's writer ends: not faults.
void add_child_crashes(const record::Recording& r, std::vector<Diagnosis>& diagnoses) {
  for (const record::ProcessInfo& p : r.processes) {
    const int sig = p.end_signal;
    // The program's own end is diagnosed with its calls (a child's session's is here, as a child's).
    if ((p.pid == r.pid && !r.signal.empty() && !r.parent_pid) || !p.end_known || p.alive || p.stopped || sig == 0 ||
        sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGPIPE) {
      continue;
    }
    if (p.end != record::ProcessEnd::None && p.end != record::ProcessEnd::Exiting) continue;
    if (std::any_of(r.running.begin(), r.running.end(), [&p](const CallRecord& c) { return c.pid == p.pid; })) {
      continue;
    }
    Diagnosis d;
    d.id = "program-crashed";
    // SIGKILL may be a parent's deliberate kill as well as the OOM killer's.
    d.severity = sig == SIGKILL ? Severity::Warning : Severity::Error;
    const std::string who = (p.pid == r.pid ? "process " : "child process ") + std::to_string(p.pid) +
                            (p.command.empty() ? "" : " (" + p.command + ")");
    const char* abbrev = ::sigabbrev_np(sig);
    d.title = who + " died with " + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig)) +
              " outside any recorded BLAS/LAPACK call";
    d.evidence = {who + ": " + record::end_text(p),
                  "no recorded call was running in process " + std::to_string(p.pid) + " when it ended"};
    if (sig != SIGKILL) d.evidence.push_back(kUnseenCrashPlaces);  // a kill comes from outside: no place in it
    d = explained(std::move(d));
    if (sig == SIGKILL) d.cause = kKilledCause, d.fix = kKilledFix;
    diagnoses.push_back(std::move(d));
  }
}

std::vector<Diagnosis> diagnose(const record::Recording& r, const std::unordered_set<std::uint64_t>& report_from_info) {
  // Calls by id, made the first time a failure needs its outermost caller (a healthy recording
  // of a million calls needs none). Calls still running when the program ended are parents too
  // (a DLASCL inside a DGELSD that hung).
  std::unordered_map<std::uint64_t, const CallRecord*> by_id;
  const auto index_calls = [&] {
    if (!by_id.empty()) return;
    by_id.reserve(r.calls.size() + r.running.size());
    for (const auto& c : r.calls) by_id[c.id] = &c;
    for (const auto& c : r.running) by_id.emplace(c.id, &c);
  };
  // Calls inside which a recorded call reported a failure (a DGESVD whose DLASCL refused its
  // norm): their NaN results were reported, not silent.
  std::unordered_set<std::uint64_t> failed_inside;
  for (const auto& c : r.calls) {
    if (c.parent && (c.info != 0 || record::has_xerbla(c))) failed_inside.insert(c.parent);
  }
  auto outermost = [&by_id, &index_calls](const CallRecord& c) {
    index_calls();
    const CallRecord* top = &c;
    for (int depth = 0; depth < 64 && top->parent; ++depth) {
      const auto it = by_id.find(top->parent);
      if (it == by_id.end()) break;
      top = it->second;
    }
    return top;
  };
  std::unordered_set<std::uint64_t> running;
  for (const auto& c : r.running) running.insert(c.id);
  // Each driver's ?LASCL calls that refused their CFROM, in the order they ran (GELSD scales A
  // and then B; ZGELSD's are DLASCLs and ZLASCLs).
  std::unordered_map<std::uint64_t, std::vector<const CallRecord*>> refusals;
  // The first ?LASCL inside each driver that accepted a non-finite CFROM (an Inf norm: no xerbla,
  // and A scaled by CTO/Inf = 0), which makes what fails after it fail.
  std::unordered_map<std::uint64_t, const CallRecord*> infinite_scale;
  for (const CallRecord& c : r.calls) {
    if (is_lascl_cfrom(c)) refusals[outermost(c)->id].push_back(&c);
    if (c.parent && c.routine == Routine::Lascl && !record::has_xerbla(c) && !std::isfinite(c.alpha)) {
      infinite_scale.emplace(outermost(c)->id, &c);
    }
  }
  // XERBLA reports made inside a driver by the routines it called, by driver. Where the driver
  // holds a report of its own too (DGEEV of a NaN: DGEBAL's, then DHSEQR's, each overwriting the
  // last, while its DGEHRD holds its own), the driver's is taken for what the program saw (SciPy
  // raises DHSEQR's): the diagnosis names that one and lists the others as evidence.
  std::unordered_map<std::uint64_t, std::vector<const CallRecord*>> inner_reports;
  for (const CallRecord& c : r.calls) {
    if (record::has_xerbla(c) && c.parent && !is_lascl_cfrom(c)) inner_reports[outermost(c)->id].push_back(&c);
  }
  // The last DGETRF of each shape in each process that found a zero pivot: a DGETRS of that
  // shape after it most likely solves with its factor (DGETRS divides by U's diagonal and
  // checks nothing). A factorisation of the same shape that succeeded replaces it.
  std::map<std::tuple<std::uint32_t, record::Precision, std::int64_t, std::int64_t>, const CallRecord*> singular;
  Collector out(r.processes.size() > 1 ? r.pid : 0);
  for (const CallRecord& c : r.calls) {
    const bool lapack = record::is_lapack(c.routine);
    if (c.routine == Routine::Getrf && c.m == c.n) {
      const auto shape = std::make_tuple(c.pid, c.precision, c.n, c.lda);
      // A factorisation of NaN/Inf input may give NaN for that reason: only a finite singular one.
      if (c.info > 0 && c.input_nan + c.input_inf == 0) {
        singular[shape] = &c;
      } else {
        singular.erase(shape);
      }
    }
    if (record::is_gpu(c.routine)) {
      if (c.info != 0) add_gpu_failure(out, c);
      continue;
    }
    if (c.flags & record::kLapacke) {
      add_lapacke_refusal(out, c);
      continue;
    }
    if (is_lascl_cfrom(c)) {
      const CallRecord& top = *outermost(c);
      // One diagnosis per driver, named after the refusal the program saw: each report
      // overwrites the last in SciPy's and NumPy's handlers, so the last one that ran.
      const std::vector<const CallRecord*>& refused = refusals[top.id];
      if (&c == refused.back()) {
        std::vector<std::string> evidence;
        if (&top != &c) evidence.push_back(label(top) + " called " + call_name(c) + " internally");
        evidence.push_back(call_name(c) + " got CFROM = " + format_number(c.alpha) +
                           " and rejected it: xerbla reported " + refusal_counts(refused, xerbla_routine(c)));
        if (&top != &c && inner_reports.count(top.id)) {
          for (const CallRecord* earlier : inner_reports[top.id]) {
            if (earlier->id > c.id) continue;  // a later report has a diagnosis of its own
            evidence.push_back("before it, " + label(*earlier) + ", inside " + call_name(top) + ": on entry to " +
                               xerbla_routine(*earlier) + " parameter number " +
                               std::to_string(earlier->xerbla_parameter) +
                               " had an illegal value (earlier: a program that keeps the last report, as "
                               "SciPy does, shows the CFROM one)");
          }
        }
        if (top.flags & record::kValuesChecked) evidence.push_back(label(top) + ": " + values(top));
        if ((top.flags & record::kHasInfo) && !running.count(top.id))
          evidence.push_back(call_name(top) + " returned INFO = " + std::to_string(top.info));
        if (running.count(top.id)) evidence.push_back(call_name(top) + " never returned");
        // NaN and Inf are what a norm of bad input gives; a zero CFROM is another mistake (a
        // caller's own ?LASCL with a zero scale).
        // Inside a driver CFROM is a norm LAPACK computed from the input; called directly, it is
        // what the program passed.
        const bool computed = &top != &c && (std::isnan(c.alpha) || std::isinf(c.alpha));
        const std::string why = computed ? "a NaN/Inf norm of the input" : "CFROM = " + format_number(c.alpha);
        out.add("dlascl-invalid-cfrom", Severity::Error, top,
                label(top) + ": " + call_name(c) + " rejected its CFROM (parameter 4), " + why, evidence,
                c.alpha == 0 ? Specific{"zero",
                                        "DLASCL multiplies a matrix by CTO/CFROM without overflow, and refuses "
                                        "as its parameter 4 a CFROM it cannot divide by: zero (and NaN). Here "
                                        "CFROM = 0, " +
                                            (&top == &c ? std::string("as the program passed it")
                                                        : "as " + call_name(top) + " computed it"),
                                        "Pass as CFROM the scale the matrix has now (a nonzero number, its norm "
                                        "for instance): a matrix whose norm is zero is all zeros and needs no "
                                        "scaling."}
                             : Specific{"not a number", "", ""});
      }
    } else if (record::has_xerbla(c) && &c != outermost(c) && refusals.count(outermost(c)->id) &&
               refusals[outermost(c)->id].back()->id > c.id) {
      // Made before the driver's last CFROM refusal, the report the program saw (GELSD of an Inf:
      // DLASCL parameter 4, 5, then 4 again, SciPy raising the last): listed in its diagnosis.
    } else if (record::has_xerbla(c) && &c != outermost(c) && record::has_xerbla(*outermost(c)) &&
               !is_lascl_cfrom(*outermost(c)) && !running.count(outermost(c)->id)) {
      // Inside a driver with a report of its own: the driver's diagnosis lists this one (a
      // driver that never returned gets none of that kind: each report is diagnosed).
    } else if (record::has_xerbla(c)) {
      const CallRecord& top = *outermost(c);
      // GEMM's own page lists its parameters 1 to 13: a layout refused as 0 gets the routine's.
      const bool gemm_page = is_gemm_xerbla(c) && &top == &c && c.xerbla_parameter != 0;
      // Refused inside LAPACK, on input holding NaN/Inf: the value was computed from them.
      const bool from_values = refused_inside(c, top) && top.input_nan + top.input_inf > 0;
      std::vector<std::string> evidence = argument_evidence(c, top);
      if (report_from_info.count(c.id)) {
        // Told by INFO, not by a report: the evidence says so.
        const std::string reported =
            "xerbla reported " + xerbla_routine(c) + " parameter " + std::to_string(c.xerbla_parameter);
        const std::string returned = call_name(c) + " returned INFO = " + std::to_string(c.info);
        for (std::string& e : evidence) {
          if (e.starts_with(reported + ": that parameter is")) {
            e = returned + ": parameter " + std::to_string(c.xerbla_parameter) + " is" +
                e.substr(reported.size() + std::string(": that parameter is").size());
          } else if (e.starts_with(reported)) {
            e = returned + e.substr(reported.size());
          }
        }
        evidence.push_back(
            "no xerbla report was seen: the program (or a library it loads) has an xerbla_ of its "
            "own, which LAPACK called instead of OpenBLAS's, and which printed whatever it prints");
      }
      if (&top == &c && inner_reports.count(c.id)) {
        for (const CallRecord* inner : inner_reports[c.id]) {
          // In which order is not recorded: the driver's own report is the last of its own.
          evidence.push_back("also " + label(*inner) + ", inside it: on entry to " + xerbla_routine(*inner) +
                             " parameter number " + std::to_string(inner->xerbla_parameter) + " had an illegal value");
        }
      }
      out.add("illegal-argument", Severity::Error, top,
              label(top) + ": on entry to " + xerbla_routine(c) + " parameter number " +
                  std::to_string(c.xerbla_parameter) + " had an illegal value" +
                  (&top != &c ? " (in " + call_name(c) + ", called inside it)" : std::string()) +
                  (from_values ? ", computed from a NaN/Inf input" : ""),
              std::move(evidence),
              // CBLAS's row-major swap makes GEMM's 8 and 10 different arguments in each layout.
              {xerbla_routine(c) + " " + std::to_string(c.xerbla_parameter) +
                   ((c.flags & record::kRowMajor) ? " row-major" : ""),
               gemm_page ? std::string() : argument_cause(c, top),
               from_values ? "Check the input for NaN/Inf before the call (numpy.isfinite(a).all()) and trace them "
                             "back to where they were made; SciPy's check_finite=True (the default) refuses them "
                             "with \"ValueError: array must not contain infs or NaNs\" instead."
                           : option_fix(c)});
    } else if (lapack && c.info == -4 && c.input_nan + c.input_inf > 0 &&
               (c.routine == Routine::Gesdd || c.routine == Routine::Gesvd)) {
      // LAPACK >= 3.10 checks the norm itself and returns INFO = -4 instead of calling DLASCL.
      out.add("dlascl-invalid-cfrom", Severity::Error, c,
              label(c) + ": returned INFO = -4 for a NaN/Inf norm of its input",
              {label(c) + ": " + values(c), call_name(c) + " returned INFO = -4 (LAPACK 3.10 and later check the norm "
                                                           "before DLASCL would reject it as parameter 4)"});
    } else if (lapack && c.info > 0 && c.parent && outermost(c)->info != 0) {
      // Failed inside a driver that failed too (GELS's DTRTRS): the driver's diagnosis says it.
    } else if (lapack && c.info > 0 && !out.has("dlascl-invalid-cfrom", c.id)) {
      InfoContext context{c.n, false};
      if (c.routine == Routine::Sygvd || c.routine == Routine::Sygv) {
        context.factor_of_b_failed = std::any_of(r.calls.begin(), r.calls.end(), [&c](const CallRecord& inner) {
          return inner.parent == c.id && inner.routine == Routine::Potrf && inner.info > 0;
        });
      }
      const auto meaning = positive_info_meaning(c.routine, c.info, context);
      const auto scaled = infinite_scale.find(c.id);
      if (scaled != infinite_scale.end() && c.input_nan + c.input_inf > 0) {
        // The failure is the Inf's: LAPACK scaled the matrix by CTO/Inf = 0 before it failed.
        const CallRecord& l = *scaled->second;
        out.add("lapack-failed", Severity::Error, c,
                label(c) + ": returned INFO = " + std::to_string(c.info) + " after " + call_name(l) +
                    " inside it scaled by CFROM = " + format_number(l.alpha) + " (the norm of its Inf/NaN input)",
                {label(c) + " returned INFO = " + std::to_string(c.info), label(c) + ": " + values(c),
                 label(l) + " got CFROM = " + format_number(l.alpha) + " and accepted it: the matrix became " +
                     "CTO/CFROM times itself, all zeros or NaN, and what failed next failed on that"},
                Specific{"from an Inf/NaN norm",
                         call_name(c) + " computes the norm of its input to scale it into range; an Inf (or NaN) "
                                        "in the input makes that norm Inf, ?LASCL scales by CTO/Inf = 0 without a "
                                        "word, and the routine then fails on the zeroed matrix. INFO is the "
                                        "zeros' doing, not the matrix's rank or definiteness.",
                         "Check the input for NaN/Inf (numpy.isfinite(a).all()) and trace them back to where they "
                         "were made; SciPy's check_finite=True (the default) refuses them with \"ValueError: array "
                         "must not contain infs or NaNs\". Another driver does not help: gelsd and gelss can hang "
                         "on the same input.",
                         "INFO = " + std::to_string(c.info)});
      } else {
        // GETRF's factorisation is complete with a zero pivot: a warning (NumPy's det is rightly 0
        // from it); what fails is a solve with it, diagnosed on its own (a NaN/Inf result).
        std::vector<std::string> evidence = {
            label(c) + " returned INFO = " + std::to_string(c.info),
            (c.flags & record::kValuesChecked) ? label(c) + ": " + values(c) : "its inputs were not checked"};
        if (c.routine == Routine::Getrf) {
          evidence.push_back(
              "a warning, not an error: the factors are complete (a determinant from them is rightly 0, as "
              "numpy.linalg.det's); what cannot be done is to solve or invert with them, which is why "
              "scipy.linalg.inv and solve raise LinAlgError after it (\"singular matrix\", \"Matrix is "
              "singular.\")");
        }
        // On NaN/Inf input a "singular" or "not positive definite" is the values' doing, not the
        // matrix's: the title says what it read. Not for a solver, whose counts hold B's too.
        const bool nonfinite = c.input_nan + c.input_inf > 0 && c.k <= 0;
        out.add("lapack-failed", c.routine == Routine::Getrf ? Severity::Warning : Severity::Error, c,
                label(c) + ": returned INFO = " + std::to_string(c.info) +
                    (meaning ? ": " + meaning->summary : std::string(" (did not converge or singular)")) +
                    (nonfinite ? ", on input holding NaN/Inf" : ""),
                std::move(evidence),
                Specific{"", meaning ? meaning->cause : "", meaning ? meaning->fix : "",
                         "INFO = " + std::to_string(c.info), meaning ? meaning->seen_as_key : ""});
      }
    }
    if (c.input_nan + c.input_inf > 0 && !c.parent) {
      // A LAPACK call that read them, said nothing and returned a finite result lost them on the
      // way: the result means nothing (SYEVR with eigenvectors returns zeros for a NaN).
      const bool swallowed = lapack && (c.flags & record::kValuesChecked) && c.info == 0 && !record::has_xerbla(c) &&
                             c.output_nan + c.output_inf == 0 && !failed_inside.count(c.id);
      if (swallowed) {
        out.add("non-finite-input", Severity::Error, c,
                label(c) + ": " + values(c) + ", and it returned INFO = 0 with a finite result",
                {label(c) + ": " + values(c),
                 label(c) + " returned INFO = 0 and its result holds no NaN/Inf: nothing reported them, and the "
                            "result cannot be trusted (a NaN makes it meaningless; an Inf may leave a limit, or zeros "
                            "where the Inf scaled the matrix away)"},
                Specific{"finite result", "", ""});
      } else {
        out.add("non-finite-input", Severity::Warning, c, label(c) + ": " + values(c), input_evidence(c, true));
      }
    }
    // The silent failure: a result with NaN/Inf and nothing said (INFO = 0, no xerbla), an
    // error whatever the inputs were.
    if (c.output_nan + c.output_inf > 0 && c.info == 0 && !record::has_xerbla(c) && !failed_inside.count(c.id)) {
      const bool from_inputs = c.input_nan + c.input_inf > 0;
      const auto factor = c.routine == Routine::Getrs && !from_inputs
                              ? singular.find(std::make_tuple(c.pid, c.precision, c.n, c.lda))
                              : singular.end();
      if (factor != singular.end()) {
        add_singular_solve(out, c, *factor->second);
        continue;
      }
      // A ?LASCL of the program's own with an Inf or NaN scale: the scale is the cause, not overflow.
      const bool scale = c.routine == Routine::Lascl && (!std::isfinite(c.alpha) || !std::isfinite(c.beta));
      // A call that returned fewer eigenvalues than asked for by index is titled apart from one
      // that left the caller's array of all N unfilled.
      const bool fewer_by_index = (c.flags & record::kIncomplete) && (c.flags & record::kSomeEigenvalues);
      const Specific variant{std::string(from_inputs ? "from its inputs"
                                         : scale     ? "from its scale"
                                                     : "overflow") +
                                 (fewer_by_index ? ", fewer than asked for" : ""),
                             "", ""};
      std::vector<std::string> evidence = {
          label(c) + " returned " +
              ((c.flags & record::kHasInfo) ? "INFO = 0 with a non-finite result: LAPACK reported no error"
                                            : "normally with a non-finite result: BLAS checks its arguments, never "
                                              "its results, and reported no error"),
          from_inputs ? label(c) + ": " + values(c)
          : scale     ? label(c) + " was given CFROM = " + scale_text(c.alpha) + " and CTO = " + scale_text(c.beta) +
                        ": A is multiplied by CTO/CFROM, which is not finite, and a zero "
                        "times Inf is NaN (LAPACK refuses only a zero or NaN CFROM and a NaN CTO)"
          : (c.flags & record::kValuesChecked) ? label(c) + ": every input was finite (overflow)"
                                               : label(c) +
                                                     ": its inputs were not checked (with alpha = 0 "
                                                     "BLAS need not read A and B; OpenBLAS does)"};
      // RANGE 'A' fills a caller's array of N; RANGE 'I' returns the M it found of those asked for.
      if (c.flags & record::kIncomplete) {
        evidence.push_back(
            label(c) +
            (fewer_by_index
                 ? " was asked for eigenvalues IL to IU (RANGE 'I') and computed fewer (M < IU - IL + 1): those it "
                   "did not compute are counted as NaN (the caller gets the M it computed: SciPy's eigh an "
                   "array shorter than asked for, even an empty one, and no error)"
                 : " was asked for all N eigenvalues (RANGE 'A') and computed fewer (M < N): those it did not "
                   "compute are counted as NaN (the caller's array holds whatever is there: what it held before, "
                   "as SciPy's zeros, or a NaN LAPACK left)"));
      }
      // An eigensolver that stopped short returned no NaN: what the caller got is its own array.
      const std::string incomplete =
          fewer_by_index
              ? label(c) +
                    ": asked for eigenvalues by index (RANGE 'I'), it returned INFO = 0 without computing "
                    "them all" +
                    (from_inputs ? ", on NaN/Inf input" : "") + " (" + std::to_string(c.output_nan + c.output_inf) +
                    " of those asked for are missing or NaN: SciPy returns fewer than were asked for)"
              : label(c) + ": asked for all " + std::to_string(c.n) +
                    " eigenvalues, it returned INFO = 0 without computing them all" +
                    (from_inputs ? ", on NaN/Inf input" : "") + " (" + std::to_string(c.output_nan + c.output_inf) +
                    " of its " + std::to_string(c.n) +
                    " results are no eigenvalues: the caller's array holds what it held, SciPy's zeros)";
      const std::string title = (c.flags & record::kIncomplete)
                                    ? incomplete
                                    : label(c) + ": " +
                                          (from_inputs                          ? "its NaN/Inf inputs gave "
                                           : scale                              ? "its non-finite scale gave "
                                           : (c.flags & record::kValuesChecked) ? "finite inputs gave "
                                                                                : "inputs it did not check gave ") +
                                          std::to_string(c.output_nan) + " NaN and " + std::to_string(c.output_inf) +
                                          " Inf in its output";
      out.add("non-finite-output", Severity::Error, c, title, evidence, variant);
    }
  }
  // SIGTERM, SIGINT and SIGHUP end a program on request (its own, a user's, a scheduler's), and
  // SIGPIPE one whose output's reader has gone (`program | head`): not a crash, though what was
  // running when it came is still worth naming.
  const bool broken_pipe = r.signal == "SIGPIPE";
  // SIGKILL cannot be caught: a kill -9, a parent or scheduler ending it, or the kernel's
  // out-of-memory killer. No fault of the program's either.
  const bool killed = r.signal == "SIGKILL";
  const bool terminated =
      r.signal == "SIGTERM" || r.signal == "SIGINT" || r.signal == "SIGHUP" || broken_pipe || killed;
  const Specific termination =
      killed ? Specific{r.signal, kKilledCause, kKilledFix}
      : broken_pipe
          ? Specific{r.signal,
                     "The program ended on SIGPIPE: it wrote to a pipe (or socket) whose reader had gone, as when "
                     "`program | head` has read the lines it wanted and exited. That is how such a pipeline "
                     "normally ends, not a fault.",
                     "Nothing to fix in BLAS/LAPACK. If the program should have run to its end, keep its output "
                     "(redirect it to a file) or let the reader read it all."}
          : Specific{r.signal,
                     "The program ended on " + r.signal +
                         ", a request to stop that a process sends (the program itself, "
                         "a user's Ctrl-C or kill, a job scheduler or a closed terminal), not a fault.",
                     "Nothing to fix in BLAS/LAPACK: find who sent the signal (a scheduler's time limit, a parent "
                     "process). A call named as running was simply the one in progress."};
  // The longest finished call of each routine (exact, from the totals: the calls kept one by one
  // may be a few). A call stopped after not much longer is the one in progress (a loop of GEMMs
  // stopped by --timeout), not a hang. An older session without it has the mean.
  std::map<std::pair<Routine, record::Precision>, double> usual_of;
  for (const auto& t : r.routines) {
    if (t.calls > t.queries)  // a workspace query's time says nothing of how long the work takes
      usual_of[{t.routine, t.precision}] = t.longest_seconds > 0 ? t.longest_seconds : record::mean_seconds(t);
  }
  for (const CallRecord& c : r.running) {
    // Named by the program's own call (a driver), with the call it was inside of when it stopped.
    if (c.parent && running.count(c.parent)) continue;
    const CallRecord* inner = &c;
    for (const CallRecord& o : r.running) {
      if (o.pid == c.pid && o.tid == c.tid) inner = &o;
    }
    const double ran = record::running_seconds(r, c);
    const std::string how = r.timed_out ? "stopped by --timeout"
                            : r.stopped ? "stopped on request (" + r.problem.substr(0, r.problem.find(';')) + ")"
                                        : "killed by " + r.signal;
    std::vector<std::string> evidence = {label(c) + " had run for " + format_number(ran) + " s when the program was " +
                                         how};
    if (inner != &c) evidence.push_back("inside it, " + label(*inner) + " was running");
    if (c.input_nan + c.input_inf > 0 && !c.parent) {
      out.add("non-finite-input", Severity::Warning, c, label(c) + ": " + values(c), input_evidence(c, false));
    }
    if (c.flags & record::kValuesChecked) evidence.push_back(label(c) + ": " + values(c));
    // Hung: running for over a second, and ten times as long as any call of its routine that
    // returned. Otherwise the call was merely the one in progress when time ran out.
    const auto usual = usual_of.find({c.routine, c.precision});
    const double usual_seconds = usual == usual_of.end() ? 0 : usual->second;
    // And a hundred times the least its sizes take at the machine's peak: a big call the program
    // made first (no finished one to compare) is not called hung at the first timeout.
    const bool single = c.precision == record::Precision::S || c.precision == record::Precision::C;
    const double peak = single ? r.peak_gflops_fp32 : r.peak_gflops_fp64;
    const double least_seconds = peak > 0 ? record::least_flops(c) / (peak * 1e9) : 0;
    const bool hung = ran >= 1 && ran >= 10 * usual_seconds && ran >= 100 * least_seconds;
    // A hang ended from outside (a scheduler's or a user's kill, the OOM killer) is still a hang.
    // SIGPIPE comes from the program's own write, not from someone ending a hang.
    const bool killed_hung =
        hung && c.pid == r.pid && !r.parent_pid && ((terminated && !broken_pipe) || r.signal == "SIGKILL");
    if (r.timed_out || r.stopped || killed_hung) {
      if (usual != usual_of.end()) {
        evidence.push_back("the longest " + call_name(c) + " call that returned took " + format_number(usual_seconds) +
                           " s");
      }
      if (ran >= 1 && ran < 100 * least_seconds) {
        evidence.push_back("a call of these sizes does at least " + format_number(record::least_flops(c) * 1e-9) +
                           " GFLOP: " + format_number(least_seconds) + " s at this machine's peak of " +
                           format_number(peak) + " GFLOP/s, and usually several times that");
      }
      const std::string when = r.timed_out ? "when --timeout stopped the program"
                               : r.stopped ? "when the program was stopped"
                                           : "when " + r.signal + " ended the program";
      out.add("kernel-hang", hung ? Severity::Error : Severity::Warning, c,
              hung ? label(c) + " was still running after " + format_number(ran) + " s, " + when
                   : label(c) + " was the call in progress " + when + " (it had run " + format_number(ran) +
                         " s: the program was busy, not hung in it)",
              evidence, Specific{hung ? "hung" : "in progress", "", ""});
    } else if (c.pid != r.pid || r.exit_status < 0) {
      // A child process (or a child's own session): it ended with this call unfinished. One
      // that exited by itself (another of its threads called exit() or returned from main)
      // did not crash in it.
      const auto process = std::find_if(r.processes.begin(), r.processes.end(),
                                        [&c](const record::ProcessInfo& p) { return p.pid == c.pid; });
      const bool exited = process != r.processes.end() && process->end_known &&
                          (process->end == record::ProcessEnd::Exited || process->end == record::ProcessEnd::Returned);
      if (!exited) {
        // The signal, where the kernel told the recorder (Linux 6.15 and later).
        const int sig = process != r.processes.end() ? process->end_signal : 0;
        // SIGPIPE too: the child's own write to a pipe whose reader went, no fault of the call.
        // SIGKILL: a parent's or the OOM killer's, never the call's fault either.
        const bool asked_to_stop = sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGPIPE || sig == SIGKILL;
        out.add(
            "program-crashed", asked_to_stop ? Severity::Warning : Severity::Error, c,
            "process " + std::to_string(c.pid) + " ended inside " + label(c),
            {label(c) + " never returned: process " + std::to_string(c.pid) + " ended while it ran (" +
             (sig ? record::ended_by_text(sig) : "a crash or a kill; this kernel does not tell which signal") + ")"},
            // Kept apart by how each ended: one child's crash is not counted as another's kill.
            sig == SIGKILL ? Specific{"SIGKILL", kKilledCause, kKilledFix}
                           : Specific{sig ? record::ended_by_text(sig) : "unknown", "", ""});
      }
    } else if (!r.signal.empty() && !r.stopped) {
      out.add("program-crashed", terminated ? Severity::Warning : Severity::Error, c,
              (killed       ? "the program was killed by "
               : terminated ? "the program was terminated by "
                            : "the program died with ") +
                  r.signal + " inside " + label(c),
              evidence, terminated ? termination : Specific{r.signal, "", ""});
    }
  }
  auto diagnoses = out.finish();
  if (!r.kernel_mismatch.empty()) {
    // As for runs: the machine's own finding, worth knowing when the program was slow.
    Diagnosis d;
    d.id = "blas-kernel-mismatch";
    d.severity = Severity::Warning;
    d.title = r.kernel_mismatch;
    d.evidence = {r.kernel_mismatch};
    diagnoses.push_back(explained(std::move(d)));
  }
  // The program itself, with no call of its own running (a child's may be: named above).
  const bool program_in_a_call = std::any_of(r.running.begin(), r.running.end(),
                                             [&r](const CallRecord& c) { return c.pid == r.pid || c.pid == 0; });
  if (!r.signal.empty() && !r.timed_out && !r.stopped && !program_in_a_call && !r.parent_pid) {
    Diagnosis d;
    d.id = "program-crashed";
    d.severity = terminated ? Severity::Warning : Severity::Error;
    d.title = (killed       ? "the program was killed by "
               : terminated ? "the program was terminated by "
                            : "the program died with ") +
              r.signal + " outside any recorded BLAS/LAPACK call";
    d.evidence = {"no recorded call was running in process " + std::to_string(r.pid) + " when it ended"};
    if (!terminated) d.evidence.push_back(kUnseenCrashPlaces);
    d = explained(std::move(d));
    if (terminated) d.cause = termination.cause, d.fix = termination.fix;
    diagnoses.push_back(std::move(d));
  }
  add_child_crashes(r, diagnoses);
  return diagnoses;
}

}  // namespace

std::vector<Diagnosis> diagnose_recording(const record::Recording& r) {
  if (std::none_of(r.calls.begin(), r.calls.end(), refused_without_report)) return diagnose(r, {});
  // Such calls are diagnosed as the report LAPACK made would have been: ROUTINE parameter -INFO,
  // unless a call made inside one was refused (a DLASCL's report is recorded: the driver's INFO
  // is its consequence).
  std::unordered_map<std::uint64_t, std::uint64_t> parent_of;
  for (const CallRecord& c : r.calls) parent_of[c.id] = c.parent;
  std::unordered_set<std::uint64_t> refused_inside_it;
  for (const CallRecord& c : r.calls) {
    if (!record::has_xerbla(c)) continue;
    for (std::uint64_t up = c.parent, depth = 0; up && depth < 64; ++depth) {
      refused_inside_it.insert(up);
      const auto it = parent_of.find(up);
      up = it == parent_of.end() ? 0 : it->second;
    }
  }
  record::Recording reported = r;
  std::unordered_set<std::uint64_t> from_info;
  for (CallRecord& c : reported.calls) {
    if (!refused_without_report(c) || refused_inside_it.count(c.id)) continue;
    const std::string name = upper(record::routine_name(c.routine, c.precision));
    std::memset(c.xerbla_routine, 0, sizeof c.xerbla_routine);
    std::memcpy(c.xerbla_routine, name.data(), std::min(name.size(), sizeof c.xerbla_routine));
    c.xerbla_parameter = -c.info;
    c.flags |= record::kXerbla;
    from_info.insert(c.id);
  }
  return diagnose(reported, from_info);
}

}  // namespace blasscope::core
