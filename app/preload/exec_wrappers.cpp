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

#include <cerrno>
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

// An entry NAME=... of `name`.
bool is_entry(const char* entry, const char* name) {
  const std::size_t length = std::strlen(name);
  return std::strncmp(entry, name, length) == 0 && entry[length] == '=';
}

// A sanitizer's runtime refuses to start unless it is preloaded first: ours goes after it.
bool must_come_first(const char* preload) {
  for (const char* runtime : {"libasan", "libtsan", "libhwasan", "liblsan", "libmsan", "libubsan", "libclang_rt."}) {
    if (std::strstr(preload, runtime)) return true;
  }
  return false;
}

// What an environment lacks, looked at once: whether it is rebuilt, how many entries it had, and
// the bytes its new LD_PRELOAD entry takes.
struct Need {
  bool rebuild = false;
  std::size_t count = 0, preload_bytes = 0;
};

Need need_of(char* const envp[]) {
  Need need;
  if (!g_shm[0] || !g_library[0]) return need;  // not recording
  const char* theirs = nullptr;
  bool named = false, captures = false;
  for (std::size_t i = 0; envp && envp[i]; ++i, ++need.count) {
    if (is_entry(envp[i], blasscope::record::kShmEnv)) {
      if (std::strcmp(envp[i], g_shm) != 0) return {};  // another recording's
      named = true;
    }
    if (is_entry(envp[i], "LD_PRELOAD")) theirs = envp[i] + 11;
    if (is_entry(envp[i], blasscope::record::kCaptureDirEnv)) captures = true;
  }
  const bool ours = theirs && std::strstr(theirs, g_library);
  need.rebuild = !(named && ours && (captures || !g_captures[0]));  // else inherited whole
  need.preload_bytes = 11 + std::strlen(g_library) + 1 + (theirs ? std::strlen(theirs) : 0) + 1;
  return need;
}

// `envp` with the recording's entries put back, in `room` (need.count + 4 pointers) and
// `preload` (need.preload_bytes). At most need.count entries are read: a vfork child's execv
// reads the parent's `environ`, which another of its threads may be changing; where it grew
// past what was measured, `envp` is passed on as it is.
char* const* rebuilt(char* const envp[], const Need& need, char** room, char* preload) {
  const char* theirs = nullptr;
  std::size_t n = 0;
  for (std::size_t i = 0; envp && envp[i] && i < need.count; ++i) {
    if (is_entry(envp[i], "LD_PRELOAD")) {
      theirs = envp[i] + 11;
    } else if (!is_entry(envp[i], blasscope::record::kShmEnv) &&
               !is_entry(envp[i], blasscope::record::kCaptureDirEnv)) {
      room[n++] = envp[i];
    }
  }
  const std::size_t their_length = theirs ? std::strlen(theirs) : 0;
  if (11 + std::strlen(g_library) + 1 + their_length + 1 > need.preload_bytes) return envp;
  // Ours first (a sanitizer's runtime before it), unless the program preloads ours already.
  std::strcpy(preload, "LD_PRELOAD=");
  if (theirs && std::strstr(theirs, g_library)) {
    std::strcat(preload, theirs);
  } else if (their_length && must_come_first(theirs)) {
    std::strcat(std::strcat(std::strcat(preload, theirs), ":"), g_library);
  } else {
    std::strcat(preload, g_library);
    if (their_length) std::strcat(std::strcat(preload, ":"), theirs);
  }
  room[n++] = preload;
  room[n++] = g_shm;
  if (g_captures[0]) room[n++] = g_captures;
  room[n] = nullptr;
  return room;
}

// Before this library's constructors ran (an exec from another library's constructor): resolved
// now. False, with errno set, where the C library has no such function.
template <typename Function>
bool resolved(const Function& real) {  // by reference: read after the lookup
  if (!g_execve) find_the_real_execs();
  return real || (errno = ENOSYS, false);
}

}  // namespace

// Declares `name`: `source` (read once), or the environment rebuilt on this frame's stack, which
// lives until the exec.
#define RECORDING_ENVIRONMENT(name, source)                                                                           \
  char* const* const name##_source = (source);                                                                        \
  const Need name##_need = need_of(name##_source);                                                                    \
  char* const* const name =                                                                                           \
      name##_need.rebuild                                                                                             \
          ? rebuilt(name##_source, name##_need, static_cast<char**>(alloca((name##_need.count + 4) * sizeof(char*))), \
                    static_cast<char*>(alloca(name##_need.preload_bytes)))                                            \
          : name##_source

BLASSCOPE_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  if (!resolved(g_execve)) return -1;
  RECORDING_ENVIRONMENT(env, envp);
  return g_execve(path, argv, env);
}

BLASSCOPE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  if (!resolved(g_execvpe)) return -1;
  RECORDING_ENVIRONMENT(env, envp);
  return g_execvpe(file, argv, env);
}

BLASSCOPE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  if (!resolved(g_fexecve)) return -1;
  RECORDING_ENVIRONMENT(env, envp);
  return g_fexecve(fd, argv, env);
}

// The C library's own execv and execvp pass `environ` to its internal execve, out of reach: a
// program that removed LD_PRELOAD from its own environment (`env -u LD_PRELOAD`) is caught here.
BLASSCOPE_EXPORT int execv(const char* path, char* const argv[]) {
  if (!resolved(g_execve)) return -1;
  RECORDING_ENVIRONMENT(env, environ);
  return g_execve(path, argv, env);
}

BLASSCOPE_EXPORT int execvp(const char* file, char* const argv[]) {
  if (!resolved(g_execvpe)) return -1;
  RECORDING_ENVIRONMENT(env, environ);
  return g_execvpe(file, argv, env);
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
  RECORDING_ENVIRONMENT(env, environment_follows ? va_arg(list, char* const*) : environ);
  return real(target, argv, env);
}
}  // namespace

BLASSCOPE_EXPORT int execl(const char* path, const char* arg, ...) {
  if (!resolved(g_execve)) return -1;
  va_list list;
  va_start(list, arg);
  const int result = exec_list(g_execve, path, arg, list, false);
  va_end(list);
  return result;
}

BLASSCOPE_EXPORT int execlp(const char* file, const char* arg, ...) {
  if (!resolved(g_execvpe)) return -1;
  va_list list;
  va_start(list, arg);
  const int result = exec_list(g_execvpe, file, arg, list, false);
  va_end(list);
  return result;
}

BLASSCOPE_EXPORT int execle(const char* path, const char* arg, ...) {
  if (!resolved(g_execve)) return -1;
  va_list list;
  va_start(list, arg);
  const int result = exec_list(g_execve, path, arg, list, true);
  va_end(list);
  return result;
}

BLASSCOPE_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                                 const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  if (!resolved(g_spawn)) return ENOSYS;
  RECORDING_ENVIRONMENT(env, envp);
  return g_spawn(pid, path, actions, attributes, argv, env);
}

BLASSCOPE_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                                  const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  if (!resolved(g_spawnp)) return ENOSYS;
  RECORDING_ENVIRONMENT(env, envp);
  return g_spawnp(pid, file, actions, attributes, argv, env);
}
