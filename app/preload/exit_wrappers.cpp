// exit(), _exit() and _Exit(): the status is written into the process's entry of the shared
// file before it ends. The recorder waits for the program only; a child's status (a
// multiprocessing worker, an MPI rank) is known this way or not at all. exit() says Exiting:
// its handlers may still crash (the library destructors confirm it, see note_process_end).
#include <dlfcn.h>
#include <sys/syscall.h>

#include "forwarding.h"
#include "preload_runtime.h"

namespace {

using ExitFunction = void (*)(int);

// Resolved at load time, not at exit (the library is linked -z now too): a vfork child must not
// enter the dynamic linker.
ExitFunction g_exit = nullptr, g_exit_now = nullptr, g_exit_now_c99 = nullptr;
__attribute__((constructor)) void find_the_real_exits() {
  g_exit = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "exit"));
  g_exit_now = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "_exit"));
  g_exit_now_c99 = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "_Exit"));
}

[[noreturn]] void end_with(blasscope::record::ProcessEnd end, ExitFunction real, const char* name, int status) {
  blasscope::preload::note_process_end(end, status);
  if (!real) real = reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, name));  // before our constructor ran
  if (real) real(status);
  ::syscall(SYS_exit_group, status);  // none at all: end as _exit does
  __builtin_unreachable();
}

}  // namespace

using blasscope::record::ProcessEnd;

BLASSCOPE_EXPORT void exit(int status) noexcept {
  end_with(ProcessEnd::Exiting, g_exit, "exit", status);
}
BLASSCOPE_EXPORT void _exit(int status) {
  end_with(ProcessEnd::Exited, g_exit_now, "_exit", status);
}
BLASSCOPE_EXPORT void _Exit(int status) noexcept {
  end_with(ProcessEnd::Exited, g_exit_now_c99, "_Exit", status);
}
