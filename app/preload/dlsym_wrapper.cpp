// dlsym: a program that looks BLAS up by name at run time (Python's ctypes and cffi, a C
// program's dlopen + dlsym, TensorFlow's cuBLAS loader) gets the library's own function, never
// ours: dlsym on a handle searches that library's tree, where the preload library is not. For
// the names we record, dlsym hands out a stub instead, one per definition: it tells our wrapper
// which definition to forward to (blasscope_handed_out, see preload_runtime.h) and jumps to it,
// so a call through it is recorded and runs exactly what the handle gave, whoever makes it and
// whatever is loaded or unloaded since.
//
// glibc's dlsym takes its caller from its return address (RTLD_NEXT means "after the caller's
// object", RTLD_DEFAULT searches the caller's scope), so the entry point is a few instructions
// that jump, never call: the real dlsym, or the handle lookup below, returns straight to the
// program with its caller unchanged.
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "preload_runtime.h"
#include "symbol_binding.h"

__thread const BlasscopeHandedOut* blasscope_handed_out = nullptr;

#if defined(__x86_64__) && defined(__linux__)

namespace {
using Dlsym = void* (*)(void*, const char*);

// The names the preload records calls of: Fortran BLAS/LAPACK (and xerbla_), CBLAS, LAPACKE,
// cuBLAS and the CUDA runtime. Not the process wrappers (exec, exit, dlsym itself).
bool recorded_name(const char* name) {
  const std::size_t n = std::strlen(name);
  if (n > 1 && name[n - 1] == '_' && name[0] != '_') return true;
  static const char* const prefixes[] = {"cblas_", "LAPACKE_", "cublas", "cuda"};
  for (const char* prefix : prefixes) {
    if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

// This library's mapped range, found once.
struct Range {
  std::uintptr_t begin = 0, end = 0;
};

Range this_library() {
  static const Range range = [] {
    Range r;
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<const void*>(&recorded_name), &info)) return r;
    struct Search {
      std::uintptr_t base;
      Range* found;
    } search{reinterpret_cast<std::uintptr_t>(info.dli_fbase), &r};
    ::dl_iterate_phdr(
        [](dl_phdr_info* object, size_t, void* data) -> int {
          auto& s = *static_cast<Search*>(data);
          if (object->dlpi_addr != s.base) return 0;
          for (ElfW(Half) i = 0; i < object->dlpi_phnum; ++i) {
            const ElfW(Phdr)& segment = object->dlpi_phdr[i];
            if (segment.p_type != PT_LOAD) continue;
            const std::uintptr_t begin = object->dlpi_addr + segment.p_vaddr, end = begin + segment.p_memsz;
            s.found->begin = s.found->end == 0 ? begin : std::min(s.found->begin, begin);
            s.found->end = std::max(s.found->end, end);
          }
          return 1;
        },
        &search);
    return r;
  }();
  return range;
}

bool inside_this_library(const void* address) {
  const Range r = this_library();
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  return a >= r.begin && a < r.end;
}

constexpr std::size_t kStubs = 1024;    // as many as the asm below makes
constexpr std::size_t kStubBytes = 32;  // each aligned so (.p2align 5)
}  // namespace

extern "C" {
__attribute__((visibility("hidden"), used)) Dlsym blasscope_real_dlsym = nullptr;
// Read by the stubs: stub i hands out entry i.
__attribute__((visibility("hidden"), used)) BlasscopeHandedOut blasscope_stub_table[kStubs];
__attribute__((visibility("hidden"))) extern const char blasscope_stubs[];
}

