#pragma once

// The runtime of the preload library: attaching to the recorder's shared file, finding the
// real BLAS/LAPACK symbols, and the per-call scope that records one call. The per-call path
// takes no lock and allocates nothing.
#include <cstdint>
#include <cstring>

#include "record/call_record.h"

namespace blasscope::preload {

using record::CallRecord;
using record::Precision;
using record::Routine;

// The recorder's shared file, or nullptr when this process is not being recorded.
record::SharedHeader* shared();
bool check_gemm_values();

// The real routines behind one interposed name, by calling library: two libraries may bind the
// same name to different definitions (each NumPy module that loads a LAPACK its own xerbla_,
// MKL beside OpenBLAS). Entries are published once, complete, then never change.
struct RealRoutine {
  static constexpr std::uint32_t kCallers = 16;
  struct Caller {
    std::atomic<std::uintptr_t> begin{0}, end{0};  // the calling object's addresses
    std::atomic<void*> real{nullptr};
  };
  Caller callers[kCallers];
  std::atomic<std::uint32_t> count{0};
  std::atomic<void*> overflow{nullptr};  // for callers past kCallers: the first of them's
};

// What a call returning to `at` forwards to, if already resolved.
inline void* cached_real(const RealRoutine& routine, std::uintptr_t at) {
  const std::uint32_t n = routine.count.load(std::memory_order_acquire);
  for (std::uint32_t i = 0; i < n; ++i) {
    const RealRoutine::Caller& c = routine.callers[i];
    const std::uintptr_t begin = c.begin.load(std::memory_order_relaxed);
    if (at - begin < c.end.load(std::memory_order_relaxed) - begin) return c.real.load(std::memory_order_relaxed);
  }
  return n == RealRoutine::kCallers ? routine.overflow.load(std::memory_order_acquire) : nullptr;
}

// Resolves `name` for a call returning to `at` (as the dynamic linker would have bound it for
// that caller, see symbol_binding.h) and caches it; aborts with a message naming it where no
// loaded library defines it: a call we cannot forward must not silently do nothing.
void* resolve_real(RealRoutine& routine, const char* name, std::uintptr_t at);

}  // namespace blasscope::preload

// A routine the program looked up with dlsym on a library's handle (ctypes, dlopen + dlsym):
// it got a stub (dlsym_wrapper.cpp) that points this thread's blasscope_handed_out at the entry
// and jumps to our wrapper, which forwards to `real`, the definition that handle gave, whoever
// calls it. Taken by the first wrapper to run, and only if it is the one named.
struct BlasscopeHandedOut {
  void* real;
  void* ours;
  char name[48];
};
extern "C" __attribute__((visibility("hidden"))) __thread const BlasscopeHandedOut* blasscope_handed_out;

namespace blasscope::preload {

inline void* take_handed_out(const char* name) {
  const BlasscopeHandedOut* handed = blasscope_handed_out;
  if (__builtin_expect(handed == nullptr, 1)) return nullptr;
  blasscope_handed_out = nullptr;
  return std::strcmp(handed->name, name) == 0 ? handed->real : nullptr;
}

// The real routine for this call. A GNU statement expression, not a lambda: the return
// address must be the interposed function's own (so never use it inside a lambda).
#define BLASSCOPE_REAL(type, name)                                                                                 \
  __extension__({                                                                                                  \
    static ::blasscope::preload::RealRoutine routine_;                                                             \
    const auto at_ = reinterpret_cast<std::uintptr_t>(__builtin_extract_return_addr(__builtin_return_address(0))); \
    void* real_ = ::blasscope::preload::take_handed_out(name);                                                     \
    if (!real_) real_ = ::blasscope::preload::cached_real(routine_, at_);                                          \
    if (!real_) real_ = ::blasscope::preload::resolve_real(routine_, name, at_);                                   \
    reinterpret_cast<type>(real_);                                                                                 \
  })

std::uint64_t now_ns();

// That the program reached `name`, defined at `real` (names the BLAS from its library).
void mark_blas_found(const char* name, void* real);

// Writes how this process ended into its entry (the first end said counts): exit() and
// _exit() are interposed for it, since a child's status is not the recorder's to wait for.
void note_process_end(record::ProcessEnd end, int status);

class CallScope;

// A leaf BLAS call (one that makes no recorded call itself) made inside a recorded call past
// its nested limit, where it would only be counted (in the totals and its caller's `unlisted`):
// timed and counted without a record of its own, for less than half a CallScope's instructions
// (an SVD makes two thousand nested GEMVs). One that turns out to be needed one by one after
// all (xerbla reported it, it ran long) is then recorded by a CallScope (took()).
// While it runs, the recorder sees its caller as the call running: a crash or a hang in it is
// named after that one (a call xerbla reported is published from then on, see take_report).
class QuietCall {
  record::ActiveSlot* m_slot = nullptr;  // the thread's, when it started
  std::uint64_t m_id = 0;
  std::uint64_t m_start = 0;
  std::uint64_t m_duration = 0;
  std::uint32_t m_level = 0;  // its caller's level + 1
  friend class CallScope;

