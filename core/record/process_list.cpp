#include "record/process_list.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "text/format.h"

namespace blasscope::record {

namespace {
// The whole of /proc/PID/NAME, or "" where it cannot be read whole. Not an ifstream: a process
// that ends while it is read makes read() fail with ESRCH, which libstdc++'s filebuf throws as
// std::ios_base::failure (on the recorder's watcher thread: std::terminate).
std::string proc_file(std::uint32_t pid, const char* name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      if (got < 0) text.clear();  // gone while read: nothing half-read
      break;
    }
  }
  ::close(fd);
  return text;
}

// A process's arguments as its preload registered them, where the line was whole (empty where it
// was cut to fit, or said nothing).
std::vector<std::string> registered_arguments(const ProcessEntry& e) {
  const std::size_t length = strnlen(e.command, sizeof e.command);
  if (!e.command_whole || length == 0) return {};
  std::vector<std::string> arguments(1);
  for (std::size_t i = 0; i < length; ++i) {
    if (e.argument_ends[i / 8] & (1u << (i % 8))) {
      arguments.emplace_back();
    } else {
      arguments.back() += e.command[i];
    }
  }
  return arguments;
}
}  // namespace

std::vector<std::string> command_line_of(std::uint32_t pid) {
  const std::string text = proc_file(pid, "cmdline");
  std::vector<std::string> argv;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\0', at), text.size());
    argv.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return argv;
}

