#pragma once

// The processes that attached to a recording, as the recorder sees them while they run.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "record/call_record.h"
#include "record/recording.h"

namespace blasscope::record {

// A pidfd on every process that attaches, opened by a thread as soon as its entry is complete:
// the recorder looks at the table only now and then, and a short-lived child may be gone and
// reaped by then, when its pid can no longer be asked which signal ended it.
class ProcessHandles {
 public:
  explicit ProcessHandles(const SharedHeader& header);
  ~ProcessHandles();  // stops the thread and closes every pidfd not taken
  ProcessHandles(const ProcessHandles&) = delete;
  ProcessHandles& operator=(const ProcessHandles&) = delete;
  // The pidfd opened on `pid`, the caller's to close from then on; -1 where none was.
  int take(std::uint32_t pid);

 private:
  void watch();
  const SharedHeader& m_header;
  std::mutex m_lock;
  std::unordered_map<std::uint32_t, int> m_pidfds;  // by pid, not yet taken
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

// Rebuilds `processes` from the shared file's table at `now_ns` (CLOCK_MONOTONIC). A process
// seen for the first time (or again after an exec) has its whole command line read from /proc
// while it is alive, where the table holds only its first 115 characters; every process that
// is still alive is marked seen now, so a child's session can say how long it ran.
// With `zombies_are_gone` (the last look), a process that has ended but is not yet reaped
// counts as gone: its parent may be gone too, and whoever inherits it may never reap it.
// Each process gets a pidfd (see ProcessHandles; taken from `handles` where it has one).
void collect_processes(const SharedHeader& header, std::uint64_t now_ns, std::vector<ProcessInfo>& processes,
                       bool zombies_are_gone = false, ProcessHandles* handles = nullptr);

// Closes the pidfds collect_processes opened (after its last look).
void release_process_handles(std::vector<ProcessInfo>& processes);

// The signal that ended the process `pidfd` refers to, once it has been reaped; 0 where it
// exited, is not reaped yet, or the kernel does not say (before Linux 6.15).
int signal_that_ended(int pidfd);

// Whether the process exists and has not ended (a zombie has, when `zombies_are_gone`).
bool process_alive(std::uint32_t pid, bool zombies_are_gone);

// The arguments of a running process (/proc/PID/cmdline), empty when it cannot be read.
std::vector<std::string> command_line_of(std::uint32_t pid);

}  // namespace blasscope::record
