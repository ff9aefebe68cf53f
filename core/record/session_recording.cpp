#include "record/session_recording.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "io/text_file.h"
#include "kernels/cpu_environment.h"
#include "record/capture_folder.h"
#include "record/child_call_spool.h"
#include "record/session_stream.h"
#include "record/session_writer.h"
#include "text/format.h"

namespace blasscope::record {
namespace {

// Where the sessions go: the program's is streamed as calls come, once its pid names it.
class SessionFiles {
 public:
  explicit SessionFiles(const SessionOptions& options) : m_options(options) {}

  std::string session_path(const Recording& r) const {
    if (!m_options.output.empty()) return m_options.output;
    const std::string name = "blasscope-record-" + r.host + "-" + std::to_string(r.pid) + ".json";
    return m_options.folder.empty() ? name : (std::filesystem::path(m_options.folder) / name).string();
  }
  std::string child_path(const Recording& r, std::uint32_t pid) const {
    // Beside the program's session, or where it is written into a descriptor or a device
    // (/dev/stdout), in the folder with the default names.
    std::string stem = std::filesystem::path(session_path(r)).replace_extension("").string();
    if (session_written_into(session_path(r))) {
      stem = (std::filesystem::path(m_options.folder.empty() ? "." : m_options.folder) / "blasscope-record").string();
    }
    return stem + "-" + r.host + "-" + std::to_string(pid) + ".json";
  }
  StreamedSession& session(const Recording& r) {
    if (!m_session) m_session = std::make_unique<StreamedSession>(session_path(r));
    return *m_session;
  }

 private:
  const SessionOptions& m_options;
  std::unique_ptr<StreamedSession> m_session;
};

// A device or a pipe named as the session (/dev/stdout, a FIFO, `>(gzip > s.gz)`) is written
// in place, once, at the end, as every other text file BLAScope writes: it cannot be renamed over.
bool written_in_place(const std::string& path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

// Whether `path` is a child process's session (a recording's, with a parent_pid): its start
// says it is a session, and its end, where the recording's fields are, names the parent.
bool is_child_session(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (!in || size < 64) return false;
  std::string head(40, '\0'), tail(static_cast<std::size_t>(std::min<std::streamoff>(size, 1 << 16)), '\0');
  in.seekg(0);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  in.seekg(size - static_cast<std::streamoff>(tail.size()));
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  if (!in || !head.starts_with("{\"format\":\"blasscope-session\"")) return false;
  const std::size_t at = tail.rfind("\"parent_pid\":");
  return at != std::string::npos && at + 13 < tail.size() && tail[at + 13] >= '1' && tail[at + 13] <= '9';
}

// Removes the child sessions an earlier recording to `session` on this host left beside it
// (STEM-HOST-PID.json naming a parent): they would stand beside the new session, pointing at
// captures it replaced. The host is this one's exactly: STEM-2-HOST-77.json is a child of
// STEM-2.json. Only files dated at or before `before` (this recording's start) go.
std::size_t remove_earlier_child_sessions(const std::string& session, const std::string& host,
                                          std::filesystem::file_time_type before) {
  namespace fs = std::filesystem;
  const fs::path stem = fs::path(session).replace_extension("");
  const std::string prefix = stem.filename().string() + "-" + host + "-";
  const fs::path folder = stem.parent_path().empty() ? fs::path(".") : stem.parent_path();
  std::size_t removed = 0;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(".json")) continue;
    const std::string_view pid = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - 5);
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    std::error_code own;
    if (!fs::is_regular_file(fs::symlink_status(it->path(), own)) || own ||
        fs::last_write_time(it->path(), own) > before || own || !is_child_session(it->path())) {
      continue;
    }
    if (fs::remove(it->path(), own) && !own) ++removed;
  }
  return removed;
}

