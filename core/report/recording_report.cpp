#include "report/recording_report.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "record/recording_json.h"
#include "record/routine_names.h"
#include "record/session_writer.h"
#include "report/html_page.h"
#include "report/text_table.h"
#include "text/format.h"

namespace blasscope::core {

using nlohmann::json;

namespace {

// `text` cut to at most `most` bytes (never inside a UTF-8 sequence), "…" marking a cut.
std::string shortened(const std::string& text, std::size_t most) {
  if (text.size() <= most) return text;
  std::size_t cut = most > 0 ? most - 1 : 0;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

std::string command_line(const record::Recording& r) {
  std::string text;
  for (const auto& a : r.command) {
    if (!text.empty()) text += ' ';
    text += shell_quoted(a);
  }
  return text.empty() ? "command unknown" : text;  // an unfinished session never wrote it
}

double total_self_seconds(const record::Recording& r) {
  double total = 0;
  for (const auto& t : r.routines) total += t.self_seconds;
  return total;
}

// GFLOP/s against the CPU's estimated peak for the routine's precision (CPU routines only).
std::string share_of_peak(const record::Recording& r, const record::RoutineTotal& t) {
  if (record::is_gpu(t.routine) || t.gflop <= 0 || record::working_seconds(t) <= 0) return "-";
  const bool single = t.precision == record::Precision::S || t.precision == record::Precision::C;
  const double peak = single ? r.peak_gflops_fp32 : r.peak_gflops_fp64;
  return peak > 0 ? format_number(100 * t.gflop / record::working_seconds(t) / peak) + "%" : "-";
}

// The routines table; with an UNFINISHED column when calls had not returned (they are in no
// other column, which count finished calls).
std::vector<std::vector<std::string>> routine_rows(const record::Recording& r) {
  std::vector<std::vector<std::string>> rows{
      {"ROUTINE", "DTYPE", "CALLS", "TOTAL", "SELF", "SHARE", "MEAN", "GFLOP/s", "OF PEAK", "FAILURES"}};
  if (!r.running.empty()) rows[0].push_back("UNFINISHED");
  const double self_total = total_self_seconds(r);
  std::vector<record::RoutineTotal> totals = record::with_unfinished(r);
  // By self time; routines with calls that never returned first, by how long those had run:
  // the hang (or the crash) is the finding, and its time is in no other column.
  std::stable_sort(totals.begin(), totals.end(), [](const record::RoutineTotal& a, const record::RoutineTotal& b) {
    return a.unfinished_seconds > b.unfinished_seconds;
  });
  for (const auto& t : totals) {
    const double mean = record::mean_seconds(t);
    const bool timed = t.calls > 0;
    rows.push_back(
        {record::routine_name(t.routine, t.precision), record::total_dtype(t), std::to_string(t.calls),
         timed ? format_duration(t.seconds) : "-", timed ? format_duration(t.self_seconds) : "-",
         self_total > 0 && timed ? format_number(100 * t.self_seconds / self_total) + "%" : "-",
         timed && t.calls > t.queries ? format_duration(mean) : "-",  // only queries: no work to average
         t.gflop > 0 && record::working_seconds(t) > 0 ? format_number(t.gflop / record::working_seconds(t)) : "-",
         share_of_peak(r, t), std::to_string(t.failures)});
    // With how long they had run: a hang's time is in no other column.
    if (!r.running.empty()) {
      rows.back().push_back(
          t.unfinished ? std::to_string(t.unfinished) + " (ran " + format_duration(t.unfinished_seconds) + ")" : "0");
    }
  }
  return rows;
}

// Why calls were counted but not kept, as far as the recording tells.
std::string not_kept_reason(const record::Recording& r) {
  const std::string cap = "the cap of " + std::to_string(r.max_calls) + " calls";
  if (r.max_calls && r.calls_total > r.max_calls) return "past " + cap + "; record with --max-calls to keep more";
  if (r.parent_pid || r.processes.size() > 1) {
    return cap + " is the whole recording's, all its processes together; or the recording buffer was full";
  }
  return "the recording buffer was full, or threads still waited for room in it when the program ended";
}

// The listed calls counted as failures only for a NaN/Inf result (INFO = 0, nothing refused),
// by routine: "2 dgelsy, 1 dgemm"; "" for none.
std::string silent_failures(const record::Recording& r) {
  std::map<std::string, std::uint64_t> by_routine;
  for (const record::CallRecord& c : r.calls) {
    if (record::call_failed(c) && c.info == 0 && !record::has_xerbla(c) && c.output_nan + c.output_inf > 0) {
      ++by_routine[record::routine_name(c.routine, c.precision)];
    }
  }
  std::string text;
  for (const auto& [routine, count] : by_routine) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + routine;
  }
  return text;
}

std::string header(const record::Recording& r) {
  std::ostringstream out;
  out << "recorded " << r.calls_total << (r.calls_total == 1 ? " BLAS/LAPACK call" : " BLAS/LAPACK calls")
      << (r.running.empty() ? "" : " (and " + std::to_string(r.running.size()) + " that had not returned)") << " in "
      << r.processes.size() << (r.processes.size() == 1 ? " process" : " processes") << " of `" << command_line(r)
      << "`, " << recording_status_text(r) << ", " << format_number(r.wall_seconds) << " s\n";
  if (r.calls_not_kept) {
    out << "note: " << r.calls_not_kept << (r.calls_not_kept == 1 ? " call is" : " calls are")
        << " counted in the totals but not kept one by one (" << not_kept_reason(r) << ")\n";
  }
  double self_seconds = 0;
  for (const auto& t : r.routines) self_seconds += t.self_seconds;
  if (r.wall_seconds > 0 && self_seconds > r.wall_seconds * 1.05) {
    out << "note: TOTAL and SELF add up calls made at the same time on several threads (or in several processes): "
        << format_duration(self_seconds) << " of calls in " << format_duration(r.wall_seconds)
        << " of wall time; SHARE is of their sum\n";
  }
  if (const std::string silent = silent_failures(r); !silent.empty()) {
    out << "note: FAILURES counts calls that returned INFO != 0, had an argument refused, gave NaN/Inf, or (LAPACK) "
           "read NaN/Inf; these returned INFO = 0 with a NaN/Inf result, which nothing reported: "
        << silent << '\n';
  }
  if (const std::string unlisted = record::unlisted_note(r); !unlisted.empty()) out << "note: " << unlisted << '\n';
  if (!r.problem.empty()) out << "note: " << r.problem << '\n';
  std::string queries;
  for (const auto& t : r.routines) {
    if (!t.queries) continue;
    queries += (queries.empty() ? "" : ", ") + std::to_string(t.queries) + " of " + std::to_string(t.calls) + " " +
               record::routine_name(t.routine, t.precision);
  }
  if (!queries.empty()) {
    out << "note: workspace queries (LWORK = -1: LAPACK only sizes its workspace) are in CALLS but not in MEAN: "
        << queries << '\n';
  }
  // The program's BLAS, as it said: the kernels OpenBLAS chose, or that it is another BLAS.
  if (!r.openblas_corename.empty()) {
    out << "OpenBLAS kernels: " << r.openblas_corename
        << (r.openblas_threads > 0
                ? ", " + std::to_string(r.openblas_threads) + (r.openblas_threads == 1 ? " thread" : " threads")
                : std::string())
        << (r.blas_library.empty() ? std::string() : " (" + r.blas_library + ")") << '\n';
  } else if (!r.blas_library.empty()) {
    out << "BLAS: " << r.blas_library << " (not identified as OpenBLAS: no kernel set to name)\n";
  }
  return out.str();
}

// Failing calls of the program's own that were not captured, by routine: those no capture
// replays (routines BLAScope has no op for, complex precisions, a LAPACK routine refusing its
// arguments: the replay passes valid ones), and those whose inputs were finite, which are
// copied before a call only under --capture all (finite input is how POTRF, GETRF and GESV
// usually fail, and copying every call's input would cost every call).
struct Uncaptured {
  std::map<std::string, std::uint64_t> not_replayable, finite_inputs;
};

Uncaptured uncaptured_failures(const record::Recording& r) {
  using record::Routine;
  Uncaptured out;
  if (r.capture_mode == "none") return out;  // nothing was to be captured: the summary says captures were off
  for (const auto& c : r.calls) {
    // A report recorded alone has no arguments to capture: its diagnosis says so.
    if (!record::call_failed(c) || c.parent || (c.flags & record::kCaptured) || record::is_gpu(c.routine) ||
        c.routine == Routine::Xerbla) {
      continue;
    }
    const bool real = c.precision == record::Precision::S || c.precision == record::Precision::D;
    const bool has_op = record::has_replay_op(c.routine);
    // With NaN/Inf inputs an INFO < 0 is the values' doing (DGESDD's -4 for a NaN norm), which
    // replays; with finite ones, arguments the replay op cannot pass (a refused UPLO or LDA, a
    // negative size or a transpose flag GEMM refused: the GEMMs it can replay were captured).
    const bool lapack_argument_error =
        c.routine != Routine::Lascl && (c.info < 0 || has_xerbla(c)) && c.input_nan + c.input_inf == 0;
    const std::string name = record::routine_name(c.routine, c.precision);
    // A refusal of LAPACKE's own: a replay calls LAPACK, which would not refuse it the same way.
    if ((!real && !record::replays_complex(c.routine)) || !has_op || lapack_argument_error ||
        record::transposed_gels(c) || (c.flags & (record::kSomeEigenvalues | record::kLapacke))) {
      ++out.not_replayable[name];
    } else if ((c.flags & record::kValuesChecked) && c.input_nan + c.input_inf == 0 && c.routine != Routine::Gemm &&
               r.capture_mode != "all" && r.capture_mode != "none") {
      ++out.finite_inputs[name];
    }
  }
  return out;
}

std::string by_routine_text(const std::map<std::string, std::uint64_t>& by_routine) {
  std::string text;
  for (const auto& [routine, count] : by_routine)
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + routine;
  return text;
}

std::string captures_text(const record::Recording& r) {
  std::ostringstream out;
  // A few are listed one by one; more than that, where they all are.
  constexpr std::size_t kListed = 10;
  for (std::size_t i = 0; i < r.captures.size() && i < kListed; ++i) {
    const auto& c = r.captures[i];
    out << "capture: call " << c.call << " " << c.routine << " -> blasscope-cli run " << shell_quoted(c.workload)
        << '\n';
  }
  if (r.captures.size() > kListed) {
    const std::string& last = r.captures.back().workload;
    const std::string folder = last.substr(0, last.rfind("/call-"));
    out << "capture: and " << r.captures.size() - kListed << " more in "
        << shell_quoted(folder + "/call-ID/workload.json") << '\n';
  }
  for (const auto& c : r.children) {
    // The whole command is in the JSON report; a line of the summary shows its start, and of a
    // child that exec'd, the start of what it exec'd too (children forked by one shell differ
    // only there).
    constexpr std::size_t kShown = 100;
    constexpr std::string_view kExec = ", then exec'd ";
    const std::size_t exec = c.command.find(kExec);
    const std::string command = exec == std::string::npos || c.command.size() <= kShown
                                    ? shortened(c.command, kShown)
                                    : shortened(c.command.substr(0, exec), 36) + std::string(kExec) +
                                          shortened(c.command.substr(exec + kExec.size()), kShown - 36 - kExec.size());
    const auto process = std::find_if(r.processes.begin(), r.processes.end(),
                                      [&c](const record::ProcessInfo& p) { return p.pid == c.pid; });
    const std::string ended = process != r.processes.end() ? ", " + record::end_text(*process) : "";
    out << "child: pid " << c.pid << " (" << one_line(command) << ")" << ended << " -> " << shell_quoted(c.session)
        << '\n';
  }
  if (r.processes.size() > r.children.size() + 1) {
    const std::size_t others = r.processes.size() - r.children.size() - 1;
    out << "note: " << others << (others == 1 ? " other process" : " other processes")
        << " made no recorded BLAS/LAPACK call before the program ended (no session file for "
        << (others == 1 ? "it" : "them") << "; a daemon's later calls are not seen)\n";
  }
  if (r.check_values) {
    // NumPy's x @ x.T is a SYRK, a matrix times a vector a GEMV: not what a user calls a GEMM.
    std::uint64_t unchecked = 0;  // from the totals: the summary's recording keeps few calls
    for (const auto& t : r.routines) {
      if (t.routine == record::Routine::Gemv || t.routine == record::Routine::Syrk ||
          t.routine == record::Routine::Trsm) {
        unchecked += t.calls;
      }
    }
    if (unchecked) {
      out << "note: --check-values checks the operands of GEMMs (and LAPACK drivers' inputs) only: " << unchecked
          << (unchecked == 1 ? " GEMV, SYRK or TRSM call was" : " GEMV, SYRK and TRSM calls were")
          << " not checked, LAPACK's own included (NumPy's a @ a.T is a SYRK, a matrix @ vector a GEMV)\n";
    }
  }
  if (r.captures_skipped) {
    out << "note: " << r.captures_skipped << (r.captures_skipped == 1 ? " call" : " calls") << " to be captured "
        << (r.captures_skipped == 1 ? "was" : "were")
        << " not: over the size or count cap (raise --capture-limit), no memory or disk was left for "
        << (r.captures_skipped == 1 ? "it" : "them")
        << ", or a GEMM's C was not kept (under --check-values a finite C over 64 KiB is not copied before the "
           "call: --capture all copies every one)\n";
  }
  const Uncaptured uncaptured = uncaptured_failures(r);
  if (!uncaptured.not_replayable.empty()) {
    out << "note: failing calls not captured, because no workload replays them (workloads replay GEMM, GEMV, "
           "SYRK, TRSM, ?LASCL and the SVD, least-squares, eigenvalue, Cholesky, LU and solve drivers, called "
           "through LAPACK with arguments it accepts; README, Record your program, Captures): "
        << by_routine_text(uncaptured.not_replayable) << '\n';
  }
  if (!uncaptured.finite_inputs.empty()) {
    out << "note: failing calls not captured because their inputs were finite (only --capture all copies those "
           "before every call): "
        << by_routine_text(uncaptured.finite_inputs) << '\n';
  }
  if (r.capture_mode == "none" && r.captures.empty()) out << "note: captures were off (--capture none)\n";
  return out.str();
}

// The calls a reader looks for first: those that failed or never returned (at most 1,000).
std::vector<std::vector<std::string>> notable_call_rows(const record::Recording& r) {
  std::vector<std::vector<std::string>> rows{
      {"CALL", "PARENT", "THREAD", "ROUTINE", "M", "N", "K", "TIME", "INFO", "XERBLA", "NaN/Inf OUT"}};
  const auto add = [&rows](const record::CallRecord& c, bool running) {
    const std::string xerbla = has_xerbla(c)
                                   ? std::string(c.xerbla_routine, strnlen(c.xerbla_routine, sizeof c.xerbla_routine)) +
                                         " parameter " + std::to_string(c.xerbla_parameter)
                                   : "-";
    const bool malloc = c.routine == record::Routine::CudaMalloc;  // its size, in bytes, is M
    rows.push_back({std::to_string(c.id), c.parent ? std::to_string(c.parent) : "-", std::to_string(c.tid),
                    record::routine_name(c.routine, c.precision),
                    malloc ? format_bytes(record::malloc_bytes(c)) : std::to_string(c.m),
                    malloc ? "-" : std::to_string(c.n), c.k ? std::to_string(c.k) : "-",
                    running ? "still running" : format_duration(c.duration_ns * 1e-9),
                    (c.flags & record::kHasInfo) && !running ? std::to_string(c.info) : "-", xerbla,
                    c.output_nan + c.output_inf ? std::to_string(c.output_nan + c.output_inf) : "-"});
  };
  for (const auto& c : r.calls) {
    if (rows.size() > 1000) break;
    if (record::call_failed(c)) add(c, false);
  }
  for (const auto& c : r.running) add(c, true);
  return rows;
}

}  // namespace

std::string recording_status_text(const record::Recording& r) {
  // A child process is not the recorder's to wait for: how it ended is what its preload said.
  const auto self = std::find_if(r.processes.begin(), r.processes.end(),
                                 [&r](const record::ProcessInfo& p) { return p.pid == r.pid; });
  std::string text = r.exit_status >= 0          ? "exit status " + std::to_string(r.exit_status)
                     : !r.parent_pid             ? "exit status unknown"
                     : self != r.processes.end() ? record::end_text(*self) + " (a child process)"
                                                 : "exit status unknown (a child process)";
  if (r.exit_status < 0 && self != r.processes.end() && self->stopped && !self->alive) {
    return "stopped by the recorder with the program" +
           (r.timed_out ? " at --timeout (" + format_number(r.timeout_seconds) + " s)" : std::string()) +
           (self->end_signal ? ": " + record::signal_text(self->end_signal) + " ended it" : std::string()) +
           " (a child process)";
  }
  if (r.timed_out) {
    text += " (stopped by --timeout after " + format_number(r.timeout_seconds) + " s)";
  } else if (r.stopped) {
    text += " (stopped on request" + (r.signal.empty() ? std::string() : ", by " + r.signal) + ")";
  } else if (!r.signal.empty() && r.exit_status >= 0) {  // a child's own end (end_text) says it already
    text += " (killed by " + r.signal + ")";
  }
  return text;
}

json recording_report_json(const record::Recording& r, const std::vector<Diagnosis>& diagnoses, bool with_calls) {
  const json session = record::to_json(r, with_calls);
  json out = {{"kind", "recording"},
              {"command", r.command},
              {"exit_status", r.exit_status >= 0 ? json(r.exit_status) : json()},
              {"signal", session["signal"]},
              {"timed_out", r.timed_out},
              {"wall_seconds", r.wall_seconds},
              {"host", r.host},
              {"pid", r.pid ? json(r.pid) : json()},  // null: an unfinished session of several processes
              {"processes", session["processes"]},
              {"routines", record::routines_to_json(record::with_unfinished(r))},
              {"calls", session["calls"]},
              {"calls_total", r.calls_total},
              {"calls_not_kept", r.calls_not_kept},
              {"calls_unlisted", r.calls_unlisted},
              {"nested_limit", session["nested_limit"]},
              {"running", session["running"]},
              {"problem", session["problem"]},
              {"captures", session["captures"]},
              {"children", session["children"]},
              {"captures_skipped", r.captures_skipped},
              {"capture", session["capture"]},
              {"crash", nullptr}};
  json list = json::array();
  for (const auto& d : diagnoses) {
    json j = to_json(d);
    j["call"] = d.facts.contains("call") ? d.facts["call"] : json();
    // Every call it stands for (the first 1,000), where they are.
    for (const char* key : {"routine", "calls", "pid", "thread"}) {
      if (d.facts.contains(key)) j[key] = d.facts[key];
    }
    list.push_back(std::move(j));
  }
  out["diagnoses"] = std::move(list);
  const Uncaptured uncaptured = uncaptured_failures(r);
  out["uncaptured"] = {{"not_replayable", uncaptured.not_replayable}, {"finite_inputs", uncaptured.finite_inputs}};
  if (!r.signal.empty() && !r.timed_out) {
    json call = nullptr;
    for (const auto& c : r.running) {
      if (c.pid == r.pid) call = record::running_call_to_json(r, c);
    }
    out["crash"] = {{"signal", r.signal}, {"call", call}};
  }
  return out;
}

std::string recording_report_json_text(const record::Recording& r, const std::vector<Diagnosis>& diagnoses) {
  std::string text =
      recording_report_json(r, diagnoses, false).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  // The calls are written straight into the text: a JSON tree of a million calls takes
  // gigabytes and many seconds. A top-level key is the only one indented by two spaces, and
  // no string holds a raw newline, so this is the report's own "calls".
  static constexpr std::string_view kEmpty = "\n  \"calls\": []";
  const std::size_t at = text.find(kEmpty);
  if (at == std::string::npos) return text + "\n";
  // Built once, in place: a million calls' text is 240 MB, and every copy of it is as much.
  std::string report;
  report.reserve(text.size() + r.calls.size() * 240 + 16);
  report.append(text, 0, at);
  report += "\n  \"calls\": [";
  char call[record::kMaxCallText];
  for (std::size_t i = 0; i < r.calls.size(); ++i) {
    report += i ? ",\n    " : "\n    ";
    report.append(call, record::write_call_text(call, r.calls[i], i, r.start_ns));
  }
  report += r.calls.empty() ? "]" : "\n  ]";
  report.append(text, at + kEmpty.size());
  return report += "\n";
}

std::string recording_summary(const record::Recording& r, const std::vector<Diagnosis>& diagnoses) {
  std::ostringstream out;
  out << "blasscope: " << header(r);
  if (!r.routines.empty() || !r.running.empty()) append_table(out, routine_rows(r));
  if (!diagnoses.empty()) {
    out << "diagnoses:\n";
    for (const auto& d : diagnoses) {
      out << "  " << name(d.severity) << " [" << d.id << "] " << d.title << '\n';
      for (const auto& line : d.evidence) out << "      - " << line << '\n';
    }
    out << "(blasscope-cli explain ID tells the cause, the fix and the error texts each shows up as)\n";
  }
  out << captures_text(r);
  return out.str();
}

// Markdown code text: fenced by one backtick more than the longest run inside it (a command
// line may hold backticks), with spaces where it starts or ends with one.
std::string code_span(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

// A pipe table, the first row its header; a cell's own pipes escaped.
void markdown_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out << '|';
    for (const auto& cell : rows[i]) {
      std::string text;
      for (const char c : cell) {
        text += c == '|' ? std::string("\\|") : c == '\n' || c == '\r' ? std::string(" ") : std::string(1, c);
      }
      out << ' ' << text << " |";
    }
    out << '\n';
    if (i == 0) {
      out << '|';
      for (std::size_t c = 0; c < rows[i].size(); ++c) out << " --- |";
      out << '\n';
    }
  }
}

