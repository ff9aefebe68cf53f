#pragma once

#include <string>

namespace blasscope::core {

// Writes `content` to `path` (replacing it) and checks that every byte reached the file,
// the close included: a full disk or a read-only folder is an InputError naming the path
// and the system's reason, never a silently truncated report.
void write_text_file(const std::string& path, const std::string& content);

// The whole of `path`: a regular file in reads of its size (a stream copied into a growing
// buffer and out again took a third of opening a 190 MB recording), a pipe or a device in
// pieces. InputError (Unreadable) naming the path and the system's reason.
std::string read_text_file(const std::string& path);

}  // namespace blasscope::core
