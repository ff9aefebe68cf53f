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

// The real routine `name` (not ours), as the code at `caller` (a return address into the
// program) would have bound it without the preload library; aborts with a message naming it:
// a call we cannot forward must not silently do nothing.
void* real_symbol(const char* name, const void* caller);

// Resolves once, for the first caller, then returns the cached address. A GNU statement
// expression, not a lambda: the return address must be the interposed function's own.
#define BLASSCOPE_REAL(type, name)                                                                                  \
  __extension__({                                                                                                   \
    static std::atomic<void*> cached{nullptr};                                                                      \
    void* p = cached.load(std::memory_order_relaxed);                                                               \
    if (!p)                                                                                                         \
      cached.store(                                                                                                 \
          p = ::blasscope::preload::real_symbol(name, __builtin_extract_return_addr(__builtin_return_address(0)))); \
    reinterpret_cast<type>(p);                                                                                      \
  })

std::uint64_t now_ns();

// One recorded call: fill `call` between construction and begin(). Calls made inside it (a
// LAPACK driver's GEMMs, its DLASCL, xerbla) see it as their parent. `call` is written in
// place in the thread's slot of the shared file, where the recorder sees it while it runs.
class CallScope {
  // Declared before `call`, which place_call() initialises from them.
  // The call when it is not published in a slot. A variant member, so that it is not zeroed on
  // every call (120 bytes) when the slot's entry is used: place_call() constructs it when not.
  union {
    CallRecord m_local;
  };
  record::ActiveSlot* m_slot = nullptr;  // where `call` is published, if it is
  std::uint32_t m_level = 0;             // nesting depth on this thread, 0 for a top-level call
  std::uint32_t m_pid = 0;               // the process that published it in m_slot
  std::uint64_t m_id = 0;                // call.id, kept where a nested call can read it safely
  bool m_active = false;
  CallScope* m_parent = nullptr;
  std::uint64_t m_children_ns = 0;
  bool m_child_failed = false;

 public:
  CallScope(Routine routine, Precision precision);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool recording() const { return m_active; }
  CallRecord& call;
  // Marks the call as running now (publishes it in the active table) and starts its clock.
  void begin();
  // The innermost call running on this thread (for xerbla), or nullptr.
  static CallScope* innermost();
  // A failure that counts for the totals (INFO != 0, xerbla, non-finite output).
  bool failed() const;
  // This call or one it made failed (a DLASCL inside a DGELSD).
  bool failed_here_or_inside() const { return failed() || m_child_failed; }

 private:
  CallRecord& place_call();
};

// log2 of the largest power of two dividing `p` (capped at 12: 4096).
std::uint8_t alignment_log2(const void* p);

// Counts NaN and Inf in a column-major m x n matrix with leading dimension ld; `reals` is 2
// for complex (both parts are scanned). Saturates at 2^32-1.
template <typename Real>
void count_nonfinite(const void* data, std::int64_t m, std::int64_t n, std::int64_t ld, int reals, std::uint32_t& nan,
                     std::uint32_t& inf);

inline void set_xerbla(CallRecord& call, const char* routine, std::size_t length, int parameter) {
  call.xerbla_parameter = parameter;
  std::memset(call.xerbla_routine, 0, sizeof call.xerbla_routine);
  for (std::size_t i = 0; i < length && i < sizeof call.xerbla_routine && routine[i] && routine[i] != ' '; ++i) {
    call.xerbla_routine[i] = routine[i];
  }
}

inline std::int64_t deref(const void* p) {
  return p ? *static_cast<const int*>(p) : 0;
}

}  // namespace blasscope::preload
