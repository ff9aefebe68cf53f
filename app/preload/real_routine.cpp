// Finding the real routine behind an interposed name, once per calling library.
#include <dlfcn.h>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

#include "preload_runtime.h"
#include "symbol_binding.h"

namespace blasscope::preload {

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

}  // namespace blasscope::preload