 public:
  // Whether this call is a quiet one; if so it is under way, and finish() follows the real call.
  // Not inline: it reads the runtime's thread-locals.
  bool start(Routine routine, Precision precision);
  std::uint64_t id() const { return m_id; }
  // Counts the call that just returned; false where it is to be recorded after all.
  bool finish(Routine routine, Precision precision, std::uint64_t flops);
  // xerbla's report, where a quiet call is running on this thread: kept for it (true).
  static bool take_report(const char* routine, std::size_t length, int parameter);
};

// One recorded call: fill `call` between construction and begin(). Calls made inside it (a
// LAPACK driver's GEMMs, its DLASCL, xerbla) see it as their parent. `call` is written in
// place in the thread's slot of the shared file, where the recorder sees it while it runs.
class CallScope {
  // Declared before `call`, which place_call() initialises from them.
  // The call when it is not published in a slot. A variant member, so that it is not zeroed on
  // every call (128 bytes) when the slot's entry is used: place_call() constructs it when not.
  union {
    CallRecord m_local;
  };
  record::ActiveSlot* m_slot = nullptr;  // where `call` is published, if it is
  std::uint32_t m_level = 0;             // nesting depth on this thread, 0 for a top-level call
  std::uint32_t m_pid = 0;               // the process that published it in m_slot
  bool m_active = false;
  bool m_ended = false;       // the clock stopped (end())
  std::uint64_t m_index = 0;  // 1 for the first call made inside its top-level call, 2 for the next...
  // What the calls made inside this one add up (their time, failures, ...) is kept per nesting
  // level in thread-local storage, never in the caller's frame: a caller left by a longjmp is a
  // dead frame, by then the program's own stack.

 public:
  // `id`: one the call took already (a QuietCall's), else 0.
  CallScope(Routine routine, Precision precision, std::uint64_t id = 0);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool recording() const { return m_active; }
  CallRecord& call;
  // Marks the call as running now (publishes it in the active table) and starts its clock.
  void begin();
  // Starts its clock again, after work of the recorder's own between begin() and the real call
  // (value scans, captures: a crash in them is still the call's, their time is not).
  void restart_clock();
  // Stops its clock when the real routine returns: what the recorder does after it (scans of
  // the result, captures) is not the call's time. The destructor does it otherwise.
  void end() {
    if (m_active && !m_ended) stop_clock();
  }
  // A quiet call recorded after all (see QuietCall), after begin(): its time and its report.
  void took(const QuietCall& quiet);
  // The innermost call running on this thread (for xerbla), or nullptr.
  static CallScope* innermost();
  // Around code that may leave the running calls' frames without their destructors (a real
  // xerbla that longjmps, as R's does): they are forgotten first, so that no later call takes a
  // dead frame for its caller, and resumed if it returns.
  static std::uint32_t forget_running();
  static void resume_running(std::uint32_t depth);
  // A failure that counts for the totals (INFO != 0, xerbla, non-finite output, a LAPACK call
  // that read NaN/Inf).
  bool failed() const;
  // This call or one it made failed (a DLASCL inside a DGELSD).
  bool failed_here_or_inside() const;

 private:
  CallRecord& place_call();
  void stop_clock();
  // Whether the finished call goes to the ring one by one (see SharedHeader::nested_limit).
  // Inline, defined in the one file that calls it: the destructor is the per-call path.
  inline bool listed() const;
};

// The next call id this thread hands out: it moves whenever the thread begins a recorded call,
// so a LAPACKE function that returned with it unmoved never reached LAPACK.
std::uint64_t thread_call_mark();

// The pointer's alignment as CallRecord holds it: 1 + log2 of the largest power of two dividing
// `p` (capped at 4096 bytes: 13).
std::uint8_t alignment_code(const void* p);

// Counts NaN and Inf in a column-major m x n matrix with leading dimension ld; `reals` is 2
// for complex (both parts are scanned). Saturates at 2^32-1.
template <typename Real>
void count_nonfinite(const void* data, std::int64_t m, std::int64_t n, std::int64_t ld, int reals, std::uint32_t& nan,
                     std::uint32_t& inf);

inline void set_xerbla(CallRecord& call, const char* routine, std::size_t length, int parameter) {
  call.xerbla_parameter = parameter;
  call.flags |= record::kXerbla;
  std::memset(call.xerbla_routine, 0, sizeof call.xerbla_routine);
  for (std::size_t i = 0; i < length && i < sizeof call.xerbla_routine && routine[i] && routine[i] != ' '; ++i) {
    call.xerbla_routine[i] = routine[i];
  }
}

inline std::int64_t deref(const void* p) {
  return p ? *static_cast<const int*>(p) : 0;
}

}  // namespace blasscope::preload
