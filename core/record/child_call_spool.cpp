#include "record/child_call_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "record/session_writer.h"

namespace blasscope::record {
namespace {

static_assert(std::is_trivially_copyable_v<CallRecord>, "the file holds records as memcpy makes them");

// An unnamed file in `folder` (gone with its descriptor), else a named one unlinked at once
// where the filesystem has no O_TMPFILE; -1 where neither could be made.
int unnamed_file_in(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  std::string name = folder + "/.blasscope-children-XXXXXX";
  const int named = ::mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(name.c_str());
  return named;
}

}  // namespace

ChildCallSpool::ChildCallSpool(std::string folder) : m_folder(std::move(folder)) {}

ChildCallSpool::~ChildCallSpool() {
  if (m_fd >= 0) ::close(m_fd);
}

bool ChildCallSpool::open_file() {
  if (m_file_failed) return false;
  if (m_fd >= 0) return true;
  const char* tmp = std::getenv("TMPDIR");
  for (const std::string& folder :
       {m_folder.empty() ? std::string(".") : m_folder, std::string(tmp && *tmp ? tmp : "/tmp"), std::string("/tmp")}) {
    m_fd = unnamed_file_in(folder);
    if (m_fd >= 0) return true;
  }
  m_file_failed = true;
  return false;
}

void ChildCallSpool::add(std::span<const CallRecord> calls, std::uint32_t program_pid) noexcept {
  if (m_file_failed) return keep_in_memory(calls, program_pid);
  try {
    m_batch.clear();
    for (const CallRecord& c : calls) {
      if (c.pid != program_pid) m_batch.push_back(c);
    }
    if (m_batch.empty()) return;
    if (!open_file()) return keep_in_memory(m_batch, program_pid);
  } catch (const std::bad_alloc&) {
    // From here on in memory: calls kept there are read back after the file's, so none may go
    // to the file after them.
    m_file_failed = true;
    return keep_in_memory(calls, program_pid);  // which counts them lost where that fails too
  }
  const auto* bytes = reinterpret_cast<const char*>(m_batch.data());
  if (write_all_at(m_fd, bytes, m_batch.size() * sizeof(CallRecord), m_records * sizeof(CallRecord)) != 0) {
    // Out of disk: what the file holds stays readable; from here calls are kept in memory.
    m_file_failed = true;
    return keep_in_memory(m_batch, program_pid);
  }
  std::vector<Run>* runs = nullptr;  // the last call's process's (a batch is mostly one process's)
  std::uint32_t runs_pid = 0;
  for (const CallRecord& c : m_batch) {
    try {
      if (!runs || runs_pid != c.pid) runs = &m_runs[c.pid], runs_pid = c.pid;
      if (!runs->empty() && runs->back().first + runs->back().count == m_records) {
        ++runs->back().count;
      } else {
        runs->push_back({m_records, 1});
      }
    } catch (const std::bad_alloc&) {
      count_lost(c.pid);
    }
    ++m_records;  // in the file either way
  }
}

void ChildCallSpool::count_lost(std::uint32_t pid) noexcept {
  try {
    ++m_lost[pid];
  } catch (const std::bad_alloc&) {
    // Not even a counter: the child's exact totals still count the call.
  }
}

void ChildCallSpool::keep_in_memory(std::span<const CallRecord> calls, std::uint32_t program_pid) noexcept {
  for (const CallRecord& c : calls) {
    if (c.pid == program_pid) continue;
    try {
      m_in_memory[c.pid].push_back(c);
    } catch (const std::bad_alloc&) {
      count_lost(c.pid);
    }
  }
}

std::vector<CallRecord> ChildCallSpool::calls_of(std::uint32_t pid) const {
  std::vector<CallRecord> calls;
  const auto runs = m_runs.find(pid);
  const auto kept = m_in_memory.find(pid);
  std::uint64_t count = kept != m_in_memory.end() ? kept->second.size() : 0;
  if (runs != m_runs.end()) {
    for (const Run& run : runs->second) count += run.count;
  }
  calls.resize(count);
  std::size_t at = 0;
  if (runs != m_runs.end()) {
    for (const Run& run : runs->second) {
      auto* into = reinterpret_cast<char*>(calls.data() + at);
      const std::size_t bytes = run.count * sizeof(CallRecord);
      for (std::size_t done = 0; done < bytes;) {
        const ssize_t got =
            ::pread(m_fd, into + done, bytes - done, static_cast<off_t>(run.first * sizeof(CallRecord) + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          throw std::runtime_error(std::string("cannot read back the child processes' calls: ") +
                                   (got < 0 ? std::strerror(errno) : "the file is shorter than was written"));
        }
        done += static_cast<std::size_t>(got);
      }
      at += run.count;
    }
  }
  if (kept != m_in_memory.end()) std::copy(kept->second.begin(), kept->second.end(), calls.begin() + at);
  return calls;
}

std::uint64_t ChildCallSpool::calls_in_memory() const {
  std::uint64_t count = 0;
  for (const auto& [pid, calls] : m_in_memory) count += calls.size();
  return count;
}

void ChildCallSpool::close() {
  if (m_fd >= 0) ::close(std::exchange(m_fd, -1));
  m_file_failed = true;
  m_runs.clear();
  m_in_memory.clear();
}

std::uint64_t ChildCallSpool::lost(std::uint32_t pid) const {
  const auto it = m_lost.find(pid);
  return it == m_lost.end() ? 0 : it->second;
}

}  // namespace blasscope::record
