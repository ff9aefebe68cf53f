#pragma once

// Where the real BLAS/LAPACK routine is for a call we interposed: the definition the dynamic
// linker would have bound the caller's reference to had the preload library not been there.
// Resolved once per routine and calling library; these allocate and lock.
#include <cstdint>

namespace blasscope::preload {

// The address range of the loaded object a call came from, for caching what it binds to.
struct CallerObject {
  std::uintptr_t begin = 0, end = 0;
};

// `name` as bound for a reference made from the object containing the address `at`, leaving
// out `self` (our own definition), or nullptr. The global scope first, as it was when that
// object was loaded (a library dlopen'ed RTLD_GLOBAL after it is not in it: Python opens its
// extension modules RTLD_NOW, binding them at once); then the dependency tree, breadth first,
// of the object whose dlopen loaded the caller (not the caller's own tree: NumPy's xerbla_
// override in the module that loaded liblapack.so.3 is what liblapack's calls bind to); and
// where the caller is unknown, the first loaded library whose tree defines it. `caller` gets
// the calling object's range (a page around `at` where no loaded object holds it).
void* definition_for(const char* name, std::uintptr_t at, const void* self, CallerObject& caller);

// Only the scopes a lookup of `name` made from `at` searches (the global one, the tree of the
// object whose dlopen loaded it), without definition_for's last resort: what dlsym(RTLD_DEFAULT)
// from there would find, had the preload library not been there.
void* definition_in_scope_of(const char* name, std::uintptr_t at, const void* self);

}  // namespace blasscope::preload
