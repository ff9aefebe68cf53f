#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>

namespace blasscope::core {

// libhdf5 1.10 copies a whole chunk out of whatever its filter pipeline decoded, without
// checking that the pipeline produced a whole chunk: a chunk that inflates short (its B-tree
// entry pointing at another dataset's data, found by fuzz_hdf5) is read past its buffer. The
// built-in filters (deflate, shuffle, fletcher32, szip, nbit, scale-offset) are re-registered
// once, each wrapping libhdf5's own: after decoding, a buffer shorter than the chunk the
// current thread is reading is grown and zero-filled, and where deflate's output must be the
// chunk itself (only shuffle after it), a short or long output fails the read instead.
void install_hdf5_filter_guards();

// While alive, chunks read on this thread are checked against `create` (the dataset's
// creation property list) and `item` (bytes per element).
class Hdf5ChunkReadGuard {
 public:
  Hdf5ChunkReadGuard(hid_t create, std::size_t item);
  ~Hdf5ChunkReadGuard();
  // Why a guarded filter failed the last read on this thread, or "".
  const std::string& failure() const;
  Hdf5ChunkReadGuard(const Hdf5ChunkReadGuard&) = delete;
  Hdf5ChunkReadGuard& operator=(const Hdf5ChunkReadGuard&) = delete;
};

}  // namespace blasscope::core
