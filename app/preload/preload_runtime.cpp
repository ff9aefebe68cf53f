#include "preload_runtime.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#endif

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "nonfinite_scan.h"
#include "record/call_flops.h"
#include "symbol_binding.h"

namespace blasscope::preload {
namespace {

record::SharedHeader* g_shared = nullptr;
// The shared file's path, as the recorder gave it (the environment is the program's to change),
// and which file it was then: a file found there later is the recorder's only if it is that one.
char g_shared_path[PATH_MAX];
dev_t g_shared_device = 0;
ino_t g_shared_inode = 0;
pthread_key_t g_slot_key;  // its destructor gives a thread's active slot back
std::uint32_t g_pid = 0;
thread_local std::uint32_t t_tid = 0;
// The calls running on this thread, outermost first: t_levels[0, t_depth). Each level holds
// what the calls made inside its call add up.
struct RunningLevel {
  CallScope* scope;  // its address too: a scope deeper in the stack than a new one is dead
  std::uint64_t id;
  std::uint64_t children_ns;
  std::uint32_t unlisted;  // calls made inside it, counted but not listed
  bool child_failed;
  bool child_listed;  // a call made inside it was listed: so is it
};
constexpr std::uint32_t kTrackedLevels = 32;  // BLAS inside LAPACK inside LAPACK is 3 or 4
thread_local RunningLevel t_levels[kTrackedLevels];
thread_local std::uint32_t t_depth = 0;
thread_local std::uint64_t t_inside_count = 0;  // calls made inside the running top-level call so far
thread_local record::ActiveSlot* t_slot = nullptr;
// The QuietCall running on this thread, copied here (not pointed at: a call left by a longjmp
// from a signal handler would leave a dead frame), and what xerbla reported while it ran.
struct QuietRunning {
  bool running;
  std::uint32_t level;
  Routine routine;
  Precision precision;
  std::uint64_t id, start;
};
thread_local QuietRunning t_quiet;
struct QuietReport {
  bool seen;
  char routine[sizeof(CallRecord::xerbla_routine)];
  std::size_t length;
  int parameter;
};
thread_local QuietReport t_quiet_report;
thread_local bool t_no_slot = false;  // the table was full when this thread looked, or it is ending
constexpr std::uint64_t kIdBlock = 256;
thread_local std::uint64_t t_next_id = 0, t_id_end = 0;
thread_local std::uint64_t t_write_limit_seen = 0;  // the recorder's write limit, as last loaded
std::atomic<bool> g_blas_found{false};  // this process resolved a BLAS/LAPACK routine (a forked child inherits it)
bool g_check_values = false;            // set by the recorder before the program starts
// Calls made inside a top-level call listed one by one (SharedHeader::nested_limit).
std::uint64_t g_nested_limit = UINT64_MAX;
record::CallClock g_clock = record::CallClock::MonotonicNs;  // likewise

// Where the CPU has PREFETCHW (every x86-64 of the last ten years; older ones may fault on it).
bool has_prefetch_for_writing() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & bit_PRFCHW);
#else
  return false;
#endif
}
const bool g_prefetch_for_writing = has_prefetch_for_writing();
// How many entries ahead of its last one a thread asks for: its next call's entry, or the one
// after where other threads took some, is then in its cache by the time it is written.
constexpr std::uint64_t kPrefetchAhead = 4;

std::uint32_t thread_id() {
  if (!t_tid) t_tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return t_tid;
}

// This process's entry in the shared table: the latest with its pid (an exec'd image attaches
// again under the same pid), or nullptr.
record::ProcessEntry* my_process_entry() {
  if (!g_shared) return nullptr;
  for (std::uint32_t i = std::min(g_shared->process_count.load(), record::kMaxProcesses); i-- > 0;) {
    if (g_shared->processes[i].pid.load() == g_pid) return &g_shared->processes[i];
  }
  return nullptr;
}

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

