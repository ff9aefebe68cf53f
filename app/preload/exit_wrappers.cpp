// exit(), _exit() and _Exit(), and main's return: the status is written into the process's
// entry of the shared file before it ends. The recorder waits for the program only; a child's
// status (a multiprocessing worker, an MPI rank, a Python interpreter that raised) is known
// this way or not at all. exit() and main's return say Exiting: the exit handlers may still
// crash (the library destructors confirm it, see note_process_end).
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

#if defined(__x86_64__) || defined(__aarch64__) || defined(__i386__)
// Where __libc_start_main takes (main, argc, argv, init, fini, rtld_fini, stack_end); elsewhere
// (powerpc64) it does not, and main is not wrapped.
using MainFunction = int (*)(int, char**, char**);
using StartFunction = int (*)(MainFunction, int, char**, void (*)(), void (*)(), void (*)(), void*);
MainFunction g_main = nullptr;

// libc calls exit() with main's return value from inside itself, out of the interposer's reach:
// main is wrapped instead, which is how a C program's or the Python interpreter's status is seen.
int main_that_says_its_status(int argc, char** argv, char** envp) {
  const int status = g_main(argc, argv, envp);
  blasscope::preload::note_process_end(blasscope::record::ProcessEnd::Exiting, status);
  return status;
}

#endif

}  // namespace

using blasscope::record::ProcessEnd;

#if defined(__x86_64__) || defined(__aarch64__) || defined(__i386__)
// A dynamically linked program's _start calls this through the PLT, after the preload's
// constructors; the real one is the C library's default version (2.34's, the same code as the
// older one on these architectures).
BLASSCOPE_EXPORT int __libc_start_main(MainFunction main, int argc, char** argv, void (*init)(), void (*fini)(),
                                       void (*rtld_fini)(), void* stack_end) {
  const auto real = reinterpret_cast<StartFunction>(::dlsym(RTLD_NEXT, "__libc_start_main"));
  if (!real) ::syscall(SYS_exit_group, 127);  // no C library to start the program with
  g_main = main;
  return real(main_that_says_its_status, argc, argv, init, fini, rtld_fini, stack_end);
}
#endif

BLASSCOPE_EXPORT void exit(int status) noexcept {
  end_with(ProcessEnd::Exiting, g_exit, "exit", status);
}
BLASSCOPE_EXPORT void _exit(int status) {
  end_with(ProcessEnd::Exited, g_exit_now, "_exit", status);
}
BLASSCOPE_EXPORT void _Exit(int status) noexcept {
  end_with(ProcessEnd::Exited, g_exit_now_c99, "_Exit", status);
}
