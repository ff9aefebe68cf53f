#pragma once

// The folder a recording's captures go to (SESSION.captures, beside the session).
#include <cstddef>
#include <filesystem>

namespace blasscope::record {

// The captures an earlier recording under the same name left in `folder`: a new session
// replaces the old one, and call-ID folders it does not list would be taken for its own. Only
// what BLAScope writes counts (call-<digits> folders holding nothing but plain .npy files,
// unfinished .npy.part ones and a workload.json naming its recorded_call); anything else, and
// the folder itself, stays. Made before the program starts (the recording holds the folder's
// lock, see CaptureFolderLock), it sets them aside in a hidden folder inside `folder`: what the
// program then writes is its own, however soon and on whatever file system. Put back unless
// discarded (a command that cannot start leaves the earlier captures as they were). Errors
// leave the rest where it was.
class EarlierCaptures {
 public:
  explicit EarlierCaptures(std::filesystem::path folder);
  ~EarlierCaptures();  // restore()
  EarlierCaptures(const EarlierCaptures&) = delete;
  EarlierCaptures& operator=(const EarlierCaptures&) = delete;
  // Removes them; returns how many there were.
  std::size_t discard();
  void restore();

 private:
  std::filesystem::path m_folder, m_aside;
  std::size_t m_count = 0;
};

// Removes `folder` where it is an empty folder (not a link to one, not a file).
void remove_if_empty_folder(const std::filesystem::path& folder);

// A recording's hold on its capture folder while it runs: an exclusive lock on the folder,
// which the kernel lets go however the recorder ends. A second recording to the same session
// at the same time would take the first one's captures for an earlier recording's, and the
// first would list captures the second wrote over.
class CaptureFolderLock {
 public:
  CaptureFolderLock() = default;
  ~CaptureFolderLock();
  CaptureFolderLock(const CaptureFolderLock&) = delete;
  CaptureFolderLock& operator=(const CaptureFolderLock&) = delete;
  // Locks `folder` where it exists (and can be opened); false where another recording holds it.
  bool lock(const std::filesystem::path& folder);

 private:
  int m_fd = -1;
};

}  // namespace blasscope::record