// A summary line with the program's command (header() quotes it in single backticks) made
// into `code` by `as_code`, and the text around it by `as_text`: a command holding backticks
// itself would end a single-backtick span early.
template <typename Code, typename Text>
std::string with_command(const std::string& line, const record::Recording& r, Code as_code, Text as_text) {
  const std::string command = command_line(r);
  const std::size_t at = line.find("`" + command + "`");
  if (at == std::string::npos) return as_text(line);
  return as_text(line.substr(0, at)) + as_code(command) + as_text(line.substr(at + command.size() + 2));
}

std::string recording_markdown(const record::Recording& r, const std::vector<Diagnosis>& diagnoses) {
  std::ostringstream out;
  out << "# BLAScope recording: " << code_span(command_line(r)) << "\n\n";
  // A paragraph a line: Markdown would join the notes into the line before them.
  std::istringstream lines(header(r));
  const auto same = [](const std::string& text) { return text; };
  for (std::string line; std::getline(lines, line);) out << with_command(line, r, code_span, same) << "\n\n";
  out << "## Routines\n\n";
  markdown_table(out, routine_rows(r));
  out << "\n## Diagnoses\n\n";
  if (diagnoses.empty()) out << "None.\n\n";
  // A cause and fix told once: a program failing in ten ways like it repeats no paragraph.
  std::map<std::pair<std::string, std::string>, std::size_t> explained;
  for (std::size_t i = 0; i < diagnoses.size(); ++i) {
    const Diagnosis& d = diagnoses[i];
    out << "### " << i + 1 << ". " << d.title << " (`" << d.id << "`, " << name(d.severity) << ")\n\n";
    for (const auto& line : d.evidence) out << "- " << line << '\n';
    const auto [first, added] = explained.emplace(std::make_pair(d.cause, d.fix), i + 1);
    if (added) {
      out << "\n**Cause.** " << d.cause << "\n\n**Fix.** " << d.fix << "\n\n";
    } else {
      out << "\n**Cause and fix:** as for " << first->second << " above.\n\n";
    }
  }
  if (const auto notable = notable_call_rows(r); notable.size() > 1) {
    out << "## Failing and unfinished calls\n\n";
    markdown_table(out, notable);
    out << '\n';
  }
  const std::string captures = captures_text(r);
  if (!captures.empty()) {
    out << "## Captures and child processes\n\n";
    std::istringstream lines(captures);
    for (std::string line; std::getline(lines, line);) out << "- " << code_span(line) << '\n';
  }
  return out.str();
}

