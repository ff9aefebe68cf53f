#pragma once

// The folder a recording's captures go to (SESSION.captures, beside the session).
#include <cstddef>
#include <filesystem>

namespace blasscope::record {

// The date that parts captures written before this call from those written after it (see
// remove_earlier_captures): now, once the kernel dates new files after it. It dates them with a
// clock that lags by up to a tick (4 ms here): this waits out that tick, so that a recording
// started at once after another (a script's loop) still tells the other's captures from its
// own. Where `folder` holds no capture, at once the earliest date: none is earlier.
std::filesystem::file_time_type capture_epoch(const std::filesystem::path& folder);

// Removes the captures an earlier recording under the same name left in `folder`: a new
// session replaces the old one, and call-ID folders it does not list would be taken for its
// own. Only what BLAScope writes goes (call-<digits> folders, dated at or before `since`, holding
// nothing but plain .npy files, unfinished .npy.part ones and workload.json); anything else,
// and the folder itself, stays. Returns how many were removed; errors leave the rest as it was.
std::size_t remove_earlier_captures(const std::filesystem::path& folder, std::filesystem::file_time_type since);

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
