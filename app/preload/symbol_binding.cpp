#include "symbol_binding.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <mutex>
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
    if (info.dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info.dlpi_addr + info.dlpi_phdr[i].p_vaddr);
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

std::mutex g_table_mutex;
ObjectTable g_table;

}  // namespace

void* bound_for_caller(const char* name, const void* caller, const void* self) {
  Dl_info where{};
  if (!caller || !::dladdr(caller, &where) || !where.dli_fname) return nullptr;
  std::lock_guard<std::mutex> lock(g_table_mutex);
  refresh(g_table);
  const std::vector<LoadedObject>& objects = g_table.objects;
  std::size_t calling = objects.size();
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (objects[i].name == where.dli_fname) calling = i;
  }
  if (calling == objects.size()) return nullptr;
  // The object dlopen loaded the caller with is the first loaded one whose tree holds it: any
  // object loaded earlier with the caller in its tree would have loaded the caller earlier.
  for (std::size_t root = 0; root <= calling; ++root) {
    if (in_tree(objects, root, calling)) return defined_in_tree_of(objects[root].name.c_str(), name, self);
  }
  return nullptr;
}

void* first_definition(const char* name, const void* self) {
  struct Search {
    const char* name;
    const void* self;
    void* found;
  } search{name, self, nullptr};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        s->found = defined_in_tree_of(info->dlpi_name, s->name, s->self);
        return s->found ? 1 : 0;
      },
      &search);
  return search.found;
}

}  // namespace blasscope::preload
