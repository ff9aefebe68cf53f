#include "record/session_stream.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstring>
#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "record/huge_pages.h"
#include "record/usable_cores.h"

namespace blasscope::record {
namespace {

constexpr std::size_t kBufferCalls = kHugePage / sizeof(CallRecord);  // calls a buffer holds: one huge page
// The first buffer is small, on ordinary pages: a program of a few calls does not pay for
// zeroing a huge page (2 MiB) it hardly uses.
constexpr std::size_t kFirstBufferCalls = 512;
constexpr std::size_t kPiece = 2048;     // calls formatted before they are written: about 400 KB of text
constexpr std::size_t kSmallPiece = 32;  // the same where there is no memory for that: a few KB

// Leaves the calling thread only the time no other thread wants: SCHED_IDLE, or where that is
// refused, the lowest priority a nice value gives.
void run_when_idle() {
  sched_param none{};
  if (::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &none) != 0) {
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
  }
}

// Formats calls (numbered from first_seq) in pieces and writes each with `write(text, offset)`,
// moving `offset` past it; false when a write failed. Where there is no memory for a piece's
// text (a recorder under `ulimit -v` that has made every buffer it could), the rest goes in
// pieces of a few calls; std::bad_alloc only when even those cannot be had.
template <typename Write>
bool write_calls(std::string& text, std::span<const CallRecord> calls, std::uint64_t first_seq, std::uint64_t start_ns,
                 std::uint64_t& offset, Write&& write) {
  std::size_t piece_calls = kPiece;
  for (std::size_t done = 0; done < calls.size();) {
    text.clear();
    const auto piece = calls.subspan(done, std::min(piece_calls, calls.size() - done));
    try {
      append_calls_text(text, piece, first_seq + done, start_ns);
    } catch (const std::bad_alloc&) {
      if (piece_calls == kSmallPiece) throw;
      std::string().swap(text);
      piece_calls = kSmallPiece;
      continue;
    }
    if (!write(text, offset)) return false;
    offset += text.size();
    done += piece.size();
  }
  return true;
}

// Calls to format, numbered from first_seq, their times counted from start_ns.
struct Piece {
  std::span<const CallRecord> calls;
  std::uint64_t first_seq = 0, start_ns = 0;
};

// Where write_pieces stopped: the pieces before `next` are in the file, up to `offset`.
struct WrittenPieces {
  std::uint64_t offset = 0;
  std::size_t next = 0;
};

// Formats the pieces on up to `most_threads` threads (this one included) and writes them one
// after another from `offset`. Pieces are taken in order; a piece's place in the file is known
// once all text before it is, so each waits for the one before it to be placed, then is written
// while the next is. A piece there was no memory to format stops the writing at its place: it
// and every piece after it take their turn without text (so no thread waits forever), and what
// is returned says where to go on. A failed write stops the formatting; the file reports it.
WrittenPieces write_pieces(std::span<const Piece> pieces, std::uint64_t offset, PartFile& file, unsigned most_threads) {
  std::atomic<std::size_t> taken{0}, placed{0};  // pieces taken by a thread; pieces placed
  std::atomic<bool> write_failed{false}, stopped{false};
  WrittenPieces result{offset, pieces.size()};  // moved in each piece's turn
  const auto format_and_write = [&]() noexcept {
    std::string text;
    for (std::size_t i = taken.fetch_add(1); i < pieces.size(); i = taken.fetch_add(1)) {
      text.clear();
      bool formatted = false;
      try {
        if (!stopped.load() && !write_failed.load()) {
          append_calls_text(text, pieces[i].calls, pieces[i].first_seq, pieces[i].start_ns);
          formatted = true;
        }
      } catch (const std::bad_alloc&) {
        std::string().swap(text);  // its memory to the threads still formatting
      }
      for (std::size_t now = placed.load(); now != i; now = placed.load()) placed.wait(now);
      // `stopped` changes only here, in turn: every piece after the first unformatted one sees it.
      const bool place = formatted && !stopped.load();
      if (!place && !stopped.load()) stopped.store(true), result.next = i;
      const std::uint64_t at = result.offset;
      if (place) result.offset += text.size();
      placed.store(i + 1);
      placed.notify_all();
      if (place && !file.write_at(text.data(), text.size(), at)) write_failed.store(true);
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::clamp(most_threads, 1u, 8u), pieces.size());
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(threads);
    while (helpers.size() + 1 < threads) helpers.emplace_back(format_and_write);
  } catch (const std::exception&) {
    // No more threads to be had (or no memory for them): those running take every piece.
  }
  format_and_write();
  for (std::thread& t : helpers) t.join();
  return result;
}

}  // namespace

