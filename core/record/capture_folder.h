#pragma once

// The folder a recording's captures go to (SESSION.captures, beside the session).
#include <cstddef>
#include <filesystem>

namespace blasscope::record {

// Removes the captures an earlier recording under the same name left in `folder`: a new
// session replaces the old one, and call-ID folders it does not list would be taken for its
// own. Only what BLAScope writes goes (call-<digits> folders holding nothing but .npy files and
// workload.json, older than `since`); anything else, and the folder itself, stays. Returns how
// many were removed; errors leave the rest as it was.
std::size_t remove_earlier_captures(const std::filesystem::path& folder, std::filesystem::file_time_type since);

}  // namespace blasscope::record
