#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace blasscope::core {

// What the superblock says about how addresses and lengths are written.
struct Hdf5Layout {
  std::size_t offset_size = 8;  // bytes per file address
  std::size_t length_size = 8;  // bytes per length
  std::uint64_t base = 0;       // absolute position that addresses are relative to
  std::uint64_t root = 0;       // address of the root group's object header
};

// The parts of one object header that libhdf5 1.10 trusts without checking, as found by
// fuzz_hdf5 (tests/fuzz/regressions/hdf5): attribute names without their NUL (decoded
// with strdup, reading past the header), a symbol table whose local heap claims hundreds of GB
// (allocated before it is read), and chunks or continuations past the end of the file.
struct Hdf5ObjectHeader {
  std::vector<std::string> attribute_names;  // compact attributes, in header order
  bool dense_attributes = false;             // kept in a fractal heap, listed by libhdf5
  bool shared_attributes = false;            // in the shared-message heap: names not in the header
  // Attributes whose variable-length values libhdf5 must not read (name -> why): the file's
  // other contents are still read.
  std::map<std::string, std::string> unreadable_values;
};

// Walks the object header at `address` (relative to layout.base) and every continuation chunk,
// bounded by the image. Throws InputError(Malformed) naming `object` and what is wrong.
Hdf5ObjectHeader check_hdf5_object_header(std::span<const std::byte> image, const Hdf5Layout& layout,
                                          std::uint64_t address, const std::string& object);

}  // namespace blasscope::core
