#pragma once

// Writing a recording's session file. The calls are the bulk of a session (a million calls
// are about 200 MB of JSON): see session_stream.h for when they are formatted. The file is
//   {"format":"blasscope-session","version":1,"kind":"recording","calls":[ CALL,\n ... ],REST}
// so a reader learns the format and kind from its first bytes.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>

#include "record/recording.h"

namespace blasscope::record {

// The most text one call takes (every field at its longest is about 700 bytes).
inline constexpr std::size_t kMaxCallText = 1024;

// Writes `call` as a session's call object (numbered `seq`, its start relative to `start_ns`)
// at `out`, which has room for kMaxCallText bytes; returns the end of what it wrote. Times are
// written as the exact decimal of their nanoseconds.
char* write_call_text(char* out, const CallRecord& call, std::uint64_t seq, std::uint64_t start_ns);

// The text before the calls, and after them (everything but the calls, from `recording`).
std::string_view session_head();
std::string session_tail(const Recording& recording);
// Appends calls as the session lists them, numbered from `first_seq` (the first call of a
// session, number 0, has no comma before it).
void append_calls_text(std::string& out, std::span<const CallRecord> calls, std::uint64_t first_seq,
                       std::uint64_t start_ns);

// Writes all of `size` bytes at `offset` of `fd`; 0, or the errno of the failure (ENOSPC for a
// write that wrote nothing).
int write_all_at(int fd, const char* data, std::size_t size, std::uint64_t offset);

// The descriptor a session path names (/dev/stdout 1, /dev/stderr 2, /dev/fd/N,
// /proc/self/fd/N), or -1.
int inherited_descriptor(const std::string& path);
// Whether a session named `path` is written into it at the end (a descriptor, a device, a pipe)
// rather than renamed over it: its captures and children's sessions are then named otherwise.
bool session_written_into(const std::string& path);

// A file written under PATH.XXXXXX.part (a name of its own) and renamed to PATH once whole, so
// that a reader never sees half a session under the real name; removed if it never was. A PATH
// that is a symbolic link is followed; one that is no regular file (/dev/stdout) gets the whole
// file copied into it at the end.
class PartFile {
 public:
  explicit PartFile(std::string path);
  ~PartFile();
  PartFile(const PartFile&) = delete;
  PartFile& operator=(const PartFile&) = delete;

  const std::string& path() const { return m_path; }
  int descriptor() const { return m_fd; }
  // Writes `size` bytes at `offset`; false after any failure (the first one is kept). Threads
  // may write disjoint ranges at once.
  bool write_at(const char* data, std::size_t size, std::uint64_t offset);
  // No write has failed so far.
  bool writable() const { return m_fd >= 0 && !m_failed.load(); }
  // Closes the file and renames it into place. Throws std::runtime_error naming the path and
  // the first failure, a write's or its own.
  void commit();

 private:
  void copy_into_path();
  void relink_if_removed();
  // m_target: the file renamed over (PATH, or the file its link names); "" to copy the whole
  // file into PATH instead (a device, a pipe: --output /dev/stdout).
  std::string m_path, m_target, m_part;
  int m_fd = -1;
  std::string m_error;
  std::atomic<bool> m_failed{false};  // m_error is set (written once, under m_error_lock)
  std::mutex m_error_lock;
  bool m_committed = false;
  bool m_kept = false;  // the part file is the only copy, kept where the error says
};

// A session file written in two stages: calls as they come, everything else at the end.
class SessionWriter {
 public:
  explicit SessionWriter(std::string path);

  const std::string& path() const { return m_file.path(); }
  // Appends calls (numbered on from the last). Never throws: a failure to write is reported
  // by finish().
  void append(std::span<const CallRecord> calls, std::uint64_t start_ns);
  std::uint64_t calls_written() const { return m_seq; }
  // Writes the rest of `recording` (not its calls: those were appended) and renames the file
  // into place. Throws std::runtime_error naming the path and the reason.
  void finish(const Recording& recording);

 private:
  void flush();
  PartFile m_file;
  std::string m_buffer;  // text not yet written
  std::uint64_t m_offset = 0, m_seq = 0;
};

// The whole session file's text in memory (what SessionWriter writes for the same recording).
std::string session_text(const Recording& recording);

}  // namespace blasscope::record
