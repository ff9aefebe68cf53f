// Attaching to the recorder: this process's entry in the shared table (its command, its
// BLAS, how it ended), at start-up and again in a forked child.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "preload_runtime.h"
#include "runtime_state.h"

namespace blasscope::preload {

// The recorder's shared file, as attached (nullptr: this process is not recorded).
record::SharedHeader* g_shared = nullptr;
char g_shared_path[PATH_MAX];
dev_t g_shared_device = 0;
ino_t g_shared_inode = 0;
pthread_key_t g_slot_key;
std::uint32_t g_pid = 0;
std::atomic<bool> g_blas_found{false};
bool g_check_values = false;
std::uint64_t g_nested_limit = UINT64_MAX;
record::CallClock g_clock = record::CallClock::MonotonicNs;

record::ProcessEntry* my_process_entry() {
  if (!g_shared) return nullptr;
  for (std::uint32_t i = std::min(g_shared->process_count.load(), record::kMaxProcesses); i-- > 0;) {
    if (g_shared->processes[i].pid.load() == g_pid) return &g_shared->processes[i];
  }
  return nullptr;
}

namespace {

// Copies `text` into a field of the shared table, cut to fit and NUL-terminated.
template <std::size_t N>
void put_text(char (&field)[N], const char* text) {
  std::size_t i = 0;
  for (; text && text[i] && i + 1 < N; ++i) field[i] = text[i];
  field[i] = '\0';
}

// A path that does not fit keeps its end, which names the library: ".../numpy.libs/libx.so".
template <std::size_t N>
void put_path(char (&field)[N], const char* path) {
  const std::size_t length = std::strlen(path);
  if (length < N) return put_text(field, path);
  std::memcpy(field, "...", 3);
  std::memcpy(field + 3, path + length - (N - 4), N - 4);
  field[N - 1] = '\0';
}

// What this process's BLAS is, once known (a forked child calls the same one without resolving
// it again, so its entry gets it at registration).
struct BlasIdentity {
  char library[sizeof record::ProcessEntry::blas_library] = {};
  char corename[sizeof record::ProcessEntry::blas_corename] = {};
  char coretype[sizeof record::ProcessEntry::blas_coretype] = {};
  char config[sizeof record::ProcessEntry::blas_config] = {};
  int threads = 0;
};
BlasIdentity g_blas_identity;
std::atomic<bool> g_blas_identified{false};
std::atomic<bool> g_blas_learning{false};  // one thread learns it; reset in a child forked meanwhile

void write_identity(record::ProcessEntry& entry) {
  std::uint32_t none = 0;
  if (!g_blas_identified.load(std::memory_order_acquire) || !entry.blas_said.compare_exchange_strong(none, 1)) return;
  put_text(entry.blas_library, g_blas_identity.library);
  put_text(entry.blas_corename, g_blas_identity.corename);
  put_text(entry.blas_coretype, g_blas_identity.coretype);
  put_text(entry.blas_config, g_blas_identity.config);
  entry.blas_threads = g_blas_identity.threads;
  entry.blas_said.store(2, std::memory_order_release);
}

// Learns the BLAS from the first routine resolved (`real`, in its library): OpenBLAS answers
// openblas_get_corename/config from that library or one it depends on (Debian's libblas.so.3
// and liblapack.so.3 load libopenblas.so.0); the reference BLAS, MKL and others do not.
void say_blas(record::ProcessEntry& entry, void* real) {
  // A vfork child runs in its parent's memory, with its parent's g_pid: the parent learns it.
  if (static_cast<std::uint32_t>(::syscall(SYS_getpid)) != g_pid) return;
  if (!g_blas_identified.load(std::memory_order_acquire) && !g_blas_learning.exchange(true)) {
    Dl_info info{};
    if (::dladdr(real, &info) && info.dli_fname) {
      // A BLAS linked into the executable itself has no library name: the program's is asked.
      const bool in_executable = !*info.dli_fname;
      // Absolute here, where the program's working folder is known (a library found through
      // a relative LD_LIBRARY_PATH or dlopen("./libx.so") is named relative to it).
      char absolute[PATH_MAX];
      const char* path = in_executable                                                    ? "(linked into the program)"
                         : *info.dli_fname != '/' && ::realpath(info.dli_fname, absolute) ? absolute
                                                                                          : info.dli_fname;
      put_path(g_blas_identity.library, path);
      void* handle = ::dlopen(in_executable ? nullptr : info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
      using Text = const char* (*)();
      const auto lookup = [handle](const char* name) {
        return reinterpret_cast<Text>(::dlsym(handle ? handle : RTLD_DEFAULT, name));
      };
      if (const auto corename = lookup("openblas_get_corename")) {
        put_text(g_blas_identity.corename, corename());
        const auto config = lookup("openblas_get_config");
        put_text(g_blas_identity.config, config ? config() : "");
        put_text(g_blas_identity.coretype, ::getenv("OPENBLAS_CORETYPE"));
        // The threads its routines may use (OPENBLAS_NUM_THREADS, or set by the program before
        // its first call): the peak a call can reach.
        using Count = int (*)();
        if (const auto threads =
                reinterpret_cast<Count>(::dlsym(handle ? handle : RTLD_DEFAULT, "openblas_get_num_threads"))) {
          g_blas_identity.threads = threads();
        }
      }
      if (handle) ::dlclose(handle);
    }
    g_blas_identified.store(true, std::memory_order_release);
  }
  write_identity(entry);
}

namespace {
// Until the recorder holds a pidfd on this process (its entry's `watched`), for at most 20 ms:
// a child that crashes a millisecond after its fork was otherwise reaped by its parent before
// the recorder's thread got a core, and which signal ended it was lost. Not at all where the
// recorder has no such thread or has gone, nor for the program it started (waitpid tells it).
// A recorder killed with SIGKILL leaves its word set: after a first 2 ms without a look, its
// lock on the shared file says whether it still lives, and a dead one is marked gone for every
// process (forks of a program whose recorder died would otherwise wait 20 ms each).
void wait_until_watched(record::ProcessEntry& entry) {
  constexpr std::uint64_t kLongestWaitNs = 20000000, kAskAfterNs = 2000000;
  const std::uint32_t watcher = g_shared->processes_watched.load();
  if (watcher == 0 || static_cast<std::uint32_t>(::getppid()) == watcher) return;
  const std::uint64_t start = record::monotonic_ns();
  bool asked = false;
  while (entry.watched.load() == 0 && g_shared->processes_watched.load() != 0 && !g_shared->recorder_gone.load()) {
    const std::uint64_t waited = record::monotonic_ns() - start;
    if (waited >= kLongestWaitNs) return;
    if (waited >= kAskAfterNs && !asked) {
      asked = true;
      if (recorder_died(*g_shared)) {
        g_shared->recorder_gone.store(1);
        return;
      }
    }
    const std::uint64_t left = (asked ? kLongestWaitNs : kAskAfterNs) - waited;
    const timespec bound{0, static_cast<long>(left)};
    ::syscall(SYS_futex, &entry.watched, FUTEX_WAIT, 0, &bound, nullptr, 0);
  }
}
}  // namespace

void register_process(bool blas_found) {
  g_pid = static_cast<std::uint32_t>(::getpid());
  // Attaching again under the same pid: the image before this one exec'd this program.
  record::ProcessEntry* before = my_process_entry();
  if (before) {
    std::uint64_t running = record::pack_ending(record::ProcessEnd::None, 0);
    before->ending.compare_exchange_strong(running, record::pack_ending(record::ProcessEnd::Execed, 0));
  }
  const std::uint32_t index = g_shared->process_count.fetch_add(1);
  if (index >= record::kMaxProcesses) return;
  record::ProcessEntry& entry = g_shared->processes[index];
  entry.parent_pid.store(static_cast<std::uint32_t>(::getppid()));
  // The command line, NULs turned into spaces (and marked), cut to fit: one byte more is read
  // to know whether it was.
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char line[sizeof entry.command + 1];
    const ssize_t got = ::read(fd, line, sizeof line);
    ::close(fd);
    const ssize_t kept = std::min<ssize_t>(got, sizeof entry.command - 1);
    for (ssize_t i = 0; i < kept; ++i) {
      const bool end = line[i] == '\0' && i + 1 < got;
      entry.command[i] = end ? ' ' : line[i];
      if (end) entry.argument_ends[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
    }
    entry.command_whole = got > 0 && got <= static_cast<ssize_t>(sizeof entry.command - 1);
  }
  if (blas_found) entry.blas_found.store(1);
  if (const int stat = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC); stat >= 0) {
    char text[1024];
    const ssize_t got = ::read(stat, text, sizeof text);
    ::close(stat);
    if (got > 0) entry.start_ticks.store(record::start_ticks_in(text, static_cast<std::size_t>(got)));
  }
  write_identity(entry);
  entry.attached_ns.store(record::monotonic_ns());
  entry.pid.store(g_pid);  // last: the recorder reads entries whose pid is set
  g_shared->processes_registered.fetch_add(1);
  ::syscall(SYS_futex, &g_shared->processes_registered, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  if (!before) wait_until_watched(entry);  // an exec'd image's process is watched already
}

void after_fork_in_child() {
  // Only the forking thread exists here; it gets a new id, a new slot, and its process a new entry.
  forget_thread_after_fork();
  // A forked child calls the routines its parent resolved without resolving them again. One
  // forked while another thread was learning the BLAS learns it again.
  if (!g_blas_identified.load()) g_blas_learning.store(false);
  if (g_shared) register_process(g_blas_found);
}

// not this one.
bool names_blas(const char* path) {
  const char* name = path ? std::strrchr(path, '/') : nullptr;
  name = name ? name + 1 : path;
  // cuBLAS and its kin are GPU libraries: their calls are recorded by their own names.
  if (!name || std::strstr(name, "blasscope") || std::strstr(name, "cublas") || std::strstr(name, "hipblas") ||
      std::strstr(name, "rocblas")) {
    return false;
  }
  for (const char* word : {"blas", "lapack", "mkl_rt", "libblis"}) {
    if (std::strstr(name, word)) return true;
  }
  return false;
}

// At exit, a process that called no recorded routine says whether it had BLAS/LAPACK loaded:
// then it called only routines BLAScope does not record, which the recorder tells apart from
// a program that never loaded one (or links one statically).
// Its exit handlers running also say that it ended by itself (a C main that returned, where
// exit() is called inside libc, out of the preload's reach): see ProcessEnd.
__attribute__((destructor)) void note_loaded_blas() {
  if (!g_shared) return;
  note_process_end(record::ProcessEnd::Returned, 0);
  if (g_blas_found) return;
  const bool loaded =
      ::dl_iterate_phdr([](dl_phdr_info* info, std::size_t, void*) { return names_blas(info->dlpi_name) ? 1 : 0; },
                        nullptr) != 0;
  if (!loaded) return;
  if (record::ProcessEntry* entry = my_process_entry()) entry->blas_found.fetch_or(2);
}

__attribute__((constructor)) void attach() {
  const char* path = std::getenv(record::kShmEnv);
  if (!path || !*path) return;
  const int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  // A recorder of another build made a file of another size: mapping ours past its end would
  // fault, and its ring and tables are not where ours are.
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size != static_cast<off_t>(record::kSharedBytes)) {
    ::close(fd);
    return;
  }
  // Not populated: most processes of a program (shells, helpers) never call BLAS, and the
  // ring's page faults of those that do are a few per hundred calls, once.
  void* map = ::mmap(nullptr, record::kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return;
  auto* header = static_cast<record::SharedHeader*>(map);
  if (header->magic != record::kMagic || header->version != record::kLayoutVersion ||
      header->ring_capacity != record::kRingCapacity || header->active_slots != record::kActiveSlots) {
    ::munmap(map, record::kSharedBytes);
    return;
  }
  ::pthread_key_create(&g_slot_key, release_slot);
  if (std::strlen(path) < sizeof g_shared_path) std::strcpy(g_shared_path, path);
  g_shared_device = st.st_dev, g_shared_inode = st.st_ino;
  g_shared = header;
  g_check_values = header->check_values.load() != 0;
  g_clock = header->clock.load();
  register_process(false);
  const std::uint32_t limit = header->nested_limit.load();
  g_nested_limit = limit == UINT32_MAX ? UINT64_MAX : limit;
  ::pthread_atfork(nullptr, nullptr, after_fork_in_child);
}

}  // namespace

record::SharedHeader* shared() {
  return g_shared;
}

bool check_gemm_values() {
  return g_check_values;
}

void mark_blas_found(const char* name, void* real) {
  if (!g_shared) return;
  g_blas_found = true;
  if (record::ProcessEntry* entry = my_process_entry()) {
    entry->blas_found.fetch_or(1);
    // The BLAS is named after a BLAS or LAPACK routine's library: not LAPACKE's, nor cuBLAS's,
    // nor xerbla_'s (NumPy defines its own, in its core module).
    if (std::strncmp(name, "LAPACKE_", 8) != 0 && std::strncmp(name, "cu", 2) != 0 &&
        std::strcmp(name, "xerbla_") != 0) {
      say_blas(*entry, real);
    }
  }
}

void note_process_end(record::ProcessEnd end, int status) {
  using record::ProcessEnd;
  // A vfork child runs in its parent's memory with its parent's g_pid: not the parent's end.
  if (!g_shared || static_cast<std::uint32_t>(::syscall(SYS_getpid)) != g_pid) return;
  record::ProcessEntry* entry = my_process_entry();
  if (!entry) return;
  // The first end said counts, but exit() is final only once its handlers have run: exit()
  // again from a handler replaces its status (glibc ends with that one), _exit() from one ends
  // it there, and the handlers' end (Returned, from the library destructors) confirms it.
  for (std::uint64_t seen = entry->ending.load();;) {
    const ProcessEnd now = record::end_of(seen);
    std::uint64_t next = 0;
    if (now == ProcessEnd::None || (now == ProcessEnd::Exiting && end != ProcessEnd::Returned)) {
      next = record::pack_ending(end, status);
    } else if (now == ProcessEnd::Exiting) {
      next = record::pack_ending(ProcessEnd::Exited, record::status_of(seen));
    } else {
      return;
    }
    if (entry->ending.compare_exchange_weak(seen, next)) {
      entry->ended_ns.store(record::monotonic_ns());
      return;
    }
  }
}

}  // namespace blasscope::preload
