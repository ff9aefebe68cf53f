#pragma once

// The processes that attached to a recording, as the recorder sees them while they run.
#include <cstdint>
#include <string>
#include <vector>

#include "record/call_record.h"
#include "record/recording.h"

namespace blasscope::record {

// Rebuilds `processes` from the shared file's table at `now_ns` (CLOCK_MONOTONIC). A process
// seen for the first time (or again after an exec) has its whole command line read from /proc
// while it is alive, where the table holds only its first 115 characters; every process that
// is still alive is marked seen now, so a child's session can say how long it ran.
// With `zombies_are_gone` (the last look), a process that has ended but is not yet reaped
// counts as gone: its parent may be gone too, and whoever inherits it may never reap it.
void collect_processes(const SharedHeader& header, std::uint64_t now_ns, std::vector<ProcessInfo>& processes,
                       bool zombies_are_gone = false);

// Whether the process exists and has not ended (a zombie has, when `zombies_are_gone`).
bool process_alive(std::uint32_t pid, bool zombies_are_gone);

// The arguments of a running process (/proc/PID/cmdline), empty when it cannot be read.
std::vector<std::string> command_line_of(std::uint32_t pid);

}  // namespace blasscope::record
