#include "record/recording_json.h"

#include <string.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "record/call_builder.h"
#include "record/routine_names.h"
#include "record/session_writer.h"

namespace blasscope::record {

using nlohmann::json;
using namespace call_reading;

namespace {

constexpr int kRecordingFormatVersion = 1;

template <typename T>
T field(const json& j, const char* key, T fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const json& v = j[key];
    if (v.is_number_float()) return checked_integer<T>(v.get<double>(), key);
    if (v.is_number_unsigned()) return checked_integer<T>(static_cast<long double>(v.get<std::uint64_t>()), key);
    if (v.is_number_integer()) return checked_integer<T>(static_cast<long double>(v.get<std::int64_t>()), key);
  }
  try {
    return j[key].get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument(std::string("field \"") + key + "\" has the wrong type");
  }
}

// A process's "ended" and "exit_status" (end_name's words). A session without them (older, or
// unfinished), or with a word this build does not know, leaves the end unknown.
void read_end(const json& p, ProcessInfo& process) {
  const std::string ended = field<std::string>(p, "ended", "");
  static const std::pair<const char*, ProcessEnd> kEnds[] = {
      {"exit", ProcessEnd::Exited}, {"returned", ProcessEnd::Returned}, {"exec", ProcessEnd::Execed},
      {"signal", ProcessEnd::None}, {"stopped", ProcessEnd::None},      {"running", ProcessEnd::None}};
  process.end_known = false;
  for (const auto& [word, end] : kEnds) {
    if (ended == word) process.end = end, process.end_known = true;
  }
  process.alive = ended == "running";
  process.stopped = ended == "stopped";
  if (process.end == ProcessEnd::Exited) process.exit_status = field<int>(p, "exit_status", -1);
  // "SIGTERM": the signal that ended it, where the kernel said (a name this system knows).
  const std::string signal = field<std::string>(p, "signal", "");
  for (int sig = 1; sig < 65 && signal.size() > 3 && !process.alive; ++sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    if (abbrev && signal.compare(3, std::string::npos, abbrev) == 0 && signal.starts_with("SIG")) {
      process.end_signal = sig;
      break;
    }
  }
}

}  // namespace

json running_call_to_json(const Recording& r, const CallRecord& c) {
  json call = call_to_json(c, 0, r.start_ns);
  call.erase("seconds");
  call.erase("info");
  call["ran_seconds"] = running_seconds(r, c);
  return call;
}

json call_to_json(const CallRecord& c, std::uint64_t seq, std::uint64_t start_ns) {
  // One writer of the format: the tree is parsed from what the session writer writes.
  char text[kMaxCallText];
  return json::parse(text, write_call_text(text, c, seq, start_ns));
}

json to_json(const Recording& r) {
  return to_json(r, true);
}

json routines_to_json(std::span<const RoutineTotal> totals) {
  json routines = json::array();
  for (const auto& t : totals) {
    routines.push_back({{"routine", routine_name(t.routine, t.precision)},
                        {"dtype", total_dtype(t)},
                        {"calls", t.calls},
                        {"seconds", t.seconds},
                        {"self_seconds", t.self_seconds},
                        {"failures", t.failures},
                        {"gflop", t.gflop}});
    if (t.unfinished) routines.back()["unfinished"] = t.unfinished;
    if (t.unfinished_seconds > 0) routines.back()["unfinished_seconds"] = t.unfinished_seconds;
    if (t.queries) routines.back()["workspace_queries"] = t.queries;
    if (t.query_seconds > 0) routines.back()["workspace_query_seconds"] = t.query_seconds;
    if (t.longest_seconds > 0) routines.back()["longest_seconds"] = t.longest_seconds;
  }
  return routines;
}

