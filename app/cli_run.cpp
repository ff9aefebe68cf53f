#include "cli_run.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli_usage.h"
#include "diagnose/run_diagnosis.h"
#include "document/document.h"
#include "exec/runner.h"
#include "exec/worker_client.h"
#include "io/input_error.h"
#include "io/text_file.h"
#include "report/inspect_json.h"
#include "report/inspect_text.h"
#include "report/run_text.h"
#include "results/session_file.h"
#include "results/trace_writer.h"
#include "text/format.h"
#include "workload/scenarios.h"
#include "workload/tensor_factory.h"

namespace blasscope::app {
namespace {

using nlohmann::json;
constexpr auto kJsonErrors = json::error_handler_t::replace;

struct RunArgs {
  std::string workload;
  bool json = false;
  bool in_process = false;
  std::string trace, save_outputs, session;
  std::optional<core::DeviceChoice> device;
  std::optional<double> timeout;  // --timeout: every op's time limit
};

// The worker sits next to this executable unless BLASSCOPE_WORKER names another.
std::string worker_path() {
  if (const char* overridden = std::getenv("BLASSCOPE_WORKER")) return overridden;
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return (self.parent_path() / "blasscope-worker").string();
}

std::optional<RunArgs> parse_args(const std::vector<std::string>& args) {
  RunArgs r;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string& target) {
      if (i + 1 >= args.size()) {
        std::cerr << "error: run: " << arg << " needs a value\n";
        return false;
      }
      target = args[++i];
      return true;
    };
    if (arg == "--json") {
      r.json = true;
    } else if (arg == "--in-process") {
      r.in_process = true;
    } else if (arg == "--trace" || arg == "--save-outputs" || arg == "--session") {
      if (!value(arg == "--trace" ? r.trace : arg == "--session" ? r.session : r.save_outputs)) return std::nullopt;
    } else if (arg == "--device") {
      std::string d;
      if (!value(d)) return std::nullopt;
      if (d != "cpu" && d != "gpu" && d != "both") {
        std::cerr << "error: run: --device takes cpu, gpu or both, not '" << d << "'\n";
        return std::nullopt;
      }
      r.device = d == "cpu" ? core::DeviceChoice::Cpu : d == "gpu" ? core::DeviceChoice::Gpu : core::DeviceChoice::Both;
    } else if (arg == "--timeout") {
      std::string seconds;
      if (!value(seconds)) return std::nullopt;
      char* end = nullptr;
      const double parsed = std::strtod(seconds.c_str(), &end);
      if (end == seconds.c_str() || *end != '\0' || !(parsed > 0) || parsed > 86400) {
        std::cerr << "error: run: --timeout takes a number of seconds above 0 and at most 86400, not '" << seconds
                  << "'\n";
        return std::nullopt;
      }
      r.timeout = parsed;
    } else if (arg.starts_with("-")) {
      std::cerr << "error: run: unknown option '" << arg << "'\n";
      return std::nullopt;
    } else if (!r.workload.empty()) {
      std::cerr << "error: run: takes one WORKLOAD, got '" << r.workload << "' and '" << arg << "'\n";
      return std::nullopt;
    } else {
      r.workload = arg;
    }
  }
  if (r.workload.empty()) {
    std::cerr << "error: run: missing WORKLOAD\nusage: blasscope-cli run WORKLOAD [--json] [--trace FILE] "
                 "[--save-outputs DIR] [--device cpu|gpu|both] [--session FILE] [--timeout SECONDS] [--in-process]\n";
    return std::nullopt;
  }
  return r;
}

int reject(const RunArgs& args, const core::InputError& error) {
  std::cerr << "error: " << args.workload << ": " << core::printable_utf8(error.what()) << '\n';
  if (args.json) std::cout << core::error_json(error).dump(2, ' ', false, kJsonErrors) << '\n';
  return kExitRejected;
}

// Everything that can be checked before running: the file tensors' headers and keys.
void check_inputs(const core::Workload& workload) {
  for (const auto& spec : workload.tensors) {
    if (std::holds_alternative<core::FileTensorSource>(spec.source)) core::requirement_of(spec);
  }
}