void register_process(bool blas_found) {
  g_pid = static_cast<std::uint32_t>(::getpid());
  // Attaching again under the same pid: the image before this one exec'd this program.
  if (record::ProcessEntry* before = my_process_entry()) {
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
}

// A thread's slot goes back to its process when the thread ends: its totals are the process's.
void release_slot(void* slot) {
  auto* s = static_cast<record::ActiveSlot*>(slot);
  s->depth.store(0);
  s->owner_tid.store(0, std::memory_order_release);
  // Runs on the ending thread: a BLAS call from a later thread-exit destructor must not write
  // the slot another thread may have claimed by then.
  t_slot = nullptr;
  t_no_slot = true;
}

void after_fork_in_child() {
  // Only the forking thread exists here; it gets a new id, a new slot, and its process a new entry.
  t_tid = 0;
  t_slot = nullptr;
  t_no_slot = false;
  t_depth = 0;
  t_quiet.running = false;
  t_next_id = t_id_end = 0;  // the parent's block of ids stays the parent's
  t_write_limit_seen = 0;
  ::pthread_setspecific(g_slot_key, nullptr);  // the parent's slot stays the parent's
  // A forked child calls the routines its parent resolved without resolving them again. One
  // forked while another thread was learning the BLAS learns it again.
  if (!g_blas_identified.load()) g_blas_learning.store(false);
  if (g_shared) register_process(g_blas_found);
}

// A library whose file name says BLAS or LAPACK (OpenBLAS, the reference ones, MKL, FlexiBLAS),
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

record::ActiveSlot* my_slot() {
  if (t_slot || t_no_slot) return t_slot;
  const std::uint32_t tid = thread_id();
  for (std::uint32_t i = 0; i < record::kActiveSlots; ++i) {
    record::ActiveSlot& slot = g_shared->active[i];
    // The recorder reads slots below slots_seen only: raised before the slot can be taken.
    std::uint32_t seen = g_shared->slots_seen.load(std::memory_order_relaxed);
    while (seen < i + 1 && !g_shared->slots_seen.compare_exchange_weak(seen, i + 1)) {
    }
    // Free slots of this process (its threads that ended) or of none (the recorder takes back
    // those of processes that have exited). Once owner_tid is ours only we change owner_pid.
    const auto mine = [&slot] {
      const std::uint32_t pid = slot.owner_pid.load(std::memory_order_acquire);
      return pid == 0 || pid == g_pid;
    };
    std::uint32_t expected = 0;
    if (slot.owner_tid.load(std::memory_order_relaxed) != 0 || !mine() ||
        !slot.owner_tid.compare_exchange_strong(expected, tid)) {
      continue;
    }
    if (!mine()) {  // another process's, released between the two looks: not ours to add to
      expected = tid;
      slot.owner_tid.compare_exchange_strong(expected, 0);
      continue;
    }
    slot.owner_pid.store(g_pid);
    t_slot = &slot;
    ::pthread_setspecific(g_slot_key, &slot);
    return t_slot;
  }
  t_no_slot = true;
  return nullptr;
}

// Sleeps until the recorder raises the write limit past `w`, or 10 ms (the recorder may be gone:
// the caller counts the time). The futex word is in the shared file: no _PRIVATE.
void sleep_until_room(record::SharedHeader& s, std::uint64_t w) {
  s.room_waiters.fetch_add(1);
  const std::uint32_t made = s.room_made.load();
  if (w >= s.write_limit.load()) {
    const timespec bound{0, 10000000};
    ::syscall(SYS_futex, &s.room_made, FUTEX_WAIT, made, &bound, nullptr, 0);
  }
  s.room_waiters.fetch_sub(1);
}

// Whether the recorder has died (SIGKILL, the OOM killer): it holds the shared file locked while
// it lives, and the kernel lets the lock go however it ends. Asked only of a writer that has
// waited for room a while: a dead recorder would otherwise keep the program waiting ten seconds.
// Where the recorder could not lock the file (a file system without locks), nothing is known.
bool recorder_died(const record::SharedHeader& s) {
  if (!s.recorder_holds_lock.load(std::memory_order_relaxed) || !g_shared_path[0]) return false;
  // Asked at most every 50 ms by the whole process, however many threads wait.
  static std::atomic<std::uint64_t> last_asked{0};
  const std::uint64_t now = record::monotonic_ns();
  std::uint64_t before = last_asked.load(std::memory_order_relaxed);
  if (now - before < 50000000 || !last_asked.compare_exchange_strong(before, now)) return false;
  const int fd = ::open(g_shared_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // another mount namespace, or removed: the 10 s rule decides
  struct stat st;
  const bool same_file = ::fstat(fd, &st) == 0 && st.st_dev == g_shared_device && st.st_ino == g_shared_inode;
  const bool unheld = same_file && ::flock(fd, LOCK_SH | LOCK_NB) == 0;
  ::close(fd);  // and with it the lock just taken
  return unheld;
}

// How long a writer waits for room before it asks whether the recorder still lives.
constexpr std::uint64_t kAskIfRecorderLivesNs = 20000000;

void append_finished(const CallRecord& call) {
  record::SharedHeader& s = *g_shared;
  std::uint64_t w = s.write_index.load(std::memory_order_relaxed);
  std::uint64_t waited_since = 0;
  int yields = 0;
  while (true) {
    // The recorder's limit is loaded only when the ring looks full from the last one seen: its
    // cache line stays with the recorder.
    if (w >= t_write_limit_seen) t_write_limit_seen = s.write_limit.load(std::memory_order_acquire);
    if (w >= t_write_limit_seen) {
      record::report_ring_full(s);
      // Full: the recorder is behind, or the ring still growing. Wait (nothing is lost), but not for a recorder
      // that has stopped draining: after ten seconds the call is dropped, and so are all later
      // ones at once (an orphaned child must not wait per call). Not one second: a recorder
      // on a loaded machine (ASan, CI) went that long without a core, and every later call
      // of the program was dropped.
      const std::uint64_t now = now_ns();
      if (!waited_since) waited_since = now;
      if (s.recorder_gone.load(std::memory_order_relaxed) || now - waited_since > 10000000000ull ||
          (now - waited_since > kAskIfRecorderLivesNs && recorder_died(s))) {
        s.recorder_gone.store(1, std::memory_order_relaxed);
        s.dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      // A few yields catch a drain already under way; then sleep, leaving the core to the
      // recorder (a program with busy threads on every core ran ten times slower spinning).
      if (++yields <= 4)
        ::sched_yield();
      else
        sleep_until_room(s, w);
      w = s.write_index.load(std::memory_order_relaxed);
      continue;
    }
    if (s.write_index.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) break;
  }
  // The layout version was checked at attach: the capacity is ours, a power of two (a mask,
  // not a 64-bit division on every call).
  record::RingEntry& entry = s.ring[w & (record::kRingCapacity - 1)];
  std::memcpy(static_cast<void*>(&entry.call), &call, offsetof(CallRecord, ring_seal));
  std::atomic_ref<std::uint32_t>(entry.call.ring_seal)
      .store(static_cast<std::uint32_t>(w + 1), std::memory_order_release);
  // An entry's lines were last read by the recorder, on another core: an ordinary store fetched
  // them back first, and the next locked instruction (OpenBLAS's own mutex, on every call) waited
  // for it: 100 ns a call with the recorder on another CCX. Fetched now, for writing (PREFETCHW:
  // GCC's __builtin_prefetch fetches for reading only without -mprfchw), the next calls' entries
  // come while the program works.
#if defined(__x86_64__)
  if (g_prefetch_for_writing) {
    const auto* ahead = reinterpret_cast<const char*>(&s.ring[(w + kPrefetchAhead) & (record::kRingCapacity - 1)]);
    asm volatile("prefetchw %0" ::"m"(*ahead));
    asm volatile("prefetchw %0" ::"m"(*(ahead + 64)));
  }
#endif
}

// The slot's entry being written is complete: the version goes back to even.
void close_version(record::ActiveSlot& slot) {
  const std::uint32_t version = slot.version.load(std::memory_order_relaxed);
  if (version & 1) slot.version.store(version + 1, std::memory_order_release);
}

}  // namespace

record::SharedHeader* shared() {
  return g_shared;
}

bool check_gemm_values() {
  return g_check_values;
}

std::uint64_t now_ns() {
  return record::monotonic_ns();
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

namespace {
// Held only to publish a resolved entry (nothing inside it waits): resolving itself runs
// unlocked, and two threads resolving the same caller at once find the same answer.
pthread_mutex_t g_publish_lock = PTHREAD_MUTEX_INITIALIZER;
__attribute__((constructor)) void reset_the_lock_in_forked_children() {
  ::pthread_atfork(nullptr, nullptr, [] { ::pthread_mutex_init(&g_publish_lock, nullptr); });
}

void publish(RealRoutine& routine, const CallerObject& caller, std::uintptr_t at, void* real) {
  ::pthread_mutex_lock(&g_publish_lock);
  const std::uint32_t n = routine.count.load(std::memory_order_relaxed);
  if (cached_real(routine, at)) {
    // published meanwhile by another thread
  } else if (n < RealRoutine::kCallers) {
    RealRoutine::Caller& entry = routine.callers[n];
    entry.begin.store(caller.begin, std::memory_order_relaxed);
    entry.end.store(caller.end, std::memory_order_relaxed);
    entry.real.store(real, std::memory_order_relaxed);
    routine.count.store(n + 1, std::memory_order_release);
  } else {
    routine.overflow.store(real, std::memory_order_release);
  }
  ::pthread_mutex_unlock(&g_publish_lock);
}
}  // namespace

void* resolve_real(RealRoutine& routine, const char* name, std::uintptr_t at) {
  CallerObject caller;
  void* found = definition_for(name, at, ::dlsym(RTLD_DEFAULT, name), caller);
  if (found) {
    publish(routine, caller, at, found);
    mark_blas_found(name, found);
    return found;
  }
  std::fprintf(stderr, "blasscope-preload: the real %s is not in any loaded library; the call cannot go on\n", name);
  std::abort();
}

namespace {
// Ids come in blocks per thread: unique across threads and processes without a shared counter
// on every call. Every call takes one as it starts, listed or not: their order is the calls'.
inline std::uint64_t next_call_id() {
  if (t_next_id == t_id_end) {
    t_next_id = g_shared->next_call_id.fetch_add(kIdBlock, std::memory_order_relaxed) + 1;
    t_id_end = t_next_id + kIdBlock;
  }
  return t_next_id++;
}
}  // namespace

std::uint64_t thread_call_mark() {
  return t_next_id;
}

CallScope::CallScope(Routine routine, Precision precision, std::uint64_t id) : call(place_call()) {
  if (!m_active) return;
  call.routine = routine;
  call.precision = precision;
  call.pid = g_pid;
  call.tid = thread_id();
  call.id = t_levels[m_level].id = id ? id : next_call_id();
  call.parent = m_level ? t_levels[m_level - 1].id : 0;
}

// A record as CallRecord{} makes it, in eight 16-byte stores: the compiler's `rep stos` took
// half of place_call's time (its start-up costs more than 128 bytes of stores).
namespace {
CallRecord& cleared(CallRecord& record) {
#if defined(__SSE2__)
  static_assert(sizeof(CallRecord) == 128 && std::is_trivially_copyable_v<CallRecord>);
  auto* bytes = reinterpret_cast<unsigned char*>(&record);
  const __m128i zero = _mm_setzero_si128();
  for (int i = 0; i < 8; ++i) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes + 16 * i), zero);
    asm("" : "+r"(bytes));  // opaque: GCC turned the stores back into a memset, and that into `rep stos`
  }
  record.precision = Precision::D;  // CallRecord's one default that is not zero
#else
  record = CallRecord{};
#endif
  return record;
}
}  // namespace