json to_json(const Recording& r, bool with_calls) {
  json processes = json::array();
  for (const auto& p : r.processes) {
    processes.push_back(
        {{"pid", p.pid}, {"parent_pid", p.parent_pid}, {"command", p.command}, {"blas_found", p.blas_found}});
    // Loaded but none of the routines BLAScope records called (NumPy's dot of two vectors is DDOT).
    if (p.blas_loaded && !p.blas_found) processes.back()["blas_loaded"] = true;
    if (const std::string ended = end_name(p); !ended.empty()) processes.back()["ended"] = ended;
    if (p.end_known && p.end == ProcessEnd::Exited) processes.back()["exit_status"] = p.exit_status;
    if (p.end_known && !p.alive && p.end_signal) {
      const char* abbrev = ::sigabbrev_np(p.end_signal);
      if (abbrev) processes.back()["signal"] = std::string("SIG") + abbrev;
    }
    if (!p.blas_library.empty()) processes.back()["blas_library"] = p.blas_library;
    if (!p.openblas_corename.empty()) processes.back()["openblas_corename"] = p.openblas_corename;
    // What the kernel mismatch was judged from, kept with the process that said it.
    if (!p.openblas_config.empty()) processes.back()["openblas_config"] = p.openblas_config;
    if (!p.openblas_coretype.empty()) processes.back()["openblas_coretype"] = p.openblas_coretype;
    if (p.openblas_threads > 0) processes.back()["openblas_threads"] = p.openblas_threads;
  }
  const json routines = routines_to_json(r.routines);
  json calls = json::array();
  if (with_calls) {
    for (std::size_t i = 0; i < r.calls.size(); ++i) calls.push_back(call_to_json(r.calls[i], i, r.start_ns));
  }
  json running = json::array();
  for (const auto& c : r.running) running.push_back(running_call_to_json(r, c));
  json children = json::array();
  for (const auto& c : r.children) {
    children.push_back({{"pid", c.pid}, {"command", c.command}, {"session", c.session}});
  }
  json captures = json::array();
  for (const auto& c : r.captures) {
    captures.push_back({{"call", c.call}, {"routine", c.routine}, {"workload", c.workload}});
  }
  return {{"format", "blasscope-session"},
          {"version", kRecordingFormatVersion},
          {"kind", "recording"},
          {"command", r.command},
          {"host", r.host},
          {"pid", r.pid},
          {"exit_status", r.exit_status >= 0 ? json(r.exit_status) : json()},  // null: not known (a child)
          {"signal", r.signal.empty() ? json() : json(r.signal)},
          {"timed_out", r.timed_out},
          {"stopped", r.stopped},
          {"timeout_seconds", r.timeout_seconds},
          {"wall_seconds", r.wall_seconds},
          {"check_values", r.check_values},
          {"max_calls", r.max_calls},
          {"calls_total", r.calls_total},
          {"calls_not_kept", r.calls_not_kept},
          {"nested_limit", r.nested_limit == kAllNested ? json() : json(r.nested_limit)},
          {"calls_unlisted", r.calls_unlisted},
          {"problem", r.problem.empty() ? json() : json(r.problem)},
          {"processes", processes},
          {"captures", captures},
          {"children", children},
          {"machine",
           {{"blas_library", r.blas_library.empty() ? json() : json(r.blas_library)},
            {"openblas_corename", r.openblas_corename},
            {"openblas_threads", r.openblas_threads > 0 ? json(r.openblas_threads) : json()},
            {"kernel_mismatch", r.kernel_mismatch},
            {"peak_gflops_fp32", r.peak_gflops_fp32},
            {"peak_gflops_fp64", r.peak_gflops_fp64}}},
          {"parent_pid", r.parent_pid ? json(r.parent_pid) : json()},
          {"captures_skipped", r.captures_skipped},
          {"capture", r.capture_mode.empty() ? json() : json(r.capture_mode)},
          {"routines", routines},
          {"calls", calls},
          {"running", running}};
}

namespace {

// A call already parsed into a JSON tree (the "running" calls), read by the same builder.
void feed(CallBuilder& builder, const json& object) {
  for (const auto& [key, value] : object.items()) {
    builder.key(key);
    if (value.is_object()) {
      builder.begin_nested();
      for (const auto& [inner_key, inner] : value.items()) {
        builder.key(inner_key);
        if (inner.is_object() || inner.is_array()) throw std::invalid_argument("a call nests too deep");
        if (inner.is_number()) builder.number(inner.get<double>());
        if (inner.is_string()) builder.text(inner.get<std::string>());
      }
      builder.end_nested();
    } else if (value.is_array()) {
      throw std::invalid_argument("a call holds an array");
    } else if (value.is_number_unsigned()) {
      builder.number(value.get<std::uint64_t>());
    } else if (value.is_number_integer()) {
      builder.number(value.get<std::int64_t>());
    } else if (value.is_number()) {
      builder.number(value.get<double>());
    } else if (value.is_string()) {
      builder.text(value.get<std::string>());
    } else if (value.is_boolean()) {
      builder.boolean(value.get<bool>());
    } else {
      builder.check_value();
    }
  }
}

CallRecord call_from_json(const json& j, std::uint64_t start_ns) {
  if (!j.is_object()) throw std::invalid_argument("a call must be an object");
  CallBuilder builder;
  builder.begin();
  feed(builder, j);
  return builder.finish(start_ns);
}

}  // namespace

bool is_recording_session(const json& session) {
  return session.is_object() && session.contains("kind") && session["kind"] == "recording";
}