std::string recording_html(const record::Recording& r, const std::vector<Diagnosis>& diagnoses) {
  std::ostringstream out;
  html_page_start(out, "BLAScope recording: " + command_line(r));
  std::istringstream lines(header(r));
  // Each line a paragraph, its command as code.
  const auto code = [](const std::string& text) { return "<code>" + escape_html(text) + "</code>"; };
  const auto text = [](const std::string& text) { return escape_html(text); };
  for (std::string line; std::getline(lines, line);) out << "<p>" << with_command(line, r, code, text) << "</p>\n";
  out << "<h2>Routines</h2>\n";
  html_table(out, routine_rows(r));
  html_diagnoses(out, diagnoses);
  const auto notable = notable_call_rows(r);
  if (notable.size() > 1) {
    out << "<h2>Failing and unfinished calls</h2>\n";
    html_table(out, notable);
  }
  const std::string captures = captures_text(r);
  if (!captures.empty()) {
    out << "<h2>Captures and child processes</h2><ul>\n";
    std::istringstream capture_lines(captures);
    for (std::string line; std::getline(capture_lines, line);)
      out << "<li><code>" << escape_html(line) << "</code></li>\n";
    out << "</ul>\n";
  }
  html_page_end(out);
  return out.str();
}

}  // namespace blasscope::core