namespace {
pthread_mutex_t g_stubs_lock = PTHREAD_MUTEX_INITIALIZER;
std::size_t g_stubs_used = 0;

__attribute__((constructor)) void reset_the_lock_in_forked_children() {
  ::pthread_atfork(nullptr, nullptr, [] { ::pthread_mutex_init(&g_stubs_lock, nullptr); });
}

// A failed lookup's error for dlerror(), naming the symbol (glibc's own words; they name the C
// library where it names the object searched), for a lookup that finds nothing without the
// preload. The C library's handle is taken once and kept (it is never unloaded): a dlclose
// after the lookup would clear the error.
void* not_found(const char* name, Dlsym real_dlsym) {
  static void* const libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (libc) real_dlsym(libc, name);
  return nullptr;
}

// A lookup that finds something clears the error an earlier one left, as glibc's does: our own
// lookups on the way may have failed.
void* found_after_all(void* found) {
  ::dlerror();
  return found;
}

// Our wrapper for `name`, or nullptr: looked up in this library's own tree, not the global
// scope, which would make the library defining a name we do not wrap impossible to unload
// (glibc marks what a preloaded object's RTLD_DEFAULT lookup finds NODELETE) and, failing,
// leave an error for the program's dlerror().
void* our_definition(const char* name, Dlsym real_dlsym) {
  static void* const self = [] {
    Dl_info info{};
    return ::dladdr(reinterpret_cast<const void*>(&recorded_name), &info) && info.dli_fname
               ? ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)
               : nullptr;
  }();
  if (!self || !recorded_name(name)) return nullptr;
  void* found = real_dlsym(self, name);
  return found && inside_this_library(found) ? found : nullptr;
}

// The stub that forwards to `real` through our wrapper `ours`, made once per pair; nullptr
// where all are taken (then the definition's calls go unrecorded).
void* stub_for(void* real, void* ours, const char* name) {
  if (std::strlen(name) >= sizeof blasscope_stub_table[0].name) return nullptr;
  ::pthread_mutex_lock(&g_stubs_lock);
  std::size_t i = 0;
  while (i < g_stubs_used && !(blasscope_stub_table[i].real == real && blasscope_stub_table[i].ours == ours)) ++i;
  if (i == g_stubs_used && i < kStubs) {
    BlasscopeHandedOut& entry = blasscope_stub_table[i];
    entry.real = real;
    entry.ours = ours;
    std::strcpy(entry.name, name);
    ++g_stubs_used;
  }
  ::pthread_mutex_unlock(&g_stubs_lock);
  if (i == kStubs) return nullptr;
  blasscope::preload::mark_blas_found(name, real);
  return const_cast<char*>(blasscope_stubs + kStubBytes * i);
}
}  // namespace

extern "C" {

// Where the entry point finds the real dlsym at its first use (before our constructors, a
// library's constructor may look names up already).
__attribute__((visibility("hidden"), used)) Dlsym blasscope_find_real_dlsym() {
  void* real = ::dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (!real) real = ::dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  if (!real) {
    std::fputs("blasscope-preload: the C library's dlsym was not found\n", stderr);
    std::abort();
  }
  __atomic_store_n(&blasscope_real_dlsym, reinterpret_cast<Dlsym>(real), __ATOMIC_RELEASE);
  return reinterpret_cast<Dlsym>(real);
}

// dlsym on a handle (the caller does not change what it finds): for a name we wrap, the stub
// for the definition the handle gives. A handle whose scope holds this library (the program's
// own, dlopen(NULL)) gives our wrapper: then the definition after ours in that scope, the one
// it would give without the preload, or NULL and an error where there is none.
__attribute__((visibility("hidden"), used, noinline)) void* blasscope_dlsym_on_handle(void* handle, const char* name) {
  void* const found = blasscope_real_dlsym(handle, name);
  const void* const caller = __builtin_extract_return_addr(__builtin_return_address(0));
  if (!found || !name || !recorded_name(name) || inside_this_library(caller)) return found;
  void* const ours = our_definition(name, blasscope_real_dlsym);
  if (!ours) return found_after_all(found);
  void* const real = inside_this_library(found) ? blasscope_real_dlsym(RTLD_NEXT, name) : found;
  if (!real) return not_found(name, blasscope_real_dlsym);
  void* const stub = stub_for(real, ours, name);
  return found_after_all(stub ? stub : found);
}

// Whether dlsym(RTLD_DEFAULT) of `name` is ours to answer: a name we wrap. Any other goes to
// glibc from the entry point, with the program's scope.
__attribute__((visibility("hidden"), used)) int blasscope_is_recorded_name(const char* name) {
  if (!name || !recorded_name(name)) return 0;
  const int ours = our_definition(name, blasscope_real_dlsym) != nullptr;
  ::dlerror();  // the lookup in our own tree may have failed: not the program's error
  return ours;
}

// dlsym(RTLD_DEFAULT) of a name we wrap: glibc would give our wrapper (the preload leads the
// global scope), bound to no definition until it is called. The stub for the definition the
// caller's scope holds instead, as without the preload, however it is called later; NULL and
// an error where the scope holds none (a probe for a BLAS), not a wrapper with nothing to call.
__attribute__((visibility("hidden"), used, noinline)) void* blasscope_dlsym_by_default(void* handle, const char* name) {
  const void* const caller = __builtin_extract_return_addr(__builtin_return_address(0));
  if (inside_this_library(caller)) return blasscope_real_dlsym(handle, name);
  void* const ours = our_definition(name, blasscope_real_dlsym);
  if (!ours) return blasscope_real_dlsym(handle, name);  // not reached: the entry point asked
  void* const real = blasscope::preload::definition_in_scope_of(name, reinterpret_cast<std::uintptr_t>(caller), ours);
  if (!real) return not_found(name, blasscope_real_dlsym);
  void* const stub = stub_for(real, ours, name);
  return found_after_all(stub ? stub : ours);
}
}

