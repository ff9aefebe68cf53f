#pragma once

// The recorder's side of the ring, as the recording loop uses it: each drain converts the
// calls to CLOCK_MONOTONIC nanoseconds and hands them to the caller's sink (the session writer)
// and keeps in the recording only the calls something later needs one by one: failures and the
// calls they were made from (the diagnoses), captured calls, and child processes' calls (their
// own sessions). Without a sink every call is kept. Past max_calls only failures and the calls
// they were made from go on (up to max_calls more of them): a failure after a million good calls
// is still diagnosed.
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "record/recording.h"
#include "record/shared_buffer.h"

namespace blasscope::record {

class DrainedCalls {
 public:
  DrainedCalls(SharedBuffer& buffer, const RecordOptions& options, Recording& out);
  // Takes what the program has published; `final` as SharedBuffer::drain. Returns how many
  // calls left the ring (kept or not).
  std::size_t drain(bool final);
  // Calls that left the ring and were handed on (listed).
  std::uint64_t taken() const { return m_taken; }
  // Calls past max_calls that nothing needed one by one: counted in the totals only.
  std::uint64_t not_kept() const { return m_not_kept; }
  // Calls counted but not listed, made inside the calls drained so far (their `unlisted`).
  std::uint64_t unlisted() const { return m_unlisted; }
  // Calls that were to be kept one by one (failures, or every call without a sink) for which
  // there was no memory: handed on all the same.
  std::uint64_t not_kept_for_memory() const { return m_not_kept_for_memory; }

 private:
  // What keeps a call one by one: a failure (or a call failures were made from, or a capture),
  // a child process's call (its own session), or nothing.
  enum class Need { None, Child, Failure };
  Need need_of(const CallRecord& call);
  void keep(const CallRecord& call, Need need);

  SharedBuffer& m_buffer;
  const RecordOptions& m_options;
  Recording& m_out;
  DrainedVector m_drained;                     // reused: no new memory per drain
  std::unordered_set<std::uint64_t> m_wanted;  // parents of kept calls that have not finished yet
  std::uint64_t m_taken = 0;                   // calls handed on so far
  std::uint64_t m_taken_past_cap = 0;          // of them, failures past max_calls (at most max_calls)
  std::uint64_t m_not_kept = 0;
  std::uint64_t m_unlisted = 0;
  std::uint64_t m_not_kept_for_memory = 0;
};

}  // namespace blasscope::record