// The folder the sessions go into: the named session's, else the one for default names.
std::string folder_of_sessions(const SessionOptions& options) {
  if (!options.output.empty() && !session_written_into(options.output)) {
    const std::filesystem::path parent = std::filesystem::path(options.output).parent_path();
    return parent.empty() ? "." : parent.string();
  }
  return options.folder.empty() ? "." : options.folder;
}

// The BLAS `process` called, and how its kernels suit this CPU, as the recording's.
void take_blas_of(const ProcessInfo& process, const core::CpuEnvironment& cpu, Recording& into) {
  std::error_code error;  // the library's own path, not the alternatives' link to it
  const std::filesystem::path real = std::filesystem::canonical(process.blas_library, error);
  into.blas_library = error ? process.blas_library : real.string();
  into.openblas_corename = process.openblas_corename;
  into.openblas_threads = process.openblas_threads;
  // OPENBLAS_NUM_THREADS=1 on a 2-core machine: half its peak is all a call can reach.
  const int cpus = static_cast<int>(cpu.logical_cpus);
  const double share = process.openblas_threads > 0 && process.openblas_threads < cpus
                           ? static_cast<double>(process.openblas_threads) / cpus
                           : 1.0;
  into.peak_gflops_fp32 = cpu.peak_gflops_fp32 * share;
  into.peak_gflops_fp64 = cpu.peak_gflops_fp64 * share;
  into.kernel_mismatch = process.openblas_corename.empty()
                             ? std::string()
                             : core::kernel_mismatch_of(process.openblas_corename, process.openblas_config,
                                                        process.openblas_coretype, cpu);
}

}  // namespace

