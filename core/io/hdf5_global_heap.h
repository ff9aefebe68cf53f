#pragma once

#include <cstdint>
#include <map>
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

// Where libhdf5 1.10 reads one variable-length value: it indexes the collection's object table
// without checking the index (a crash, found by fuzz_hdf5) and copies as many bytes as the value
// claims out of the object. Returns what is wrong with collection `at` (absolute), object
// `index` holding `bytes`, or nullopt. `objects` caches the collections already walked.
using Hdf5HeapObjects = std::map<std::uint64_t, std::map<std::uint64_t, std::uint64_t>>;
std::optional<std::string> check_global_heap_value(std::span<const std::byte> image, std::size_t length_size,
                                                   std::uint64_t at, std::uint64_t index, std::uint64_t bytes,
                                                   Hdf5HeapObjects& objects);

}  // namespace blasscope::core
