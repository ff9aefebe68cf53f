// The exec family and posix_spawn: a program that starts a child with an environment of its
// own (Python's subprocess with env=..., `env -i`, a launcher that cleans up) would drop
// LD_PRELOAD and the buffer's name, and the child's calls would be lost without a word. Where
// either is missing from the new environment, both are given back, the library preloaded first;
// an environment that names another buffer (another recording's) is left as it is.
//
// These run in vfork children (Python's subprocess): no allocation, no lock, no dynamic linker.
// What they need is resolved at load; the new environment is built on the stack.
#include <alloca.h>
#include <dlfcn.h>
#include <spawn.h>
#include <unistd.h>

#include <cstdarg>
#include <cstring>

#include "forwarding.h"
#include "record/call_record.h"

namespace {

using Execve = int (*)(const char*, char* const[], char* const[]);
using Fexecve = int (*)(int, char* const[], char* const[]);
using Spawn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const[],
                      char* const[]);

Execve g_execve = nullptr, g_execvpe = nullptr;
Fexecve g_fexecve = nullptr;
Spawn g_spawn = nullptr, g_spawnp = nullptr;

// What a child needs to be recorded, as "NAME=value" entries ("" where this process has none).
constexpr std::size_t kEntry = 4096 + 64;
char g_library[kEntry];   // this library's path, as it was preloaded
char g_shm[kEntry];       // BLASSCOPE_RECORD_SHM=...
char g_captures[kEntry];  // BLASSCOPE_RECORD_CAPTURES=...

void keep_entry(char (&out)[kEntry], const char* name, const char* value) {
  out[0] = '\0';
  if (!value || std::strlen(name) + std::strlen(value) + 2 > kEntry) return;
  std::strcpy(out, name);
  std::strcat(out, "=");
  std::strcat(out, value);
}

__attribute__((constructor)) void find_the_real_execs() {
  g_execve = reinterpret_cast<Execve>(::dlsym(RTLD_NEXT, "execve"));
  g_execvpe = reinterpret_cast<Execve>(::dlsym(RTLD_NEXT, "execvpe"));
  g_fexecve = reinterpret_cast<Fexecve>(::dlsym(RTLD_NEXT, "fexecve"));
  g_spawn = reinterpret_cast<Spawn>(::dlsym(RTLD_NEXT, "posix_spawn"));
  g_spawnp = reinterpret_cast<Spawn>(::dlsym(RTLD_NEXT, "posix_spawnp"));
  keep_entry(g_shm, blasscope::record::kShmEnv, ::getenv(blasscope::record::kShmEnv));
  keep_entry(g_captures, blasscope::record::kCaptureDirEnv, ::getenv(blasscope::record::kCaptureDirEnv));
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&find_the_real_execs), &self) && self.dli_fname &&
      std::strlen(self.dli_fname) < kEntry) {
    std::strcpy(g_library, self.dli_fname);
  }
}

bool starts_with(const char* entry, const char* prefix) {
  return std::strncmp(entry, prefix, std::strlen(prefix)) == 0;
}

std::size_t count_of(char* const envp[]) {
  std::size_t n = 0;
  while (envp && envp[n]) ++n;
  return n;
}

// `envp` with the recording's entries put back where the library or the buffer's name is missing;
// `envp` itself otherwise. `room` holds count_of(envp) + 4 pointers, `preload` strlen of the LD_PRELOAD entry
// + kEntry bytes (see WITH_RECORDING).
char* const* with_recording(char* const envp[], char** room, char* preload) {
  if (!g_shm[0] || !g_library[0]) return envp;  // not recording
  const char* theirs = nullptr;
  bool named = false;
  for (std::size_t i = 0; envp && envp[i]; ++i) {
    if (starts_with(envp[i], blasscope::record::kShmEnv) && envp[i][std::strlen(blasscope::record::kShmEnv)] == '=') {
      if (std::strcmp(envp[i], g_shm) != 0) return envp;  // another recording's
      named = true;
    }
    if (starts_with(envp[i], "LD_PRELOAD=")) theirs = envp[i] + 11;
  }
  if (named && theirs && std::strstr(theirs, g_library)) return envp;  // inherited whole
  std::size_t n = 0;
  for (std::size_t i = 0; envp && envp[i]; ++i) {
    if (!starts_with(envp[i], "LD_PRELOAD=") && !starts_with(envp[i], "BLASSCOPE_RECORD_")) room[n++] = envp[i];
  }
  // Ours first, then whatever the program preloads (unless it preloads ours already).
  std::strcpy(preload, "LD_PRELOAD=");
  if (!theirs || !std::strstr(theirs, g_library)) std::strcat(preload, g_library);
  if (theirs && *theirs) std::strcat(std::strcat(preload, preload[11] ? ":" : ""), theirs);
  room[n++] = preload;
  room[n++] = g_shm;
  if (g_captures[0]) room[n++] = g_captures;
  room[n] = nullptr;
  return room;
}

