#pragma once

// What the preload's runtime files share, hidden inside the library: the recorder's shared file
// as this process attached to it (process_attach.cpp writes it, at start-up and in a forked
// child), read on every call (preload_runtime.cpp).
#include <limits.h>
#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "record/call_record.h"

namespace blasscope::preload {

extern record::SharedHeader* g_shared;  // nullptr: this process is not being recorded
// The shared file's path, as the recorder gave it (the environment is the program's to change),
// and which file it was then: a file found there later is the recorder's only if it is that one.
extern char g_shared_path[PATH_MAX];
extern dev_t g_shared_device;
extern ino_t g_shared_inode;
extern pthread_key_t g_slot_key;  // its destructor, release_slot, gives a thread's active slot back
extern std::uint32_t g_pid;
extern std::atomic<bool> g_blas_found;  // this process resolved a BLAS/LAPACK routine (a forked child inherits it)
extern bool g_check_values;             // set by the recorder before the program starts
// Calls made inside a top-level call listed one by one (SharedHeader::nested_limit).
extern std::uint64_t g_nested_limit;
extern record::CallClock g_clock;  // likewise

// This process's entry in the shared table: the latest with its pid (an exec'd image attaches
// again under the same pid), or nullptr.
record::ProcessEntry* my_process_entry();

// Whether the recorder has died (it no longer holds its lock on the shared file). Asked at most
// every 50 ms by a process; false where that is not known.
bool recorder_died(const record::SharedHeader& s);

// Per-thread state of the calls (preload_runtime.cpp): a thread's slot given back when it ends,
// and the forking thread's state forgotten in a forked child.
void release_slot(void* slot);
void forget_thread_after_fork();

}  // namespace blasscope::preload