SavedRecording record_to_session(RecordOptions options, const SessionOptions& session) {
  // Held until the session is written: a second recording to it at the same time is refused
  // before anything runs.
  CaptureFolderLock folder_lock;
  if (!options.capture_dir.empty()) {
    if (options.capture != CaptureMode::None) {
      std::error_code error;
      std::filesystem::create_directories(options.capture_dir, error);
    }
    if (!folder_lock.lock(options.capture_dir)) {
      throw std::runtime_error("another recording to this session is running now (it holds " + options.capture_dir +
                               "): nothing was run; record to another --output, or after it ends");
    }
  }
  SessionFiles files(session);
  const bool in_place = written_in_place(session.output);
  // Child processes' calls wait on disk for their own sessions, not in the recorder's memory.
  ChildCallSpool children_calls(folder_of_sessions(session));
  if (!in_place) {
    options.keep_child_calls = false;
    options.on_calls = [&files, &children_calls, chained = std::move(options.on_calls)](
                           std::span<const CallRecord> calls, const Recording& r) {
      files.session(r).append(calls, r.start_ns);
      children_calls.add(calls, r.pid);
      if (chained) chained(calls, r);
    };
  }
  // The machine is probed before the program starts: its clock, measured beside a busy program,
  // reads low (a third low beside four spinning threads), and a low clock is a low peak. Where
  // this boot's clock is known, it is not measured again: 0.3 ms more before the program.
  const core::CpuEnvironment cpu = core::probe_cpu_environment(core::ClockProbe::KnownIfAny);
  SavedRecording saved;
  const auto started = std::filesystem::file_time_type::clock::now();
  saved.recording = record_program(options);
  Recording& r = saved.recording;
  if (r.pid == 0) return saved;
  // The program ran: this session replaces an earlier one of its name, and so do its children's.
  if (!session.output.empty() && !in_place && !session_written_into(session.output)) {
    const std::size_t removed = remove_earlier_child_sessions(session.output, r.host, started);
    if (removed && options.notice) {
      options.notice("removed " + std::to_string(removed) + (removed == 1 ? " child session" : " child sessions") +
                     " of an earlier recording under this name beside " + session.output);
    }
  }
  r.peak_gflops_fp32 = cpu.peak_gflops_fp32;
  r.peak_gflops_fp64 = cpu.peak_gflops_fp64;
  // The program's BLAS, as it said (not this recorder's own OpenBLAS): the main process's, else
  // the first child's that called one.
  const auto main_process = std::find_if(r.processes.begin(), r.processes.end(), [&r](const ProcessInfo& p) {
    return p.pid == r.pid && !p.blas_library.empty();
  });
  const auto any_process = std::find_if(r.processes.begin(), r.processes.end(),
                                        [](const ProcessInfo& p) { return !p.blas_library.empty(); });
  if (main_process != r.processes.end()) {
    take_blas_of(*main_process, cpu, r);
  } else if (any_process != r.processes.end()) {
    take_blas_of(*any_process, cpu, r);
  }
  // One child at a time: only its calls are in memory while its session is written.
  for (const ProcessInfo& process : r.processes) {
    if (process.pid == r.pid) continue;
    const auto not_saved = [&process](const char* why) {
      return "the session of child " + std::to_string(process.pid) + " was not saved: " + why;
    };
    try {
      Recording child = child_recording(
          r, process, in_place ? calls_of_process(r, process.pid) : children_calls.calls_of(process.pid));
      if (const std::uint64_t lost = in_place ? 0 : children_calls.lost(process.pid)) {
        const bool exact = r.process_routines.count(process.pid) > 0;
        child.problem += (child.problem.empty() ? "" : "; ") + std::to_string(lost) +
                         " of its calls could be kept neither on disk nor in memory for this session (" +
                         (exact ? "its totals count them" : "left out of its totals, which are summed from its calls") +
                         ")";
      }
      if (!process.blas_library.empty()) take_blas_of(process, cpu, child);
      // A child that made no recorded call (a shell, a launcher's helpers) has nothing to show:
      // it stays listed among the processes, without a session file of its own. One whose calls
      // all came past the per-call cap has its totals to show.
      if (child.calls_total == 0 && child.calls.empty() && child.running.empty() && child.captures.empty()) continue;
      SessionWriter writer(files.child_path(r, child.pid));
      writer.append(child.calls, child.start_ns);
      writer.finish(child);
      // Absolute: `report` and the GUI open it from wherever they run (--output ../out/x.json
      // made "../out/x-HOST-PID.json", a path only from the recorder's folder). Named by the
      // whole command line, as the processes list has it (its arguments quoted where they were
      // read, else the line the process registered, or what it was before an exec).
      std::error_code error;
      const std::filesystem::path absolute = std::filesystem::absolute(writer.path(), error);
      r.children.push_back({child.pid, process.command, error ? writer.path() : absolute.lexically_normal().string()});
    } catch (const std::runtime_error& error) {
      saved.child_errors.push_back(not_saved(error.what()));
    } catch (const std::bad_alloc&) {
      try {
        saved.child_errors.push_back(not_saved("out of memory"));
      } catch (const std::bad_alloc&) {  // the program's own session comes first
      }
    }
  }
  children_calls.close();  // its disk space, before the program's session is finished
  try {
    if (in_place) {
      const std::string text = session_text(r);
      try {
        core::write_text_file(session.output, text);
      } catch (const std::runtime_error& error) {
        // The device or pipe took it not (/dev/full, a reader gone): the only copy is kept in
        // the working folder, as a child's session would be, and named.
        const std::string kept = files.child_path(r, r.pid);
        try {
          core::write_text_file(kept, text);
        } catch (const std::runtime_error& also) {
          throw std::runtime_error(std::string(error.what()) + "; nor could it be kept: " + also.what());
        }
        throw std::runtime_error(std::string(error.what()) + "; the session is kept in " + kept);
      }
      saved.session = session.output;
    } else {
      StreamedSession& writer = files.session(r);
      writer.finish(r);
      saved.session = writer.path();
    }
  } catch (const std::runtime_error& error) {  // InputError is one too
    saved.error = error.what();
  } catch (const std::bad_alloc&) {
    saved.error = "out of memory while it was written";
  }
  return saved;
}

}  // namespace blasscope::record
