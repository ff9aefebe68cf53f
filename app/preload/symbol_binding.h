#pragma once

// Where the real BLAS/LAPACK routine is for a call we interposed: the definition the dynamic
// linker would have bound the caller's reference to had the preload library not been there.
// Used once per routine, on its first call; these allocate and lock.

namespace blasscope::preload {

// `name` as bound for a reference made from the library containing the address `caller`, when
// that library was loaded by dlopen: the dynamic linker looks it up in the dependency tree of
// the object that dlopen loaded (breadth first), not in the caller's own tree. nullptr where
// the caller is part of the program's start-up libraries (the global scope: dlsym(RTLD_NEXT)
// answers there), or the name resolves to nothing but `self` (ours).
void* bound_for_caller(const char* name, const void* caller, const void* self);

// The first loaded library, in load order, whose tree defines `name` other than as `self`.
void* first_definition(const char* name, const void* self);

}  // namespace blasscope::preload
