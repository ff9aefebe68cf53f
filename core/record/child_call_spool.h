#pragma once

// Child processes' calls, set aside in an unnamed file while the program runs, so that the
// recorder holds none of them in memory: a program that forks workers may make as many calls
// in them as in itself, and each child's session is written from here, one child at a time,
// once the program has ended. Where no file can be had (or written), calls are kept in memory
// instead; what fits in neither is counted.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/call_record.h"

namespace blasscope::record {

class ChildCallSpool {
 public:
  // The file goes into `folder` (where the sessions go: "" is the working folder), else into
  // $TMPDIR or /tmp; it is made at the first child's call, not for a program without children.
  explicit ChildCallSpool(std::string folder);
  ~ChildCallSpool();
  ChildCallSpool(const ChildCallSpool&) = delete;
  ChildCallSpool& operator=(const ChildCallSpool&) = delete;

  // Sets aside the calls not made by `program_pid`, in their order. Never throws.
  void add(std::span<const CallRecord> calls, std::uint32_t program_pid) noexcept;
  // The calls set aside for `pid`, in the order they were added. Throws std::bad_alloc, and
  // std::runtime_error where the file cannot be read back.
  std::vector<CallRecord> calls_of(std::uint32_t pid) const;
  // Calls of `pid` that could be set aside neither in the file nor in memory.
  std::uint64_t lost(std::uint32_t pid) const;
  // Whether a file holds calls (else they are all in memory), and how many are in memory.
  bool on_disk() const { return m_fd >= 0; }
  std::uint64_t calls_in_memory() const;
  // Gives the file (its disk space) and the memory back once every child's session is written.
  void close();

 private:
  struct Run {
    std::uint64_t first = 0, count = 0;  // records in the file
  };
  bool open_file();
  void keep_in_memory(std::span<const CallRecord> calls, std::uint32_t program_pid) noexcept;
  void count_lost(std::uint32_t pid) noexcept;

  std::string m_folder;
  int m_fd = -1;
  bool m_file_failed = false;       // no file could be made or written: calls go to memory from then on
  std::uint64_t m_records = 0;      // records in the file
  std::vector<CallRecord> m_batch;  // reused: one write per add
  std::unordered_map<std::uint32_t, std::vector<Run>> m_runs;
  std::unordered_map<std::uint32_t, std::vector<CallRecord>> m_in_memory;
  std::unordered_map<std::uint32_t, std::uint64_t> m_lost;
};

}  // namespace blasscope::record
