// dlsym: a program that looks BLAS up by name at run time (Python's ctypes and cffi, a C
// program's dlopen + dlsym, TensorFlow's cuBLAS loader) gets the library's own function, never
// ours: dlsym on a handle searches that library's tree, where the preload library is not. For
// the names we interpose, dlsym hands out our wrapper instead, wherever that wrapper forwards
// a call of unknown origin to exactly that function (blasscope_dlsym_on_handle); otherwise the library's
// own, so no call ever goes to another library than the program asked for.
//
// glibc's dlsym takes its caller from its return address (RTLD_NEXT means "after the caller's
// object", RTLD_DEFAULT searches the caller's namespace), so the entry point is a few
// instructions that jump, never call: the real dlsym, or the handle lookup below, returns
// straight to the program with its caller unchanged.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "symbol_binding.h"

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

bool inside_this_library(const void* address) {
  static void* const self_base = [] {
    Dl_info info{};
    return ::dladdr(reinterpret_cast<const void*>(&recorded_name), &info) ? info.dli_fbase : nullptr;
  }();
  Dl_info info{};
  return self_base && ::dladdr(address, &info) && info.dli_fbase == self_base;
}
}  // namespace

extern "C" {
__attribute__((visibility("hidden"), used)) Dlsym blasscope_real_dlsym = nullptr;

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

// dlsym on a handle (the caller does not change what it finds). Our wrapper is handed out only
// where a call from code whose own scopes lack the name (libffi, a JIT, a dlopen'ed module) is
// forwarded to the very function the handle gave: the first definition in the global scope, or
// else in the first loaded library that has one.
__attribute__((visibility("hidden"), used, noinline)) void* blasscope_dlsym_on_handle(void* handle, const char* name) {
  void* const found = blasscope_real_dlsym(handle, name);
  const void* const caller = __builtin_extract_return_addr(__builtin_return_address(0));
  if (!found || !name || !recorded_name(name) || inside_this_library(caller)) return found;
  void* const ours = blasscope_real_dlsym(RTLD_DEFAULT, name);
  if (!ours || ours == found || !inside_this_library(ours)) return found;
  blasscope::preload::CallerObject unknown;
  return blasscope::preload::definition_for(name, 0, ours, unknown) == found ? ours : found;
}
}

// RTLD_DEFAULT is 0 and RTLD_NEXT is -1; any other value is a handle.
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
  .p2align 4
dlsym:
  .cfi_startproc
0:
  movq blasscope_real_dlsym(%rip), %rax
  testq %rax, %rax
  jz 2f
  testq %rdi, %rdi
  jz 1f
  cmpq $-1, %rdi
  je 1f
  jmp blasscope_dlsym_on_handle
1:
  jmp *%rax
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

namespace {
__attribute__((constructor)) void find_the_real_dlsym_early() {
  if (!__atomic_load_n(&blasscope_real_dlsym, __ATOMIC_ACQUIRE)) blasscope_find_real_dlsym();
}
}  // namespace

#endif
