#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace blasscope::core {

// Variable-length strings (h5py's str attributes: keras_version, model_config...) live in
// global heap collections ("GCOL"). libhdf5 1.10 loops forever decoding a collection whose
// object has a zero advance (index 0, size 0), and jumps past the collection on a size that
// overruns it (found by fuzz_hdf5). Before any vlen value is read, every collection in the file
// outside the contiguous raw data is walked here the way libhdf5 will walk it; the first
// malformed one is returned, and vlen values are then not read.
std::optional<std::string> malformed_global_heap(std::span<const std::byte> image, std::size_t length_size,
                                                 const std::vector<std::pair<std::uint64_t, std::uint64_t>>& raw_data);

}  // namespace blasscope::core
