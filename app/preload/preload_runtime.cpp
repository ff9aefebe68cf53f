#include "preload_runtime.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>
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
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "nonfinite_scan.h"
#include "record/call_flops.h"
#include "runtime_state.h"

namespace blasscope::preload {
namespace {
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

}  // namespace

// Whether the recorder has died (SIGKILL, the OOM killer): it holds the shared file locked while
// it lives, and the kernel lets the lock go however it ends. Asked only of a writer that has
// waited for room a while (a dead recorder would otherwise keep the program waiting ten
// seconds), and of a new process not yet watched (wait_until_watched).
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

namespace {
// How long a writer waits for room before it asks whether the recorder still lives.
constexpr std::uint64_t kAskIfRecorderLivesNs = 20000000;

// Adds a finished call to its routine's totals: on its thread's slot, whose only writer this
// thread is (plain loads and stores, no locked instructions), else on the shared ones.
// `counted`: the call itself is counted already (see kCountedByRecorder), the rest is not.
void add_to_totals(const CallRecord& call, std::uint64_t self_ns, bool counted = false) {
  record::CallCount n = record::count_of(call, self_ns);
  if (counted) n.calls = 0;
  const auto r = static_cast<std::uint32_t>(call.routine), p = static_cast<std::uint32_t>(call.precision);
  if (record::ActiveSlot* slot = my_slot()) {
    record::RoutineTotals& t = slot->totals[r][p];
    const auto add = [](std::atomic<std::uint64_t>& counter, std::uint64_t v) {
      counter.store(counter.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
    };
    if (n.calls) add(t.calls, n.calls);
    add(t.nanoseconds, n.nanoseconds);
    add(t.self_nanoseconds, n.self_nanoseconds);
    if (n.failures) add(t.failures, n.failures);
    if (n.flops) add(t.flops, n.flops);
    if (n.queries) add(t.queries, n.queries), add(t.query_nanoseconds, n.query_nanoseconds);
    if (n.longest > t.longest.load(std::memory_order_relaxed)) t.longest.store(n.longest, std::memory_order_relaxed);
    return;
  }
  record::RoutineTotals& t = g_shared->totals[r][p];
  if (n.calls) t.calls.fetch_add(n.calls, std::memory_order_relaxed);
  t.nanoseconds.fetch_add(n.nanoseconds, std::memory_order_relaxed);
  t.self_nanoseconds.fetch_add(n.self_nanoseconds, std::memory_order_relaxed);
  if (n.failures) t.failures.fetch_add(n.failures, std::memory_order_relaxed);
  if (n.flops) t.flops.fetch_add(n.flops, std::memory_order_relaxed);
  if (n.queries) {
    t.queries.fetch_add(n.queries, std::memory_order_relaxed);
    t.query_nanoseconds.fetch_add(n.query_nanoseconds, std::memory_order_relaxed);
  }
  for (std::uint64_t longest = t.longest.load(std::memory_order_relaxed); n.longest > longest;) {
    if (t.longest.compare_exchange_weak(longest, n.longest, std::memory_order_relaxed)) break;
  }
}

void append_finished(CallRecord& call) {
  record::SharedHeader& s = *g_shared;
  std::uint64_t w = s.write_index.load(std::memory_order_relaxed);
  std::uint64_t waited_since = 0;
  int yields = 0;
  while (true) {
    // The recorder's limit is loaded only when the ring looks full from the last one seen: its
    // cache line stays with the recorder.
    if (w >= t_write_limit_seen) t_write_limit_seen = s.write_limit.load(std::memory_order_acquire);
    if (w >= t_write_limit_seen) {
      // A call the recorder was to count is counted here: it may never reach the ring (the
      // program is stopped while it waits, the recorder is gone).
      if (call.flags & record::kCountedByRecorder) {
        call.flags &= static_cast<std::uint16_t>(~record::kCountedByRecorder);
        add_to_totals(call, call.duration_ns, true);
      }
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

// In a forked child only the forking thread exists: it gets a new id and a new slot.
void forget_thread_after_fork() {
  t_tid = 0;
  t_slot = nullptr;
  t_no_slot = false;
  t_depth = 0;
  t_quiet.running = false;
  t_next_id = t_id_end = 0;  // the parent's block of ids stays the parent's
  t_write_limit_seen = 0;
  ::pthread_setspecific(g_slot_key, nullptr);  // the parent's slot stays the parent's
}

std::uint64_t now_ns() {
  return record::monotonic_ns();
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
  // Not recording (no recorder, or paused): cleared all the same, for wrappers that read it
  // either way, but by cleared(), not `rep stos`.
  if (!g_shared || g_shared->paused.load(std::memory_order_relaxed)) return cleared(*::new (&m_local) CallRecord);
  // Scopes deeper in the stack than this one were left without their destructor (an xerbla
  // that longjmp'ed past them): they are gone, not callers.
  const auto frame = reinterpret_cast<std::uintptr_t>(this);
  while (t_depth > 0 && reinterpret_cast<std::uintptr_t>(t_levels[t_depth - 1].scope) < frame) --t_depth;
  if (t_depth == kTrackedLevels) return cleared(*::new (&m_local) CallRecord);  // not recorded
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
  // A top-level call that made no recorded call (a program's own GEMM, the common case): the
  // recorder adds its time, FLOPs and failure as it drains it, and its per-call path is the
  // shorter by them. Counted here: a call whose writer dies before the ring has it is still one.
  if (m_level == 0 && t_inside_count == 0 && m_pid == g_pid) {
    std::atomic<std::uint64_t>& calls =
        m_slot->totals[static_cast<std::uint32_t>(call.routine)][static_cast<std::uint32_t>(call.precision)].calls;
    calls.store(calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    call.flags |= record::kCountedByRecorder;
    append_finished(call);
    return;
  }
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
  add_to_totals(call, call.duration_ns - std::min(call.duration_ns, mine.children_ns));
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
