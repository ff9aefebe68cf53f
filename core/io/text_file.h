#pragma once

#include <string>

namespace blasscope::core {

// Writes `content` to `path` (replacing it) and checks that every byte reached the file,
// the close included: a full disk or a read-only folder is an InputError naming the path
// and the system's reason, never a silently truncated report.
void write_text_file(const std::string& path, const std::string& content);

}  // namespace blasscope::core
