#include "record/process_list.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "text/format.h"

namespace blasscope::record {

std::vector<std::string> command_line_of(std::uint32_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\0', at), text.size());
    argv.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return argv;
}

bool process_alive(std::uint32_t pid, bool zombies_are_gone) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  if (!zombies_are_gone) return true;
  // /proc/PID/stat: "PID (COMM) STATE ...", COMM may hold spaces and parentheses.
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) {
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;  // reaped meanwhile, or /proc hidden
  }
  return stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

void collect_processes(const SharedHeader& h, std::uint64_t now_ns, std::vector<ProcessInfo>& processes,
                       bool zombies_are_gone) {
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
        info.command =
            before_exec + (before_exec.size() + 1 >= sizeof f.command ? "…" : "") + ", then exec'd " + info.command;
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
  }
}

}  // namespace blasscope::record