core::RunResult execute(const RunArgs& args, const core::Workload& workload) {
  core::RunCollector collector;
  if (args.in_process) {
    core::RunOptions options{args.device, args.save_outputs};
    core::run_workload(workload, options, collector);
    return collector.finish();
  }
  std::vector<std::string> worker_args{workload.source_path};
  if (args.device) {
    worker_args.insert(worker_args.end(), {"--device", *args.device == core::DeviceChoice::Cpu   ? "cpu"
                                                       : *args.device == core::DeviceChoice::Gpu ? "gpu"
                                                                                                 : "both"});
  }
  if (!args.save_outputs.empty()) worker_args.insert(worker_args.end(), {"--save-outputs", args.save_outputs});
  core::WorkerProcess::Options options;
  options.time_limits.run_seconds = args.timeout ? args.timeout : workload.timeout;
  for (const auto& op : workload.ops) {
    if (op.timeout && !args.timeout) options.time_limits.op_seconds[op.index] = *op.timeout;
  }
  // On a terminal, the op that is taking long is named while it runs.
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  bool line_shown = false;
  if (terminal) {
    options.on_running = [&line_shown](const core::RunningOp& running) {
      if (running.seconds < 2) return;
      std::cerr << "\r\033[Krunning op " << running.op << " (" << running.kernel << ") for "
                << core::format_number(std::floor(running.seconds)) << " s, time limit "
                << core::format_number(running.limit) << " s" << std::flush;
      line_shown = true;
    };
  }
  std::string error;
  const bool started = core::run_in_worker(worker_path(), worker_args, collector, error, options);
  if (line_shown) std::cerr << "\r\033[K" << std::flush;
  if (!started) {
    throw core::InputError(core::InputError::Kind::Unreadable, error);
  }
  return collector.finish();
}

void write_export(const std::string& path, const std::string& text, const char* what) {
  try {
    core::write_text_file(path, text);
  } catch (const core::InputError& error) {
    std::cerr << "warning: the " << what << " was not saved: " << error.what() << '\n';
  }
}

}  // namespace

int run_run(const std::vector<std::string>& raw_args) {
  const auto parsed = parse_args(raw_args);
  if (!parsed) return kExitUsage;
  const RunArgs& args = *parsed;
  core::Workload workload;
  try {
    const core::Document document = core::open_document(args.workload);
    if (document.kind == core::DocumentKind::TensorFile) {
      throw core::InputError(core::InputError::Kind::Malformed,
                             "a tensor file, not a workload: `blasscope-cli inspect " +
                                 core::shell_quoted(args.workload) + "` reads it, and the GUI opens it");
    }
    if (document.kind == core::DocumentKind::Session) {
      throw core::InputError(core::InputError::Kind::Malformed,
                             "a saved session, not a workload: `blasscope-cli report " +
                                 core::shell_quoted(args.workload) + "` summarises it, and the GUI opens it");
    }
    if (document.kind == core::DocumentKind::Recording || !document.workload) {
      throw core::InputError(core::InputError::Kind::Malformed,
                             "a recording, not a workload: `blasscope-cli report " + core::shell_quoted(args.workload) +
                                 "` summarises it, the GUI opens it, and each failing call it captured has a "
                                 "workload of its own (its `captures`, OUTPUT.captures/call-ID/workload.json)");
    }
    workload = *document.workload;
    check_inputs(workload);
    if (!args.save_outputs.empty()) {
      std::error_code error;
      std::filesystem::create_directories(args.save_outputs, error);
      if (error) {
        throw core::InputError(core::InputError::Kind::Unreadable,
                               "--save-outputs: cannot create " + args.save_outputs + ": " + error.message());
      }
    }
  } catch (const core::InputError& error) {
    return reject(args, error);
  }
  core::RunResult result;
  try {
    result = execute(args, workload);
  } catch (const core::InputError& error) {
    return reject(args, error);
  }
  const auto diagnoses = core::diagnose_run(result);
  if (result.skipped_events) {
    // A worker of another BLAScope build can send what this one cannot read: left out, said.
    std::cerr << "warning: " << result.skipped_events << " event(s) from the worker (" << worker_path()
              << ") could not be read and are left out of these results; is it from another BLAScope build?\n";
  }
  if (args.json) {
    json report = core::to_json(result);
    report["diagnoses"] = json::array();
    for (const auto& d : diagnoses) report["diagnoses"].push_back(core::to_json(d));
    std::cout << report.dump(2, ' ', false, kJsonErrors) << '\n';
  } else {
    std::cout << core::printable_utf8(core::to_text(result, diagnoses));
  }
  if (!args.trace.empty()) write_export(args.trace, core::chrome_trace_text(result), "trace");
  if (!args.session.empty()) {
    try {
      core::write_session(args.session, workload.source_path, result);
    } catch (const core::InputError& error) {
      std::cerr << "warning: " << error.what() << '\n';
    }
  }
  return core::has_error(diagnoses) ? kExitFindings : kExitOk;
}

}  // namespace blasscope::app
