#pragma once

#include <string>
#include <vector>

#include "record/call_record.h"

namespace blasscope::record {

// The recorder's side of the shared file: created empty before the program starts, drained
// while it runs, read once more after it ends.
class SharedBuffer {
 public:
  // Creates the file in `dir` (/dev/shm when it exists) and maps it; throws std::runtime_error.
  explicit SharedBuffer(bool check_values);
  ~SharedBuffer();  // unmaps and removes the file
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;

  const std::string& path() const { return m_path; }
  SharedHeader& header() { return *m_header; }

  // Moves the finished calls the program has published into `out`; with `final`, entries a
  // dead writer reserved but never completed are skipped (and counted in `lost`).
  void drain(std::vector<CallRecord>& out, bool final = false);
  std::uint64_t lost() const { return m_lost; }
  // Gives back the slots of processes that have exited while no call of theirs was running.
  void reclaim_slots_of_dead_processes();
  // The calls running now (or when the program stopped), one per thread.
  std::vector<CallRecord> running() const;

 private:
  std::string m_path;
  SharedHeader* m_header = nullptr;
  std::uint64_t m_lost = 0;
  std::uint64_t m_stuck_since_ns = 0;  // when the entry at the read index was first seen unfinished
};

}  // namespace blasscope::record
