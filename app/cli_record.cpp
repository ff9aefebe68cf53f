#include "cli_record.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli_usage.h"
#include "diagnose/recording_diagnosis.h"
#include "record/recording.h"
#include "record/session_recording.h"
#include "record/session_writer.h"
#include "report/recording_report.h"
#include "text/format.h"

namespace blasscope::app {
namespace {

// A line said while the program runs, in one write: the program writes to the same stderr
// (Python's traceback after a Ctrl-C), and the pieces of an unbuffered std::cerr << ... went
// between its lines.
void write_notice(const std::string& line) {
  const std::string text = "blasscope: " + line + "\n";
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // stderr closed: nothing to say it on
    done += static_cast<std::size_t>(n);
  }
}

constexpr const char* kRecordUsage =
    "usage: blasscope-cli record [--output FILE] [--timeout SECONDS] [--capture failing|all|none]\n"
    "                            [--capture-limit MIB] [--check-values] [--max-calls N] [--nested-calls N|all]\n"
    "                            [--quiet] -- COMMAND [ARGS...]\n";

// OpenBLAS starts its thread pool when a process loads it, and the new threads spin (sched_yield)
// for about 0.1 s before they sleep: exactly while the recorded program starts, taking a core from
// it. blasscope-cli does not load it; blasscope-cli-tools (`blasscope-cli-tools record`, the GUI's
// code path) does, and makes no BLAS call while recording, so the pool is stopped at once
// (OpenBLAS restarts it on a later threaded call). Looked up at run time: another BLAS may be linked.
void stop_blas_thread_pool() {
  using Shutdown = int (*)();
  if (const auto shutdown = reinterpret_cast<Shutdown>(::dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"))) shutdown();
}

// SIGTERM or SIGHUP sent to the recorder (timeout(1), a closed terminal, a job scheduler) stops
// the program the way --timeout does and the session is still written: the recorder must not
// die and leave the program running unrecorded, its session unwritten.
std::atomic<int> g_stop_signal{0};

void forward_termination() {
  struct sigaction stop {};
  stop.sa_handler = [](int sig) { g_stop_signal.store(sig); };
  sigemptyset(&stop.sa_mask);
  stop.sa_flags = 0;  // no SA_RESTART: the recorder's wait ends at once
  ::sigaction(SIGTERM, &stop, nullptr);
  // Under nohup SIGHUP stays ignored, for the recorder and the program alike.
  struct sigaction hangup {};
  ::sigaction(SIGHUP, nullptr, &hangup);
  if (hangup.sa_handler != SIG_IGN) ::sigaction(SIGHUP, &stop, nullptr);
}

// A plain decimal number: strtod alone also takes "", " 5", "+3", "0x10" and "inf".
bool parse_number(const std::string& text, double& out) {
  if (text.empty() || !std::all_of(text.begin(), text.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
    return false;
  }
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end && *end == '\0' && out >= 0 && out < 1e9;
}

// A count: digits only.
bool parse_count(const std::string& text, double& out) {
  return text.find('.') == std::string::npos && parse_number(text, out);
}

// Why a session could not be written as `output` (its folder, "" for the working directory):
// found before the program runs, not after hours of it. "" when it can be.
std::string why_unwritable(const std::string& output) {
  if (const int fd = record::inherited_descriptor(output); fd >= 0) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
      return output + " (descriptor " + std::to_string(fd) + ") is not open for writing";
    return "";
  }
  struct stat st;
  if (!output.empty() && ::stat(output.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return output + " is a folder";
    if (!S_ISREG(st.st_mode)) return "";  // a device or a pipe: written into at the end
  }
  std::filesystem::path folder = output.empty() ? "." : std::filesystem::path(output).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return "cannot create the folder " + folder.string() + ": " + error.message();
  // The session is written beside its name, then renamed over it: the folder must take files.
  std::string probe = (folder / ".blasscope-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return "cannot write in " + folder.string() + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

}  // namespace

int run_record(const std::vector<std::string>& args) {
  stop_blas_thread_pool();
  record::RecordOptions options;
  std::string output;
  bool quiet = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--") {
      ++i;
      break;
    } else if (a == "--output" && has_value) {
      output = args[++i];
    } else if (a == "--timeout" && has_value) {
      if (!parse_number(args[++i], options.timeout_seconds)) {
        std::cerr
            << "error: record: --timeout wants a number of seconds, not negative and below 1e9 (0: no limit), not '"
            << args[i] << "'\n"
            << kRecordUsage;
        return kExitUsage;
      }
    } else if (a == "--max-calls" && has_value) {
      double n = 0;
      if (!parse_count(args[++i], n)) {
        std::cerr << "error: record: --max-calls wants a count, not '" << args[i] << "'\n" << kRecordUsage;
        return kExitUsage;
      }
      options.max_calls = static_cast<std::uint64_t>(n);
    } else if (a == "--nested-calls" && has_value) {
      const std::string value = args[++i];
      double n = 0;
      if (value == "all") {
        options.nested_limit = record::kAllNested;
      } else if (parse_count(value, n)) {
        options.nested_limit = static_cast<std::uint32_t>(n);
      } else {
        std::cerr << "error: record: --nested-calls wants a count or 'all', not '" << value << "'\n" << kRecordUsage;
        return kExitUsage;
      }
    } else if (a == "--capture" && has_value) {
      const std::string mode = args[++i];
      if (mode != "failing" && mode != "all" && mode != "none") {
        std::cerr << "error: record: --capture is failing, all or none, not '" << mode << "'\n" << kRecordUsage;
        return kExitUsage;
      }
      options.capture = mode == "all"    ? record::CaptureMode::All
                        : mode == "none" ? record::CaptureMode::None
                                         : record::CaptureMode::Failing;
    } else if (a == "--capture-limit" && has_value) {
      double mib = 0;
      if (!parse_number(args[++i], mib)) {
        std::cerr << "error: record: --capture-limit wants MiB, not '" << args[i] << "'\n" << kRecordUsage;
        return kExitUsage;
      }
      options.capture_limit_bytes = static_cast<std::uint64_t>(mib * 1048576.0);
    } else if (a == "--check-values") {
      options.check_values = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << command_usage("record");
      return kExitOk;
    } else if (!has_value && (a == "--output" || a == "--timeout" || a == "--max-calls" || a == "--nested-calls" ||
                              a == "--capture" || a == "--capture-limit")) {
      std::cerr << "error: record: " << a << " needs a value\n" << kRecordUsage;
      return kExitUsage;
    } else if (!a.starts_with("-")) {
      break;  // the command, without "--"
    } else {
      std::cerr << "error: record: unknown option '" << a << "'\n" << kRecordUsage;
      return kExitUsage;
    }
  }
  options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (options.command.empty()) {
    std::cerr << "error: record: no command to run\n" << kRecordUsage;
    return kExitUsage;
  }
  options.preload_library = record::default_preload_library();
  if (!std::filesystem::exists(options.preload_library)) {
    std::cerr << "error: record: the recording library is missing (" << options.preload_library
              << "); rebuild BLAScope or set BLASSCOPE_PRELOAD\n";
    return kExitUsage;
  }
  if (const std::string why = why_unwritable(output); !why.empty()) {
    std::cerr << "error: record: the session could not be saved (" << why << "); nothing was run\n";
    return kExitUsage;
  }
  // The session's name is known once the program's pid is; captures go beside it, named from
  // --output, or from the recorder's own pid.
  // A session written into a descriptor or a device (/dev/stdout) names nothing beside it.
  const bool named = !output.empty() && !record::session_written_into(output);
  const std::string stem = !named ? "blasscope-record-captures-" + std::to_string(::getpid())
                                  : std::filesystem::path(output).replace_extension("").string();
  options.capture_dir = stem + ".captures";
  forward_termination();
  options.stop_signal = &g_stop_signal;
  if (!quiet) options.notice = write_notice;
  record::SessionOptions session;
  session.output = output;
  record::SavedRecording saved;
  try {
    saved = record::record_to_session(options, session);
  } catch (const std::exception& error) {
    std::cerr << "error: record: " << error.what() << '\n';
    return kExitUsage;
  }
  const record::Recording& recording = saved.recording;
  if (recording.pid == 0) {
    std::cerr << "blasscope-cli record: " << recording.problem << '\n';
    return recording.exit_status;
  }
  for (const std::string& error : saved.child_errors) std::cerr << "blasscope-cli record: " << error << '\n';
  if (!saved.error.empty()) std::cerr << "blasscope-cli record: the session was not saved: " << saved.error << '\n';
  const auto diagnoses = core::diagnose_recording(recording);
  if (!quiet) {
    std::cerr << core::printable_utf8(core::recording_summary(recording, diagnoses));
    if (!saved.session.empty()) {
      std::cerr << "session: " << saved.session << "  (blasscope-cli report " << core::shell_quoted(saved.session)
                << ")\n";
    }
  }
  return recording.exit_status;
}

}  // namespace blasscope::app
