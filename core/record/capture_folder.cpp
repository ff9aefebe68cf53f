#include "record/capture_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

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

}  // namespace

// Hidden (and not a call's name): left by a recorder killed between setting the captures
// aside and the program's start, its contents count as earlier captures too.
constexpr const char* kAside = ".earlier-captures";

EarlierCaptures::EarlierCaptures(fs::path folder) : m_folder(std::move(folder)), m_aside(m_folder / kAside) {
  std::error_code error;
  if (!fs::is_directory(fs::symlink_status(m_folder, error))) return;
  std::vector<fs::path> found;
  for (fs::directory_iterator it(m_folder, error), end; !error && it != end; it.increment(error)) {
    const fs::path dir = it->path();
    std::error_code own;
    if (is_capture_name(dir.filename().string()) && fs::is_directory(fs::symlink_status(dir, own)) && !own &&
        holds_only_capture_files(dir)) {
      found.push_back(dir);
    }
  }
  // Made only where there is something to set aside: a folder made for this recording stays empty.
  const bool left_before = fs::is_directory(fs::symlink_status(m_aside, error));
  if (left_before) {
    m_count = static_cast<std::size_t>(std::distance(fs::directory_iterator(m_aside, error), fs::directory_iterator()));
  } else if (found.empty() || !fs::create_directory(m_aside, error) || error) {
    return;
  }
  for (const fs::path& dir : found) {
    std::error_code own;
    fs::rename(dir, m_aside / dir.filename(), own);
    if (!own) ++m_count;
  }
}

EarlierCaptures::~EarlierCaptures() {
  restore();
}

std::size_t EarlierCaptures::discard() {
  std::error_code error;
  fs::remove_all(m_aside, error);
  const std::size_t count = m_count;
  m_count = 0;
  return count;
}

void EarlierCaptures::restore() {
  std::error_code error;
  if (m_aside.empty() || !fs::is_directory(fs::symlink_status(m_aside, error))) return;
  for (fs::directory_iterator it(m_aside, error), end; !error && it != end; it.increment(error)) {
    std::error_code own;
    fs::rename(it->path(), m_folder / it->path().filename(), own);  // fails where the new program wrote that call
  }
  fs::remove_all(m_aside, error);
  m_count = 0;
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
