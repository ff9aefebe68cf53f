// exit(), _exit() and _Exit(): the status is written into the process's entry of the shared
// file before it ends. The recorder waits for the program only; a child's status (a
// multiprocessing worker, an MPI rank) is known this way or not at all.
#include <dlfcn.h>
#include <sys/syscall.h>

#include "forwarding.h"
#include "preload_runtime.h"

namespace {

using ExitFunction = void (*)(int);

// Resolved at load time, not at exit: a vfork child must not enter the dynamic linker.
ExitFunction g_exit = nullptr, g_exit_now = nullptr, g_exit_now_c99 = nullptr;
__attribute__((constructor)) void find_the_real_exits() {
  g_exit = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "exit"));
  g_exit_now = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "_exit"));
  g_exit_now_c99 = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "_Exit"));
}

[[noreturn]] void end_with(ExitFunction real, int status) {
  blasscope::preload::note_process_end(blasscope::record::ProcessEnd::Exited, status);
  if (real) real(status);
  ::syscall(SYS_exit_group, status);  // no real one found: end as _exit does
  __builtin_unreachable();
}

}  // namespace

BLASSCOPE_EXPORT void exit(int status) noexcept {
  end_with(g_exit, status);
}
BLASSCOPE_EXPORT void _exit(int status) {
  end_with(g_exit_now, status);
}
BLASSCOPE_EXPORT void _Exit(int status) noexcept {
  end_with(g_exit_now_c99, status);
}