namespace {
// PIDFD_GET_INFO's argument as Linux 6.15 made it (linux/pidfd.h; Debian 12's headers predate
// it): exit_code is a wait status, filled once the process has been reaped.
struct PidfdInfo {
  std::uint64_t mask = 0, cgroupid = 0;
  std::uint32_t pid = 0, tgid = 0, ppid = 0, ruid = 0, rgid = 0, euid = 0, egid = 0, suid = 0, sgid = 0, fsuid = 0,
                fsgid = 0;
  std::int32_t exit_code = 0;
};
static_assert(sizeof(PidfdInfo) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr std::uint64_t kPidfdInfoExit = 1u << 3;
}  // namespace

std::optional<int> exit_status_of(int pidfd) {
  if (pidfd < 0) return std::nullopt;
  PidfdInfo info;
  info.mask = kPidfdInfoExit;
  if (::ioctl(pidfd, kPidfdGetInfo, &info) != 0 || !(info.mask & kPidfdInfoExit)) return std::nullopt;
  return info.exit_code;
}

namespace {
// /proc/PID/stat's start time of `pid`, or 0.
std::uint64_t start_ticks_of(std::uint32_t pid) {
  const std::string stat = proc_file(pid, "stat");
  return start_ticks_in(stat.data(), stat.size());
}
}  // namespace

bool process_alive(std::uint32_t pid, bool zombies_are_gone) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  if (!zombies_are_gone) return true;
  // /proc/PID/stat: "PID (COMM) STATE ...", COMM may hold spaces and parentheses.
  const std::string stat = proc_file(pid, "stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) {
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;  // reaped meanwhile, or /proc hidden
  }
  return stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

namespace {
// The futex words are in the shared file, which the program writes too: no _PRIVATE.
void set_and_wake(const std::atomic<std::uint32_t>& word, std::uint32_t value) {
  auto& w = const_cast<std::atomic<std::uint32_t>&>(word);
  w.store(value);
  ::syscall(SYS_futex, &w, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}
}  // namespace

ProcessHandles::ProcessHandles(const SharedHeader& header) : m_header(header) {
  try {
    m_thread = std::thread(&ProcessHandles::watch, this);
    set_and_wake(m_header.processes_watched, static_cast<std::uint32_t>(::getpid()));
  } catch (const std::system_error&) {
    // No thread to be had: how children ended is not known, as on kernels that do not say.
  }
}

ProcessHandles::~ProcessHandles() {
  set_and_wake(m_header.processes_watched, 0);  // nobody waits for a look that will not come
  m_stop.store(true);
  // The futex word is the program's too: the recorder's own wake-up is a spurious one to it.
  auto& word = const_cast<std::atomic<std::uint32_t>&>(m_header.processes_registered);
  word.fetch_add(1);
  ::syscall(SYS_futex, &word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  if (m_thread.joinable()) m_thread.join();
  for (const auto& [pid, handle] : m_handles) {
    if (handle.fd >= 0) ::close(handle.fd);
  }
}

namespace {
// The wait status of `pid` while it is a zombie that started at `started`, from its
// /proc/PID/stat (`exit_code`, the 52nd field, Linux 3.5 and later); nullopt otherwise. Only a
// whole process gone (one thread left: a main thread that called pthread_exit is a zombie while
// the others run) that did not exit 0 (0 is also what the kernel shows a reader it denies).
std::optional<int> zombie_wait_status(std::uint32_t pid, std::uint64_t started) {
  const std::string stat = proc_file(pid, "stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z') return std::nullopt;
  if (start_ticks_in(stat.data(), stat.size()) != started) return std::nullopt;
  // Fields 3 (the state) to 52, after the command's closing parenthesis.
  std::vector<std::string_view> fields;
  for (std::size_t at = close + 1; at < stat.size();) {
    while (at < stat.size() && (stat[at] == ' ' || stat[at] == '\n')) ++at;
    const std::size_t end = std::min(stat.find_first_of(" \n", at), stat.size());  // the last ends the line
    if (end > at) fields.emplace_back(stat.data() + at, end - at);
    at = end;
  }
  const auto number = [&fields](int field) -> std::optional<long> {
    if (static_cast<std::size_t>(field - 3) >= fields.size()) return std::nullopt;
    const std::string_view text = fields[static_cast<std::size_t>(field - 3)];
    long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
  };
  const auto threads = number(20), exit_code = number(52);
  if (threads != 1 || !exit_code || *exit_code <= 0 || *exit_code > 0xffff) return std::nullopt;
  return static_cast<int>(*exit_code);
}
}  // namespace

std::optional<int> ProcessHandles::wait_status(std::uint32_t pid) {
  const std::lock_guard lock(m_lock);
  const auto it = m_handles.find(pid);
  if (it == m_handles.end()) return std::nullopt;
  Handle& h = it->second;
  // A zombie's status is final: whoever reaps it later gets the same.
  if (!h.status && h.fd >= 0 &&
      ((h.status = exit_status_of(h.fd)) || (h.status = zombie_wait_status(pid, h.started)))) {
    ::close(h.fd);
    h.fd = -1;
  }
  return h.status;
}

void ProcessHandles::open_handle(std::uint32_t pid, std::uint64_t started) {
  const std::lock_guard lock(m_lock);
  if (m_handles.count(pid)) return;  // an exec'd image: its process's pidfd is the same
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
  if (fd < 0) return;
  // The process the entry is about only if it started when the entry says: not a pid reused
  // since, nor the same number in another pid namespace.
  if (started == 0 || start_ticks_of(pid) != started) {
    ::close(fd);
    return;
  }
  m_handles[pid] = Handle{fd, started, std::nullopt};
}

void ProcessHandles::watch() try {
  std::vector<bool> looked_at(kMaxProcesses, false);  // table entries done
  while (!m_stop.load()) {
    const std::uint32_t seen = m_header.processes_registered.load();
    const std::uint32_t count = std::min(m_header.process_count.load(), kMaxProcesses);
    for (std::uint32_t i = 0; i < count; ++i) {
      const ProcessEntry& e = m_header.processes[i];
      const std::uint32_t pid = e.pid.load();
      if (looked_at[i] || pid == 0) continue;  // done, or not complete yet
      looked_at[i] = true;
      open_handle(pid, e.start_ticks.load());
      set_and_wake(e.watched, 1);  // the process may go on
    }
    if (m_stop.load()) break;  // the destructor's wake-up may have come before `seen` was read
    // Bounded: an entry whose process died before completing it is looked at again later.
    const timespec bound{0, 100000000};
    ::syscall(SYS_futex, &m_header.processes_registered, FUTEX_WAIT, seen, &bound, nullptr, 0);
  }
} catch (const std::exception&) {
  // No memory left for another handle: the rest go without (best effort), never std::terminate,
  // and no process waits for a look.
  set_and_wake(m_header.processes_watched, 0);
}

namespace {
void apply_wait_status(int status, ProcessInfo& info) {
  if (WIFSIGNALED(status)) {
    info.end_signal = WTERMSIG(status);
    // Its preload saw _exit() (or exit()'s handlers done), then the signal came before the exit
    // itself (a Pool's SIGTERM to a worker already on its way out): it died by the signal, and the
    // status it asked for is no one's. The kernel's word is the process's end.
    if (info.end == ProcessEnd::Exited) info.end = ProcessEnd::None, info.exit_status = -1;
  } else if (WIFEXITED(status) && (info.end == ProcessEnd::None || info.end == ProcessEnd::Exiting)) {
    info.end = ProcessEnd::Exited;
    info.exit_status = WEXITSTATUS(status);
  }
}
}  // namespace

void collect_processes(const SharedHeader& h, std::uint64_t now_ns, std::vector<ProcessInfo>& processes,
                       bool zombies_are_gone, ProcessHandles* handles) {
  std::vector<ProcessInfo> before = std::move(processes);
  processes.clear();
  const std::uint32_t count = std::min(h.process_count.load(), kMaxProcesses);
  // A process that exec'd registers again under the same pid: its latest entry is the one
  // kept (in the place of its first), with blas_found from any of them.
  std::vector<std::uint32_t> first, latest;  // table index of each process's first and latest entry
  for (std::uint32_t i = 0; i < count; ++i) {
    const ProcessEntry& e = h.processes[i];
    const std::uint32_t pid = e.pid.load();
    if (pid == 0) continue;
    const auto same =
        std::find_if(processes.begin(), processes.end(), [&](const ProcessInfo& p) { return p.pid == pid; });
    if (same == processes.end()) {
      ProcessInfo& process = processes.emplace_back();
      process.pid = pid;
      process.parent_pid = e.parent_pid.load();
      process.blas_found = (e.blas_found.load() & 1) != 0;
      process.blas_loaded = e.blas_found.load() != 0;
      first.push_back(i);
      latest.push_back(i);
    } else {
      same->blas_found = same->blas_found || (e.blas_found.load() & 1) != 0;
      same->blas_loaded = same->blas_loaded || e.blas_found.load() != 0;
      latest[static_cast<std::size_t>(same - processes.begin())] = i;
    }
  }
  for (std::size_t k = 0; k < processes.size(); ++k) {
    ProcessInfo& info = processes[k];
    const ProcessEntry& e = h.processes[latest[k]];
    info.parent_pid = e.parent_pid.load();
    // Its BLAS as its latest image said it, else as the one before an exec did.
    for (const ProcessEntry* said : {&e, &h.processes[first[k]]}) {
      if (said->blas_said.load(std::memory_order_acquire) != 2) continue;
      const auto text = [](const auto& field) { return std::string(field, strnlen(field, sizeof field)); };
      info.blas_library = text(said->blas_library);
      info.openblas_corename = text(said->blas_corename);
      info.openblas_coretype = text(said->blas_coretype);
      info.openblas_config = text(said->blas_config);
      info.openblas_threads = said->blas_threads;
      break;
    }
    info.registered = std::string(e.command, strnlen(e.command, sizeof e.command));
    const auto known = std::find_if(before.begin(), before.end(), [&](const ProcessInfo& p) {
      return p.pid == info.pid && p.registered == info.registered;
    });
    if (known != before.end()) {
      info.argv = std::move(known->argv), info.command = std::move(known->command);
      info.first_seen_ns = known->first_seen_ns, info.last_seen_ns = known->last_seen_ns;
      info.stopped = known->stopped;
    } else {
      // Seen for the first time, or again after an exec: its whole command line, while it runs.
      info.argv = command_line_of(info.pid);
      if (info.argv.empty()) info.argv = registered_arguments(e);  // gone before it could be read
      info.command = info.registered;
      if (!info.argv.empty()) {
        info.command.clear();
        info.command = core::shell_command(info.argv);
      } else if (info.registered.size() + 1 >= sizeof e.command) {
        info.command += "…";  // the table's copy was cut, and the process is gone
      }
      // A forked child that exec'd: its calls may have been made under the command before.
      const ProcessEntry& f = h.processes[first[k]];
      const std::string before_exec(f.command, strnlen(f.command, sizeof f.command));
      if (first[k] != latest[k] && before_exec != info.registered && !before_exec.empty()) {
        // Quoted as the command after it is, where its arguments are known whole.
        const std::vector<std::string> before_args = registered_arguments(f);
        info.command = (before_args.empty() ? before_exec + (before_exec.size() + 1 >= sizeof f.command ? "…" : "")
                                            : core::shell_command(before_args)) +
                       ", then exec'd " + info.command;
      }
      // From when it attached (the recorder looks only now and then), else from now.
      const std::uint64_t attached = f.attached_ns.load();
      info.first_seen_ns = attached && attached <= now_ns ? attached : now_ns;
    }
    // Alive (while recording, a zombie not yet reaped counts as alive: a little longer, never
    // shorter), looked at before its end: one that ends between the two looks is alive with its
    // end unwritten, never gone without one (a signal's). A zombie's end is already written.
    info.alive = process_alive(info.pid, zombies_are_gone);
    if (info.alive) info.last_seen_ns = now_ns;
    const std::uint64_t ending = e.ending.load();
    // Gone after saying how it ends: it ended then, not at the recorder's last look.
    if (const std::uint64_t ended = e.ended_ns.load(); !info.alive && ended && end_of(ending) != ProcessEnd::None) {
      info.last_seen_ns = std::max(ended, info.first_seen_ns);
    }
    info.end = end_of(ending);
    info.exit_status = info.end == ProcessEnd::Exited || info.end == ProcessEnd::Exiting ? status_of(ending) : -1;
    // Gone: where the kernel says how (a pidfd held since it attached), which signal ended it,
    // or the status of an exit its preload did not see (an exec into a program not recorded).
    if (const auto status = !info.alive && handles ? handles->wait_status(info.pid) : std::nullopt)
      apply_wait_status(*status, info);
  }
}

}  // namespace blasscope::record