// The size of what with_recording may build, for alloca in the caller's frame.
std::size_t preload_room(char* const envp[]) {
  std::size_t longest = 0;
  for (std::size_t i = 0; envp && envp[i]; ++i) {
    if (starts_with(envp[i], "LD_PRELOAD=")) longest = std::strlen(envp[i]);
  }
  return longest + kEntry + 2;
}

// Before this library's constructors ran (an exec from another library's): resolved now.
void ensure_resolved() {
  if (!g_execve) find_the_real_execs();
}

}  // namespace

// alloca in the wrapper's own frame: the new environment lives until the exec.
#define WITH_RECORDING(envp)                                                                                    \
  (ensure_resolved(), with_recording((envp), static_cast<char**>(alloca((count_of(envp) + 4) * sizeof(char*))), \
                                     static_cast<char*>(alloca(preload_room(envp)))))

BLASSCOPE_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  return g_execve(path, argv, WITH_RECORDING(envp));
}

BLASSCOPE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  return g_execvpe(file, argv, WITH_RECORDING(envp));
}

BLASSCOPE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  return g_fexecve(fd, argv, WITH_RECORDING(envp));
}

// The C library's own execv and execvp pass `environ` to its internal execve, out of reach: a
// program that removed LD_PRELOAD from its own environment (`env -u LD_PRELOAD`) is caught here.
BLASSCOPE_EXPORT int execv(const char* path, char* const argv[]) {
  return g_execve(path, argv, WITH_RECORDING(environ));
}

BLASSCOPE_EXPORT int execvp(const char* file, char* const argv[]) {
  return g_execvpe(file, argv, WITH_RECORDING(environ));
}

namespace {
// execl, execlp and execle take their arguments as a list, ended by a null pointer (execle's
// environment after it): gathered on the stack, then exec'd from this frame.
int exec_list(Execve real, const char* target, const char* first, va_list list, bool environment_follows) {
  std::size_t count = 1;
  va_list counting;
  va_copy(counting, list);
  while (va_arg(counting, char*)) ++count;
  va_end(counting);
  char** argv = static_cast<char**>(alloca((count + 1) * sizeof(char*)));
  argv[0] = const_cast<char*>(first);
  for (std::size_t i = 1; i <= count; ++i) argv[i] = va_arg(list, char*);  // the null pointer too
  char* const* envp = environment_follows ? va_arg(list, char* const*) : environ;
  return real(target, argv, WITH_RECORDING(envp));
}
}  // namespace

BLASSCOPE_EXPORT int execl(const char* path, const char* arg, ...) {
  ensure_resolved();
  va_list list;
  va_start(list, arg);
  const int result = exec_list(g_execve, path, arg, list, false);
  va_end(list);
  return result;
}

BLASSCOPE_EXPORT int execlp(const char* file, const char* arg, ...) {
  ensure_resolved();
  va_list list;
  va_start(list, arg);
  const int result = exec_list(g_execvpe, file, arg, list, false);
  va_end(list);
  return result;
}

BLASSCOPE_EXPORT int execle(const char* path, const char* arg, ...) {
  ensure_resolved();
  va_list list;
  va_start(list, arg);
  const int result = exec_list(g_execve, path, arg, list, true);
  va_end(list);
  return result;
}

BLASSCOPE_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                                 const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  return g_spawn(pid, path, actions, attributes, argv, WITH_RECORDING(envp));
}

BLASSCOPE_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                                  const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  return g_spawnp(pid, file, actions, attributes, argv, WITH_RECORDING(envp));
}
