#pragma once

// One-line facts about this machine measured once per boot (its fastest clock, whether its TSC
// reads the same on every CPU) and kept in $XDG_CACHE_HOME/blasscope (or ~/.cache/blasscope):
// a fact from another boot may be another machine's (a VM moved), so it is not kept.
#include <optional>
#include <string>

namespace blasscope::core {

// This boot's id (/proc/sys/kernel/random/boot_id), or "" where it cannot be read.
std::string boot_id();

// The cache file `name` in BLAScope's cache folder, or "" where there is no such folder to
// use (no absolute XDG_CACHE_HOME or HOME).
std::string boot_cache_path(const std::string& name);

// The value written for `boot` in `path`, if that is the boot it was written for.
std::optional<std::string> read_boot_fact(const std::string& path, const std::string& boot);

// Writes `value` (one word) for `boot`: a file of its own renamed over `path` whole, so two
// writers at once never mix their lines. The folder is made. False where it could not be.
bool write_boot_fact(const std::string& path, const std::string& boot, const std::string& value);

}  // namespace blasscope::core
