#pragma once

// The program's session, written while it runs by a thread that works only on a core nothing
// else wants (SCHED_IDLE): on two cores a recorder formatting a million calls beside an
// OpenBLAS that uses both would slow the program it measures. When the program ends, whatever
// the thread has not written yet is written by the caller at its own priority, without waiting
// for the thread: under load an idle-class thread may not run for seconds.
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "record/recording.h"
#include "record/session_writer.h"

namespace blasscope::record {

struct CallBatch;
struct CallBuffer;

class StreamedSession {
 public:
  // Buffers (2 MiB, 16,384 calls each) the writing thread may fall behind by before the
  // recording thread waits for it: 128 MiB, a million calls, the default --max-calls. (A writer
  // that gets no core at all is not waited for: buffers then pile up past it.)
  // Eight made the recorder of a program making 1x1 GEMMs as fast as it could (AMD EPYC VM, two
  // cores) wait for the formatting, and with it the program on a full ring: 290 ns a call, 160
  // ns with this many, the writer finishing after the program what it had not yet written.
  static constexpr std::size_t kMostPendingBuffers = 64;
  // `longest_wait`: how long the recording thread steps aside at most for the writing thread
  // to catch up (see wait_for_room), once it is `most_pending` buffers behind.
  explicit StreamedSession(std::string path, std::chrono::milliseconds longest_wait = std::chrono::milliseconds(100),
                           std::size_t most_pending = kMostPendingBuffers);
  ~StreamedSession();  // an unfinished file is removed; the thread is told to stop
  StreamedSession(const StreamedSession&) = delete;
  StreamedSession& operator=(const StreamedSession&) = delete;

  const std::string& path() const { return m_file.path(); }
  // On the recording thread: hands calls (their times counted from start_ns) to the writing
  // thread, numbered on from the last.
  void append(std::span<const CallRecord> calls, std::uint64_t start_ns);
  // Writes every call the thread has not, then the rest of the session (from `recording`, whose
  // own calls are not written: they were appended), and renames the file into place. Throws
  // std::runtime_error naming the path and the reason.
  void finish(const Recording& recording);
  // Buffers of calls made so far: they are reused once written, so a long run holds few.
  std::size_t buffers_made() const;

 private:
  struct Shared;
  void seal_open();
  CallBuffer* take_buffer_or_wait();
  void wait_for_room();
  PartFile m_file;
  std::shared_ptr<Shared> m_shared;
  CallBatch* m_open = nullptr;  // the last batch, until it is full
  const std::chrono::milliseconds m_longest_wait;
  const std::uint64_t m_most_pending_calls;
  bool m_writer_starved = false;   // a wait (for room, or a buffer) saw no commit: not waited again until one comes
  std::uint32_t m_starved_at = 0;  // the commits then
  std::uint64_t m_calls = 0;       // appended so far
  bool m_out_of_memory = false;
};

}  // namespace blasscope::record
