#include "record/capture_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

namespace blasscope::record {
namespace {

namespace fs = std::filesystem;

bool is_capture_name(const std::string& name) {
  return name.size() > 5 && name.starts_with("call-") &&
         std::all_of(name.begin() + 5, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A workload the preload library wrote: it names the call it captures near its start (a user's
// workload.json of the same name does not).
bool written_by_a_recording(const fs::path& workload) {
  std::ifstream in(workload, std::ios::binary);
  char start[256] = {};
  in.read(start, sizeof start - 1);
  return std::string_view(start, static_cast<std::size_t>(in.gcount())).find("\"recorded_call\": ") !=
         std::string_view::npos;
}

// Nothing in it but plain files the preload library writes there.
bool holds_only_capture_files(const fs::path& dir) {
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const fs::path& file = it->path();
    if (!it->is_regular_file(error) || it->is_symlink(error) || error) return false;
    const std::string name = file.filename().string();
    if (name == "workload.json" ? !written_by_a_recording(file)
                                : !name.ends_with(".npy") && !name.ends_with(".npy.part")) {
      return false;
    }
  }
  return !error;
}

std::chrono::nanoseconds clock_now(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

bool holds_a_capture(const fs::path& folder) {
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (is_capture_name(it->path().filename().string())) return true;
  }
  return false;
}
}  // namespace

fs::file_time_type capture_epoch(const fs::path& folder) {
  // Files are dated by the coarse real-time clock, or (multigrain time stamps) finer, never
  // later than the real time they were written at: at or before `now` if written before it,
  // past it once the coarse clock is.
  // Where it holds none, none is earlier: a capture the program writes within the tick is its own.
  if (!holds_a_capture(folder)) return fs::file_time_type::min();
  const std::chrono::nanoseconds now = clock_now(CLOCK_REALTIME);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);  // a tick is 10 ms at most
  while (clock_now(CLOCK_REALTIME_COARSE) <= now && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  const std::chrono::system_clock::time_point sys{std::chrono::duration_cast<std::chrono::system_clock::duration>(now)};
  return std::chrono::file_clock::from_sys(sys);
}

std::size_t remove_earlier_captures(const fs::path& folder, fs::file_time_type since) {
  std::error_code error;
  if (!fs::is_directory(fs::symlink_status(folder, error))) return 0;
  std::size_t removed = 0;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const fs::path dir = it->path();
    std::error_code own;
    // Not a link to elsewhere, and not one a recording running now under this name writes.
    if (!is_capture_name(dir.filename().string()) || !fs::is_directory(fs::symlink_status(dir, own)) ||
        fs::last_write_time(dir, own) > since || own || !holds_only_capture_files(dir)) {
      continue;
    }
    if (fs::remove_all(dir, own) != static_cast<std::uintmax_t>(-1) && !own) ++removed;
  }
  return removed;
}

void remove_if_empty_folder(const fs::path& folder) {
  std::error_code error;
  if (fs::is_directory(fs::symlink_status(folder, error)) && fs::is_empty(folder, error) && !error) {
    fs::remove(folder, error);
  }
}

CaptureFolderLock::~CaptureFolderLock() {
  if (m_fd >= 0) ::close(m_fd);
}

bool CaptureFolderLock::lock(const fs::path& folder) {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (m_fd < 0) return true;  // none yet, or not a folder: nothing to hold
  if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return true;
  const bool held = errno == EWOULDBLOCK;
  ::close(m_fd);
  m_fd = -1;
  return !held;  // a file system without locks holds nothing
}

}  // namespace blasscope::record
