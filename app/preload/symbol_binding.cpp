#include "symbol_binding.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace blasscope::preload {
namespace {

// A loaded object and the objects its DT_NEEDED entries name (indices into the table).
struct LoadedObject {
  std::string name;  // as the dynamic linker knows it (empty for the main program)
  std::string soname;
  std::vector<std::string> needed_names;
  std::vector<std::size_t> needed;
  std::uintptr_t begin = 0, end = 0;  // where its segments are mapped
};

// The loaded objects in load order, rebuilt when a library was loaded or unloaded since.
struct ObjectTable {
  unsigned long long generation = ~0ull;
  std::vector<LoadedObject> objects;
};

// glibc stores the dynamic section's addresses relocated; a few objects (the vDSO) keep them
// as offsets from their base.
const char* at(const dl_phdr_info& info, ElfW(Addr) address) {
  return reinterpret_cast<const char*>(address < info.dlpi_addr ? info.dlpi_addr + address : address);
}

LoadedObject describe(const dl_phdr_info& info) {
  LoadedObject object;
  object.name = info.dlpi_name ? info.dlpi_name : "";
  const ElfW(Dyn)* dynamic = nullptr;
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(info.dlpi_addr + segment.p_vaddr);
    if (segment.p_type == PT_LOAD) {
      const std::uintptr_t begin = info.dlpi_addr + segment.p_vaddr, end = begin + segment.p_memsz;
      object.begin = object.end == 0 ? begin : std::min(object.begin, begin);
      object.end = std::max(object.end, end);
    }
  }
  if (!dynamic) return object;
  const char* strings = nullptr;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strings = at(info, d->d_un.d_ptr);
  }
  if (!strings) return object;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_NEEDED) object.needed_names.emplace_back(strings + d->d_un.d_val);
    if (d->d_tag == DT_SONAME) object.soname = strings + d->d_un.d_val;
  }
  return object;
}

// A DT_NEEDED entry is satisfied by a loaded object of that soname or file name.
bool satisfies(const LoadedObject& object, const std::string& needed) {
  if (object.soname == needed || object.name == needed) return true;
  const std::size_t slash = object.name.rfind('/');
  return slash != std::string::npos && object.name.compare(slash + 1, std::string::npos, needed) == 0;
}

void refresh(ObjectTable& table) {
  struct Scan {
    std::vector<LoadedObject> objects;
    unsigned long long generation = 0;
  } scan;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        auto& s = *static_cast<Scan*>(data);
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          s.generation = info->dlpi_adds * 0x10000ull + info->dlpi_subs;
        }
        s.objects.push_back(describe(*info));
        return 0;
      },
      &scan);
  if (scan.generation == table.generation && scan.objects.size() == table.objects.size()) return;
  for (LoadedObject& object : scan.objects) {
    for (const std::string& needed : object.needed_names) {
      for (std::size_t i = 0; i < scan.objects.size(); ++i) {
        if (satisfies(scan.objects[i], needed)) {
          object.needed.push_back(i);
          break;
        }
      }
    }
  }
  table.objects = std::move(scan.objects);
  table.generation = scan.generation;
}

// Whether `target` is `root` or one of its dependencies, direct or not.
bool in_tree(const std::vector<LoadedObject>& objects, std::size_t root, std::size_t target) {
  std::vector<char> seen(objects.size(), 0);
  std::vector<std::size_t> queue{root};
  seen[root] = 1;
  for (std::size_t next = 0; next < queue.size(); ++next) {
    if (queue[next] == target) return true;
    for (std::size_t dependency : objects[queue[next]].needed) {
      if (!seen[dependency]) seen[dependency] = 1, queue.push_back(dependency);
    }
  }
  return false;
}

// `name` in the tree of the object called `file`, breadth first, as dlsym on its handle finds it.
void* defined_in_tree_of(const char* file, const char* name, const void* self) {
  if (!file || !*file) return nullptr;
  void* handle = ::dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return nullptr;
  void* p = ::dlsym(handle, name);
  ::dlclose(handle);
  return p != self ? p : nullptr;
}

// The loaded object holding `address`, or objects.size().
std::size_t object_at(const std::vector<LoadedObject>& objects, std::uintptr_t address) {
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (address >= objects[i].begin && address < objects[i].end) return i;
  }
  return objects.size();
}

// A pthread mutex, not std::mutex: re-initialised in a forked child.
pthread_mutex_t g_table_lock = PTHREAD_MUTEX_INITIALIZER;
ObjectTable g_table;

void* resolve(ObjectTable& table, const char* name, std::uintptr_t at, const void* self, CallerObject& caller) {
  refresh(table);
  const std::vector<LoadedObject>& objects = table.objects;
  const std::size_t calling = object_at(objects, at);
  if (calling < objects.size()) {
    caller = {objects[calling].begin, objects[calling].end};
  } else {
    caller = {at & ~std::uintptr_t{4095}, (at & ~std::uintptr_t{4095}) + 4096};
  }
  void* global = ::dlsym(RTLD_NEXT, name);
  if (calling == objects.size()) return global;
  // The object whose dlopen loaded the caller: the first loaded one whose tree holds it (any
  // object loaded earlier with the caller in its tree would have loaded the caller earlier).
  std::size_t root = 0;
  while (root < calling && !in_tree(objects, root, calling)) ++root;
  // Loaded with the program (the main program's tree, or the program itself): the global
  // scope is its whole scope.
  if (root == 0) return global;
  void* local = defined_in_tree_of(objects[root].name.c_str(), name, self);
  if (!global) return local;
  if (!local) return global;
  // Both: the global definition counts only if it was there when the caller was bound.
  return object_at(objects, reinterpret_cast<std::uintptr_t>(global)) < calling ? global : local;
}

}  // namespace

void* definition_for(const char* name, std::uintptr_t at, const void* self, CallerObject& caller) {
  // Never waited for: a thread inside dlopen (holding the loader's lock) whose library's
  // constructor makes a first BLAS call must not wait for one that holds this lock and waits
  // for the loader's. A thread that finds it taken works on a table of its own.
  const bool shared = ::pthread_mutex_trylock(&g_table_lock) == 0;
  ObjectTable own;
  ObjectTable& table = shared ? g_table : own;
  void* found = resolve(table, name, at, self, caller);
  // A call from code no loaded object holds, or a name nothing in its scopes defines: the
  // first loaded library defining it, the objects' names copied first (no dlopen while
  // dl_iterate_phdr holds the loader's lock).
  for (std::size_t i = 0; !found && i < table.objects.size(); ++i) {
    found = defined_in_tree_of(table.objects[i].name.c_str(), name, self);
  }
  if (shared) ::pthread_mutex_unlock(&g_table_lock);
  return found;
}

void* definition_in_scope_of(const char* name, std::uintptr_t at, const void* self) {
  const bool shared = ::pthread_mutex_trylock(&g_table_lock) == 0;
  ObjectTable own;
  CallerObject caller;
  void* found = resolve(shared ? g_table : own, name, at, self, caller);
  if (shared) ::pthread_mutex_unlock(&g_table_lock);
  return found;
}

namespace {
// In a child after fork the lock may be held by a thread that does not exist there.
__attribute__((constructor)) void reset_the_lock_in_forked_children() {
  ::pthread_atfork(nullptr, nullptr, [] { ::pthread_mutex_init(&g_table_lock, nullptr); });
}
}  // namespace

}  // namespace blasscope::preload