// RTLD_DEFAULT is 0 and RTLD_NEXT is -1; any other value is a handle. RTLD_DEFAULT searches
// the caller's scope, so only a name we record leaves glibc's hands.
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
  .p2align 4
dlsym:
  .cfi_startproc
  endbr64
0:
  movq blasscope_real_dlsym(%rip), %rax
  testq %rax, %rax
  jz 2f
  testq %rdi, %rdi
  jz 3f
  cmpq $-1, %rdi
  je 1f
  jmp blasscope_dlsym_on_handle
1:
  jmp *%rax
3:
  pushq %rdi
  .cfi_adjust_cfa_offset 8
  pushq %rsi
  .cfi_adjust_cfa_offset 8
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  movq %rsi, %rdi
  call blasscope_is_recorded_name
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %rsi
  .cfi_adjust_cfa_offset -8
  popq %rdi
  .cfi_adjust_cfa_offset -8
  testl %eax, %eax
  jnz blasscope_dlsym_by_default
  jmp *blasscope_real_dlsym(%rip)
2:
  pushq %rdi
  .cfi_adjust_cfa_offset 8
  pushq %rsi
  .cfi_adjust_cfa_offset 8
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  call blasscope_find_real_dlsym
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %rsi
  .cfi_adjust_cfa_offset -8
  popq %rdi
  .cfi_adjust_cfa_offset -8
  jmp 0b
  .cfi_endproc
  .size dlsym, .-dlsym
)");

// The stubs: stub i points this thread's blasscope_handed_out at blasscope_stub_table[i] and
// jumps to its `ours`, touching only r10 and r11 (scratch, never arguments). Each begins with
// endbr64 (a no-op where indirect branch tracking is off): programs reach them indirectly.
asm(R"(
  .text
  .p2align 5
  .hidden blasscope_stubs
  .globl blasscope_stubs
blasscope_stubs:
  .set blasscope_stub_i, 0
  .rept 1024
  .p2align 5
  endbr64
  movq blasscope_handed_out@gottpoff(%rip), %r11
  leaq blasscope_stub_table+64*blasscope_stub_i(%rip), %r10
  movq %r10, %fs:(%r11)
  jmp *blasscope_stub_table+64*blasscope_stub_i+8(%rip)
  .set blasscope_stub_i, blasscope_stub_i+1
  .endr
)");
static_assert(sizeof(BlasscopeHandedOut) == 64 && offsetof(BlasscopeHandedOut, ours) == 8);

namespace {
// Found before the program runs: this library's range and handle are then never first looked for
// inside a dlsym the program calls while it holds a loader lock.
__attribute__((constructor)) void find_the_real_dlsym_early() {
  if (!__atomic_load_n(&blasscope_real_dlsym, __ATOMIC_ACQUIRE)) blasscope_find_real_dlsym();
  this_library();
  our_definition("xerbla_", blasscope_real_dlsym);  // and this library's handle
  not_found("", blasscope_real_dlsym);              // and the C library's
  ::dlerror();
}
}  // namespace

#endif