// Decides where this call is written: the next entry of the thread's slot, or m_local when
// the thread has no slot or the calls are nested deeper than a slot publishes.
CallRecord& CallScope::place_call() {
  if (!g_shared) return *::new (&m_local) CallRecord{};
  // Scopes deeper in the stack than this one were left without their destructor (an xerbla
  // that longjmp'ed past them): they are gone, not callers.
  const auto frame = reinterpret_cast<std::uintptr_t>(this);
  while (t_depth > 0 && reinterpret_cast<std::uintptr_t>(t_levels[t_depth - 1].scope) < frame) --t_depth;
  if (t_depth == kTrackedLevels) return *::new (&m_local) CallRecord{};  // not recorded
  t_quiet.running = false;  // none is: one left by a longjmp from a signal handler is gone
  m_active = true;
  m_level = t_depth++;
  t_levels[m_level] = RunningLevel{this, 0, 0, 0, false, false};
  m_index = m_level ? ++t_inside_count : (t_inside_count = 0);
  record::ActiveSlot* slot = my_slot();
  if (!slot || m_level >= record::kSlotDepth) return cleared(*::new (&m_local) CallRecord);
  m_slot = slot;
  m_pid = g_pid;
  // One writer per slot (its thread): the version is odd while the entry is rewritten, so
  // the recorder never takes half of an old call and half of a new one.
  slot->depth.store(m_level, std::memory_order_relaxed);
  slot->version.store(slot->version.load(std::memory_order_relaxed) | 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  return cleared(slot->stack[m_level]);
}

void CallScope::begin() {
  if (!m_active) return;
  call.start_ns = record::read_call_clock(g_clock);  // before publishing: a hang reports how long it ran
  if (m_slot) {
    m_slot->depth.store(m_level + 1, std::memory_order_relaxed);
    close_version(*m_slot);
  }
}

void CallScope::restart_clock() {
  if (m_active) call.start_ns = record::read_call_clock(g_clock);
}

// Inline: a call out of the destructor costs a nested call (an SVD makes thousands) a tenth
// of its recording.
inline bool CallScope::listed() const {
  if (m_level == 0 || m_index <= g_nested_limit || t_levels[m_level].child_listed || record::needed_one_by_one(call)) {
    return true;
  }
  // Set by the recorder once it has timed the TSC against the monotonic clock (0 until then).
  const std::uint64_t long_call = g_shared->long_call_ticks.load(std::memory_order_relaxed);
  return long_call && call.duration_ns >= long_call;
}

bool CallScope::failed() const {
  return record::call_failed(call);
}

bool CallScope::failed_here_or_inside() const {
  return failed() || (m_active && t_levels[m_level].child_failed);
}

namespace {
// The clock since `start` (0 where the call never began: no start to count from). A call that
// moved to another CPU may read a TSC a little behind the one it started on: 0, not 2^64 - 1.
inline std::uint64_t elapsed_since(std::uint64_t start) {
  const std::uint64_t now = record::read_call_clock(g_clock);
  return start && now > start ? now - start : 0;
}
}  // namespace

void CallScope::stop_clock() {
  call.duration_ns = elapsed_since(call.start_ns);
  m_ended = true;
}

void CallScope::took(const QuietCall& quiet) {
  if (!m_active) return;
  call.start_ns = quiet.m_start;
  call.duration_ns = quiet.m_duration;
  m_ended = true;
  if (t_quiet_report.seen) {
    set_xerbla(call, t_quiet_report.routine, t_quiet_report.length, t_quiet_report.parameter);
    t_quiet_report.seen = false;
  }
}

bool QuietCall::start(Routine routine, Precision precision) {
  // Only inside a recorded call whose thread publishes in a slot (its totals are there), and
  // not inside another quiet one (a BLAS whose GEMV calls its GEMM by the exported name).
  if (t_depth == 0 || t_depth >= kTrackedLevels || !t_slot || t_quiet.running || t_inside_count + 1 <= g_nested_limit) {
    return false;
  }
  // Callers deeper in the stack than this call were left by a longjmp (see place_call).
  const auto frame = reinterpret_cast<std::uintptr_t>(this);
  while (t_depth > 0 && reinterpret_cast<std::uintptr_t>(t_levels[t_depth - 1].scope) < frame) --t_depth;
  if (t_depth == 0) return false;
  ++t_inside_count;
  m_level = t_depth;
  m_slot = t_slot;
  m_id = next_call_id();
  t_quiet_report.seen = false;
  m_start = record::read_call_clock(g_clock);
  t_quiet = {true, m_level, routine, precision, m_id, m_start};
  return true;
}

bool QuietCall::finish(Routine routine, Precision precision, std::uint64_t flops) {
  m_duration = elapsed_since(m_start);
  t_quiet.running = false;
  const std::uint64_t long_call = g_shared->long_call_ticks.load(std::memory_order_relaxed);
  // Recorded after all where it is needed one by one, or where the thread changed under it (a
  // fork in it: the child has another slot).
  if (t_quiet_report.seen || (long_call && m_duration >= long_call) || t_depth != m_level || t_slot != m_slot) {
    --t_inside_count;  // the CallScope that records it counts it again
    return false;
  }
  // What ~CallScope does for a call that is only counted, on the thread's slot.
  RunningLevel& up = t_levels[m_level - 1];
  up.children_ns += m_duration;
  if (up.unlisted != UINT32_MAX) ++up.unlisted;
  if (m_level - 1 < record::kSlotDepth) t_slot->stack[m_level - 1].unlisted = up.unlisted;
  record::RoutineTotals& t = t_slot->totals[static_cast<std::uint32_t>(routine)][static_cast<std::uint32_t>(precision)];
  const auto add = [](std::atomic<std::uint64_t>& counter, std::uint64_t v) {
    counter.store(counter.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
  };
  add(t.calls, 1);
  add(t.nanoseconds, m_duration);
  add(t.self_nanoseconds, m_duration);
  if (flops) add(t.flops, flops);
  if (m_duration > t.longest.load(std::memory_order_relaxed)) t.longest.store(m_duration, std::memory_order_relaxed);
  return true;
}

bool QuietCall::take_report(const char* routine, std::size_t length, int parameter) {
  if (!t_quiet.running) return false;
  QuietReport& r = t_quiet_report;
  r.length = std::min(length, sizeof r.routine);
  std::memcpy(r.routine, routine, r.length);
  r.parameter = parameter;
  r.seen = true;
  // Published as running with its report, as a recorded call is: where the real xerbla never
  // returns (it aborts, it exits), the recorder still sees which call it reported. The record
  // made when the call returns (finish(), then a CallScope) takes this entry over.
  const QuietRunning& q = t_quiet;
  if (t_slot && q.level < record::kSlotDepth) {
    record::ActiveSlot& slot = *t_slot;
    slot.version.store(slot.version.load(std::memory_order_relaxed) | 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    CallRecord& c = cleared(slot.stack[q.level]);
    c.routine = q.routine, c.precision = q.precision, c.pid = g_pid, c.tid = thread_id();
    c.id = q.id, c.parent = t_levels[q.level - 1].id, c.start_ns = q.start;
    set_xerbla(c, routine, length, parameter);
    slot.depth.store(q.level + 1, std::memory_order_relaxed);
    close_version(slot);
  }
  return true;
}

CallScope::~CallScope() {
  if (!m_active) return;
  if (!m_ended) call.duration_ns = elapsed_since(call.start_ns);  // stop_clock(), inline
  const RunningLevel& mine = t_levels[m_level];
  t_depth = m_level;               // this call has returned (and any deeper ones a longjmp left with it)
  if (m_slot && m_pid == g_pid) {  // a child forked inside this call leaves the parent's slot alone
    close_version(*m_slot);        // in case begin() never ran
    m_slot->depth.store(m_level, std::memory_order_release);  // no longer running
  }
  call.unlisted = mine.unlisted;
  const bool one_by_one = listed();
  if (m_level > 0) {
    RunningLevel& up = t_levels[m_level - 1];
    up.children_ns += call.duration_ns;
    if (record::call_failed(call) || mine.child_failed) up.child_failed = true;
    if (one_by_one) {
      up.child_listed = true;  // the call it was made in is in the session too
    } else {
      up.unlisted = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(std::uint64_t{up.unlisted} + 1 + call.unlisted, UINT32_MAX));
      // Published, the caller's record says so while it runs: a hang stopped by --timeout or a
      // crash still accounts for the calls made inside it.
      if (t_slot && m_level - 1 < record::kSlotDepth) t_slot->stack[m_level - 1].unlisted = up.unlisted;
    }
  }
  const auto r = static_cast<std::uint32_t>(call.routine), p = static_cast<std::uint32_t>(call.precision);
  const std::uint64_t self_ns = call.duration_ns - std::min(call.duration_ns, mine.children_ns);
  // A call that failed did not do the work its sizes say (POTRF stops at the first minor that
  // is not positive definite): it adds no FLOPs.
  const std::uint64_t flops = record::has_xerbla(call) || call.info != 0 ? 0 : record::flops_of(call);
  const std::uint64_t failures = failed() ? 1 : 0;
  if (record::ActiveSlot* slot = my_slot()) {
    // This thread is the slot's only writer: plain loads and stores, no locked instructions.
    record::RoutineTotals& t = slot->totals[r][p];
    const auto add = [](std::atomic<std::uint64_t>& counter, std::uint64_t v) {
      counter.store(counter.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
    };
    add(t.calls, 1);
    add(t.nanoseconds, call.duration_ns);
    add(t.self_nanoseconds, self_ns);
    if (failures) add(t.failures, 1);
    if (flops) add(t.flops, flops);
    if (call.flags & record::kWorkspaceQuery) add(t.queries, 1), add(t.query_nanoseconds, call.duration_ns);
    // The longest call that did work: a workspace query's microseconds are no measure of a hang.
    if (!(call.flags & record::kWorkspaceQuery) && call.duration_ns > t.longest.load(std::memory_order_relaxed)) {
      t.longest.store(call.duration_ns, std::memory_order_relaxed);
    }
  } else {
    record::RoutineTotals& t = g_shared->totals[r][p];
    t.calls.fetch_add(1, std::memory_order_relaxed);
    t.nanoseconds.fetch_add(call.duration_ns, std::memory_order_relaxed);
    t.self_nanoseconds.fetch_add(self_ns, std::memory_order_relaxed);
    if (failures) t.failures.fetch_add(1, std::memory_order_relaxed);
    if (flops) t.flops.fetch_add(flops, std::memory_order_relaxed);
    if (call.flags & record::kWorkspaceQuery) {
      t.queries.fetch_add(1, std::memory_order_relaxed);
      t.query_nanoseconds.fetch_add(call.duration_ns, std::memory_order_relaxed);
    }
    for (std::uint64_t longest = t.longest.load(std::memory_order_relaxed);
         !(call.flags & record::kWorkspaceQuery) && call.duration_ns > longest;) {
      if (t.longest.compare_exchange_weak(longest, call.duration_ns, std::memory_order_relaxed)) break;
    }
  }
  if (one_by_one) {
    append_finished(call);
  }
}

CallScope* CallScope::innermost() {
  return t_depth ? t_levels[t_depth - 1].scope : nullptr;
}

std::uint32_t CallScope::forget_running() {
  const std::uint32_t depth = t_depth;
  t_depth = 0;
  t_quiet.running = false;  // left too (its report, if any, is kept for its finish())
  return depth;
}

void CallScope::resume_running(std::uint32_t depth) {
  t_depth = depth;
}

std::uint8_t alignment_code(const void* p) {
  const auto v = reinterpret_cast<std::uintptr_t>(p);
  return static_cast<std::uint8_t>(1 + (v == 0 ? 12 : std::min(12, __builtin_ctzll(v))));
}

namespace {
// `elements` values of `reals` parts each (2: complex), counted once per value: a complex NaN is
// one NaN whichever part holds it, and one with a NaN and an Inf part is NaN.
template <typename Real>
void count_values(const Real* values, std::size_t elements, int reals, std::uint64_t& nans, std::uint64_t& infs) {
  if (reals == 1) return count_nonfinite_run(values, elements, nans, infs);
  std::uint64_t parts_nan = 0, parts_inf = 0;
  count_nonfinite_run(values, elements * 2, parts_nan, parts_inf);  // vectorised: most runs hold none
  if (parts_nan + parts_inf == 0) return;
  for (std::size_t e = 0; e < elements; ++e) {
    const Real re = values[2 * e], im = values[2 * e + 1];
    if (std::isnan(re) || std::isnan(im)) {
      ++nans;
    } else if (std::isinf(re) || std::isinf(im)) {
      ++infs;
    }
  }
}
}  // namespace

template <typename Real>
void count_nonfinite(const void* data, std::int64_t m, std::int64_t n, std::int64_t ld, int reals, std::uint32_t& nan,
                     std::uint32_t& inf) {
  if (!data || m <= 0 || n <= 0 || ld < m) return;
  const Real* base = static_cast<const Real*>(data);
  std::uint64_t nans = 0, infs = 0;
  if (ld == m) {
    count_values(base, static_cast<std::size_t>(m * n), reals, nans, infs);  // one run, no gaps
  } else {
    for (std::int64_t j = 0; j < n; ++j)
      count_values(base + j * ld * reals, static_cast<std::size_t>(m), reals, nans, infs);
  }
  nan = static_cast<std::uint32_t>(std::min<std::uint64_t>(nan + nans, UINT32_MAX));
  inf = static_cast<std::uint32_t>(std::min<std::uint64_t>(inf + infs, UINT32_MAX));
}

template void count_nonfinite<float>(const void*, std::int64_t, std::int64_t, std::int64_t, int, std::uint32_t&,
                                     std::uint32_t&);
template void count_nonfinite<double>(const void*, std::int64_t, std::int64_t, std::int64_t, int, std::uint32_t&,
                                      std::uint32_t&);

}  // namespace blasscope::preload
