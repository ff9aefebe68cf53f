#pragma once

// The processes that attached to a recording, as the recorder sees them while they run.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "record/call_record.h"
#include "record/recording.h"

namespace blasscope::record {

// A pidfd on every process that attaches, opened by a thread as soon as its entry is complete
// (best effort: a process gone before then has none). The recorder looks at the table only now
// and then, and a short-lived child may be gone and reaped by then; held from the start, its
// pidfd says how it ended (Linux 6.15 and later), even though it is not the recorder's child.
class ProcessHandles {
 public:
  explicit ProcessHandles(const SharedHeader& header);
  ~ProcessHandles();  // stops the thread and closes every pidfd
  ProcessHandles(const ProcessHandles&) = delete;
  ProcessHandles& operator=(const ProcessHandles&) = delete;
  // How process `pid` ended, as a wait status: once it has been reaped, or while it is a zombie
  // nobody has reaped yet (a child of a program stopped with it, left to init); nullopt where
  // the kernel does not say (still running, no pidfd, a kernel before 6.15 once reaped).
  std::optional<int> wait_status(std::uint32_t pid);

 private:
  struct Handle {
    int fd = -1;                // closed once the status is known
    std::uint64_t started = 0;  // its start time (/proc/PID/stat): a reused pid is not it
    std::optional<int> status;
  };
  void watch();
  // Opens a pidfd on `pid` if it is still the process that started at `started`.
  void open_handle(std::uint32_t pid, std::uint64_t started);
  const SharedHeader& m_header;
  std::mutex m_lock;
  std::unordered_map<std::uint32_t, Handle> m_handles;  // by pid
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

// Rebuilds `processes` from the shared file's table at `now_ns` (CLOCK_MONOTONIC). A process
// seen for the first time (or again after an exec) has its whole command line read from /proc
// while it is alive, where the table holds only its first 115 characters; every process that
// is still alive is marked seen now, so a child's session can say how long it ran.
// With `zombies_are_gone` (the last look), a process that has ended but is not yet reaped
// counts as gone: its parent may be gone too, and whoever inherits it may never reap it.
// How a process that is gone ended is taken from `handles` where the kernel says it.
void collect_processes(const SharedHeader& header, std::uint64_t now_ns, std::vector<ProcessInfo>& processes,
                       bool zombies_are_gone = false, ProcessHandles* handles = nullptr);

// The wait status of the process `pidfd` refers to, once it has been reaped; nullopt where it
// is not yet, or the kernel does not say (before Linux 6.15).
std::optional<int> exit_status_of(int pidfd);

// Whether the process exists and has not ended (a zombie has, when `zombies_are_gone`).
bool process_alive(std::uint32_t pid, bool zombies_are_gone);

// The arguments of a running process (/proc/PID/cmdline), empty when it cannot be read.
std::vector<std::string> command_line_of(std::uint32_t pid);

}  // namespace blasscope::record