// Calls are copied into buffers that go round: filled by the recording thread, written by the
// writing thread, given back. Memory the kernel has to find and zero for every new page is
// what a recorder on this path would otherwise spend most of its time on.
static_assert(std::is_trivially_copyable_v<CallRecord>, "buffers hold records made by memcpy");
static_assert(sizeof(std::atomic<std::uint32_t>) == 4 && std::atomic<std::uint32_t>::is_always_lock_free,
              "futex words are plain 32-bit integers");
struct CallBuffer {
  // Raw bytes, not CallRecord[]: the records' constructors would zero memory that memcpy
  // overwrites at once. memcpy makes the records. All but the first are one huge page on its
  // boundary: one page fault where 4 KiB pages took 512 (each dear on a virtual machine that
  // shadows page tables), and batches fill them whole but for the last (see append()).
  explicit CallBuffer(std::size_t calls)
      : capacity(calls),
        storage(calls == kBufferCalls ? static_cast<std::byte*>(map_huge(kHugePage))
                                      : static_cast<std::byte*>(::operator new(calls * sizeof(CallRecord)))) {}
  ~CallBuffer() {
    if (capacity == kBufferCalls) {
      unmap_huge(storage, kHugePage);
    } else {
      ::operator delete(storage);
    }
  }
  CallBuffer(const CallBuffer&) = delete;
  CallBuffer& operator=(const CallBuffer&) = delete;
  CallRecord* calls() { return reinterpret_cast<CallRecord*>(storage); }
  const std::size_t capacity;  // calls it holds
  std::byte* const storage;
  CallBuffer* next_free = nullptr;
};

// Calls handed to the writing thread, in order: one buffer's worth at most. The recording
// thread adds calls to the last batch (raising `count`) until it is full, then seals it; the
// thread writes each batch's calls as they come (a recorder killed outright leaves them in the
// file) and gives the buffer back once the batch is sealed and written.
struct CallBatch {
  CallBuffer* buffer = nullptr;
  std::uint64_t first_seq = 0;
  std::uint64_t start_ns = 0;  // the recording's, which call times count from
  std::atomic<std::uint64_t> count{0};
  std::atomic<bool> sealed{false};  // no more calls come: `count` is final
  std::uint64_t end_offset = 0;     // set by the thread: where its text ends in the file
  std::atomic<CallBatch*> next{nullptr};
  std::span<const CallRecord> calls() const { return {buffer->calls(), count.load(std::memory_order_acquire)}; }
};

struct StreamedSession::Shared {
  int fd = -1;                                       // the thread's own descriptor of the part file
  CallBatch first;                                   // a sentinel: the batches follow it
  CallBatch* last = &first;                          // the recording thread's end of the list
  std::vector<std::unique_ptr<CallBuffer>> buffers;  // every buffer made (the recording thread's)
  std::atomic<CallBuffer*> free{nullptr};  // written ones: pushed by the thread, taken by the recording thread
  std::atomic<std::uint32_t> published{0};
  std::atomic<std::uint64_t> committed{0};        // batches the thread has written, in order
  std::atomic<std::uint64_t> committed_calls{0};  // the calls in them
  std::atomic<std::uint32_t> commits{0};          // a futex word: moves with every commit
  std::atomic<bool> stop{false};
  std::atomic<bool> writer_gone{false};  // the thread has returned (stopped, or a write failed)

  ~Shared() {
    for (CallBatch* b = first.next.load(); b;) delete std::exchange(b, b->next.load());
    if (fd >= 0) ::close(fd);
  }
  void wake() {
    published.fetch_add(1);
    published.notify_all();
  }
  // Only the recording thread takes buffers: a single consumer, so the pop needs no ABA guard.
  // The small first buffer is not taken again once huge ones exist: batches stay whole pages.
  CallBuffer* take_buffer() {
    while (true) {
      CallBuffer* head = free.load(std::memory_order_acquire);
      while (head && !free.compare_exchange_weak(head, head->next_free, std::memory_order_acquire)) {
      }
      if (!head) break;
      if (head->capacity == kBufferCalls || buffers.size() == 1) return head;
    }
    buffers.push_back(std::make_unique<CallBuffer>(buffers.empty() ? kFirstBufferCalls : kBufferCalls));
    return buffers.back().get();
  }
  void give_back(CallBuffer* buffer) {
    buffer->next_free = free.load(std::memory_order_relaxed);
    while (!free.compare_exchange_weak(buffer->next_free, buffer, std::memory_order_release)) {
    }
  }
  void write_in_background(std::uint64_t offset);
};