Recording recording_from_json(const json& s) {
  if (!is_recording_session(s)) throw std::invalid_argument("not a recording (no \"kind\": \"recording\")");
  const int version = field<int>(s, "version", 0);
  if (version < 1 || version > kRecordingFormatVersion) {
    throw std::invalid_argument("recording format version " + std::to_string(version) +
                                " is not one this BLAScope reads (1 to " + std::to_string(kRecordingFormatVersion) +
                                ")");
  }
  Recording r;
  r.command = field<std::vector<std::string>>(s, "command", {});
  r.host = field<std::string>(s, "host", "");
  r.pid = field<std::uint32_t>(s, "pid", 0);
  r.exit_status = field<int>(s, "exit_status", s.contains("exit_status") ? -1 : 0);  // null: not known
  r.signal = field<std::string>(s, "signal", "");
  r.timed_out = field<bool>(s, "timed_out", false);
  r.stopped = field<bool>(s, "stopped", false);
  r.timeout_seconds = field<double>(s, "timeout_seconds", 0);
  r.wall_seconds = field<double>(s, "wall_seconds", 0);
  r.check_values = field<bool>(s, "check_values", false);
  r.max_calls = field<std::uint64_t>(s, "max_calls", 0);
  r.calls_total = field<std::uint64_t>(s, "calls_total", 0);
  r.calls_not_kept = field<std::uint64_t>(s, "calls_not_kept", 0);
  r.nested_limit = field<std::uint32_t>(s, "nested_limit", kAllNested);
  r.calls_unlisted = field<std::uint64_t>(s, "calls_unlisted", 0);
  r.problem = field<std::string>(s, "problem", "");
  for (const json& p : field<json>(s, "processes", json::array())) {
    if (!p.is_object()) throw std::invalid_argument("a process must be an object");
    ProcessInfo& process = r.processes.emplace_back();
    process.pid = field<std::uint32_t>(p, "pid", 0);
    process.parent_pid = field<std::uint32_t>(p, "parent_pid", 0);
    process.command = field<std::string>(p, "command", "");
    process.blas_found = field<bool>(p, "blas_found", false);
    process.blas_loaded = process.blas_found || field<bool>(p, "blas_loaded", false);
    process.blas_library = field<std::string>(p, "blas_library", "");
    process.openblas_corename = field<std::string>(p, "openblas_corename", "");
    process.openblas_config = field<std::string>(p, "openblas_config", "");
    process.openblas_coretype = field<std::string>(p, "openblas_coretype", "");
    process.openblas_threads = std::max(0, field<int>(p, "openblas_threads", 0));
    read_end(p, process);
  }
  for (const json& t : field<json>(s, "routines", json::array())) {
    if (!t.is_object()) throw std::invalid_argument("a routine total must be an object");
    const auto routine = parse_routine_name(field<std::string>(t, "routine", ""));
    if (!routine) throw std::invalid_argument("unknown routine \"" + field<std::string>(t, "routine", "") + "\"");
    r.routines.push_back({routine->first, routine->second, field<std::uint64_t>(t, "calls", 0),
                          field<std::uint64_t>(t, "failures", 0), field<double>(t, "seconds", 0),
                          field<double>(t, "self_seconds", 0), field<double>(t, "gflop", 0)});
    r.routines.back().queries = field<std::uint64_t>(t, "workspace_queries", 0);
    r.routines.back().query_seconds = field<double>(t, "workspace_query_seconds", 0);
    r.routines.back().longest_seconds = field<double>(t, "longest_seconds", 0);
    if (has_data_type_argument(routine->first)) r.routines.back().dtype = field<std::string>(t, "dtype", "");
  }
  for (const json& c : field<json>(s, "calls", json::array())) r.calls.push_back(call_from_json(c, r.start_ns));
  for (const json& c : field<json>(s, "captures", json::array())) {
    if (!c.is_object()) throw std::invalid_argument("a capture must be an object");
    r.captures.push_back({field<std::uint64_t>(c, "call", 0), field<std::string>(c, "routine", ""),
                          field<std::string>(c, "workload", "")});
  }
  r.captures_skipped = field<std::uint64_t>(s, "captures_skipped", 0);
  r.capture_mode = field<std::string>(s, "capture", "");
  if (r.capture_mode != "failing" && r.capture_mode != "all" && r.capture_mode != "none") r.capture_mode.clear();
  r.parent_pid = field<std::uint32_t>(s, "parent_pid", 0);
  if (s.contains("machine")) {
    const json& m = s["machine"];
    if (!m.is_object()) throw std::invalid_argument("field \"machine\" must be an object");
    if (m.contains("blas_library") && !m["blas_library"].is_null())
      r.blas_library = field<std::string>(m, "blas_library", "");
    r.openblas_corename = field<std::string>(m, "openblas_corename", "");
    r.openblas_threads = std::max(0, field<int>(m, "openblas_threads", 0));
    r.kernel_mismatch = field<std::string>(m, "kernel_mismatch", "");
    r.peak_gflops_fp32 = field<double>(m, "peak_gflops_fp32", 0);
    r.peak_gflops_fp64 = field<double>(m, "peak_gflops_fp64", 0);
  }
  for (const json& c : field<json>(s, "children", json::array())) {
    if (!c.is_object()) throw std::invalid_argument("a child session must be an object");
    r.children.push_back({field<std::uint32_t>(c, "pid", 0), field<std::string>(c, "command", ""),
                          field<std::string>(c, "session", "")});
  }
  for (const json& c : field<json>(s, "running", json::array())) {
    r.running.push_back(call_from_json(c, r.start_ns));
    // How long it had run, as the recorder measured it (its "seconds" are left out: it never returned).
    const double ran = field<double>(c, "ran_seconds", 0.0);
    if (std::isfinite(ran) && ran > 0 && ran < 1e9)
      r.running.back().duration_ns = static_cast<std::uint64_t>(std::llround(ran * 1e9));
  }
  return r;
}

}  // namespace blasscope::record