void StreamedSession::Shared::write_in_background(std::uint64_t offset) {
  // However it returns, the recording thread stops waiting for it.
  struct Gone {
    Shared& s;
    ~Gone() {
      s.writer_gone.store(true);
      s.commits.fetch_add(1);
      ::syscall(SYS_futex, &s.commits, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }
  } gone{*this};
  run_when_idle();
  std::string text;
  const auto write = [this](const std::string& piece, std::uint64_t at) {
    return write_all_at(fd, piece.data(), piece.size(), at) == 0;
  };
  std::uint64_t written = 0;  // calls of the batch after `done` already in the file
  for (CallBatch* done = &first;;) {
    const std::uint32_t seen = published.load();
    if (stop.load()) return;
    CallBatch* batch = done->next.load(std::memory_order_acquire);
    if (!batch) {
      published.wait(seen);
      continue;
    }
    // The seal first: a sealed batch's count, read after it, is final.
    const bool sealed = batch->sealed.load(std::memory_order_acquire);
    const std::span<const CallRecord> calls = batch->calls();
    if (calls.size() > written) {
      // A failed write leaves the rest to finish(), which reports it; so does a piece there was
      // no memory to format (finish() formats it again, or says that it could not).
      try {
        if (!write_calls(text, calls.subspan(written), batch->first_seq + written, batch->start_ns, offset, write)) {
          return;
        }
      } catch (const std::bad_alloc&) {
        return;
      }
      written = calls.size();
      continue;
    }
    if (!sealed) {
      published.wait(seen);
      continue;
    }
    batch->end_offset = offset;
    // Committed before the buffer goes back: finish() rewrites every batch past `committed`
    // from its buffer, which must still hold that batch's calls.
    committed.fetch_add(1);
    give_back(batch->buffer);
    // After the buffer is back: a recording thread out of memory that counts no call pending
    // finds no buffer coming.
    committed_calls.fetch_add(written);
    commits.fetch_add(1);
    ::syscall(SYS_futex, &commits, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    done = batch;
    written = 0;
  }
}

StreamedSession::StreamedSession(std::string path, std::chrono::milliseconds longest_wait, std::size_t most_pending)
    : m_file(std::move(path)),
      m_shared(std::make_shared<Shared>()),
      m_longest_wait(longest_wait),
      m_most_pending_calls(std::uint64_t{most_pending} * kBufferCalls) {
  const std::string_view head = session_head();
  if (!m_file.write_at(head.data(), head.size(), 0)) return;  // finish() reports it
  m_shared->fd = ::fcntl(m_file.descriptor(), F_DUPFD_CLOEXEC, 0);
  // Without a thread (no descriptor for it, or no thread to be had: a program with thousands of
  // threads under a pids limit), finish() writes everything.
  if (m_shared->fd < 0) return;
  try {
    std::thread(&Shared::write_in_background, m_shared, std::uint64_t{head.size()}).detach();
  } catch (const std::system_error&) {
    ::close(std::exchange(m_shared->fd, -1));
  }
}

StreamedSession::~StreamedSession() {
  m_shared->stop.store(true);
  m_shared->wake();
}

// Calls fill the open batch, sealed once full: a drain of ten calls does not take a buffer of
// its own, and the thread writes them all the same.
void StreamedSession::append(std::span<const CallRecord> calls, std::uint64_t start_ns) try {
  Shared& s = *m_shared;
  if (m_open && m_open->start_ns != start_ns) seal_open();
  for (std::size_t done = 0; done < calls.size();) {
    if (!m_open) {
      auto batch = std::make_unique<CallBatch>();
      batch->buffer = take_buffer_or_wait();
      batch->first_seq = m_calls;
      batch->start_ns = start_ns;
      m_open = batch.release();  // the list's from here
      s.last->next.store(m_open, std::memory_order_release);
      s.last = m_open;
    }
    const std::uint64_t held = m_open->count.load(std::memory_order_relaxed);
    const std::size_t capacity = m_open->buffer->capacity;
    const std::size_t count = std::min<std::size_t>(capacity - held, calls.size() - done);
    std::memcpy(static_cast<void*>(m_open->buffer->calls() + held), calls.data() + done, count * sizeof(CallRecord));
    m_open->count.store(held + count, std::memory_order_release);
    m_calls += count;
    done += count;
    if (held + count == capacity) seal_open();
  }
  s.wake();
  if (s.fd >= 0) wait_for_room();
} catch (const std::bad_alloc&) {
  // The recording goes on (its totals stay exact); the session cannot be whole.
  m_out_of_memory = true;
}

// A buffer written and given back, else a new one; where there is no memory for a new one (a
// recorder under `ulimit -v`, as far behind as it may be), one the writer gives back once it has
// written it: waited for while the writer commits a batch every ten seconds at least. A wait
// that saw no commit is not waited again until one comes (as in wait_for_room). Throws
// std::bad_alloc.
CallBuffer* StreamedSession::take_buffer_or_wait() {
  Shared& s = *m_shared;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (std::uint32_t seen = s.commits.load();; seen = s.commits.load()) {
    try {
      return s.take_buffer();
    } catch (const std::bad_alloc&) {
      // Every batch before this one is sealed, so each huge buffer they hold comes back once
      // written (the small first one is dropped, but a huge one is then pending behind it);
      // without a writing thread (none could be started) nothing comes back.
      const bool pending = m_calls > s.committed_calls.load();
      const bool waited_in_vain = m_writer_starved && seen == m_starved_at;
      if (!pending || s.fd < 0 || s.writer_gone.load() || waited_in_vain) throw;
      if (std::chrono::steady_clock::now() >= deadline) {
        m_writer_starved = true, m_starved_at = seen;
        throw;
      }
    }
    const timespec wait{0, 100000000};
    ::syscall(SYS_futex, &s.commits, FUTEX_WAIT_PRIVATE, seen, &wait, nullptr, 0);
    if (s.commits.load() != seen) {
      m_writer_starved = false;
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    }
  }
}

void StreamedSession::seal_open() {
  if (!m_open) return;
  m_open->sealed.store(true, std::memory_order_release);
  m_open = nullptr;
}

// Every batch waiting for the thread is new memory, and new memory is dear (the kernel zeroes
// it; on a virtual machine the host may have to back it too): a program making calls as fast as
// it can made the recorder spend more time on that than on anything else, before the buffers
// were huge pages. Past `most_pending` buffers the recording thread steps aside until the
// thread has written some: its core, now idle, is where the thread runs. Bounded: a wait in
// which the thread committed nothing (every core busy with the program, which an idle-class
// thread cannot take from it) is not waited again until it has, so buffers pile up as before
// rather than the recorder draining the ring once per wait; nor is a thread that has returned
// waited for.
void StreamedSession::wait_for_room() {
  Shared& s = *m_shared;
  const auto over = [&] { return m_calls - s.committed_calls.load() > m_most_pending_calls; };
  if (!over() || s.writer_gone.load()) return;
  const std::uint32_t at_start = s.commits.load();
  if (m_writer_starved && at_start == m_starved_at) return;
  m_writer_starved = false;
  const auto deadline = std::chrono::steady_clock::now() + m_longest_wait;
  while (true) {
    const std::uint32_t seen = s.commits.load();
    if (!over() || s.writer_gone.load()) return;
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) {
      if (seen == at_start) m_writer_starved = true, m_starved_at = seen;
      return;
    }
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    const timespec wait{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    ::syscall(SYS_futex, &s.commits, FUTEX_WAIT_PRIVATE, seen, &wait, nullptr, 0);
  }
}

std::size_t StreamedSession::buffers_made() const {
  return m_shared->buffers.size();
}

void StreamedSession::finish(const Recording& recording) {
  // From here the thread starts no new batch; what it wrote stays, the rest is written here. A
  // batch it is still writing is written here too: the same bytes at the same place.
  Shared& s = *m_shared;
  s.stop.store(true);
  s.wake();
  const std::uint64_t committed = s.committed.load();
  CallBatch* batch = &s.first;
  for (std::uint64_t i = 0; i < committed; ++i) batch = batch->next.load(std::memory_order_acquire);
  std::uint64_t offset = committed ? batch->end_offset : session_head().size();
  std::vector<Piece> pieces;
  for (batch = batch->next.load(std::memory_order_acquire); batch; batch = batch->next.load()) {
    const std::span<const CallRecord> calls = batch->calls();
    for (std::size_t done = 0; done < calls.size(); done += kPiece) {
      pieces.push_back(
          {calls.subspan(done, std::min(kPiece, calls.size() - done)), batch->first_seq + done, batch->start_ns});
    }
  }
  const WrittenPieces written = write_pieces(pieces, offset, m_file, usable_cores());
  offset = written.offset;
  if (written.next < pieces.size() && m_file.writable()) {
    // No memory for a text on every thread (a recorder under `ulimit -v`): the rest on this
    // thread alone, the helpers' texts given back, in smaller pieces if need be.
    std::string text;
    const auto write = [this](const std::string& piece, std::uint64_t at) {
      return m_file.write_at(piece.data(), piece.size(), at);
    };
    try {
      for (const Piece& piece : std::span(pieces).subspan(written.next)) {
        if (!write_calls(text, piece.calls, piece.first_seq, piece.start_ns, offset, write)) break;
      }
    } catch (const std::bad_alloc&) {
      m_out_of_memory = true;
    }
  }
  const std::string tail = session_tail(recording);
  m_file.write_at(tail.data(), tail.size(), offset);
  if (m_out_of_memory) throw std::runtime_error("out of memory while the calls were written to " + path());
  m_file.commit();
}

}  // namespace blasscope::record
