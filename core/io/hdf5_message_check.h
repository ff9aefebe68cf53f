#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace blasscope::core {

// Checks of single object header messages that libhdf5 1.10 decodes trusting the sizes and
// counts they hold (each a read past the header found by fuzz_hdf5, or the same pattern next
// to one): the bytes a message's fields need must lie inside the message, and names read with
// strdup must end inside it. Each returns what is wrong, or "" for a message libhdf5 can decode
// without reading past it. HDF5 file format specification, "Header Message Types".

// Datatype message (0x0003), also the datatype inside an attribute: nested member, base and
// parent types, compound and enum member names, enum values.
std::string check_hdf5_datatype(std::span<const std::byte> message);
// Dataspace message (0x0001): its dimension sizes (and maxima) inside the message.
std::string check_hdf5_dataspace(std::span<const std::byte> message, std::size_t length_size);
// Fill value messages (0x0004 old, 0x0005): the value's declared size inside the message.
std::string check_hdf5_fill_value(std::span<const std::byte> message, bool old_format);
// Filter pipeline message (0x000B): names and client data of every filter.
std::string check_hdf5_filter_pipeline(std::span<const std::byte> message);
// Link message (0x0006): the link name and value.
std::string check_hdf5_link(std::span<const std::byte> message, std::size_t offset_size);
// Data layout message (0x0008): a compact dataset's values inside the message.
std::string check_hdf5_compact_layout(std::span<const std::byte> message);

// A variable-length value as an attribute stores it: in global heap collection `address`
// (relative to the base), object `index`, `bytes` long.
struct Hdf5HeapValue {
  std::uint64_t address = 0;
  std::uint64_t index = 0;
  std::uint64_t bytes = 0;
};

// What checking an attribute message needs, and what it finds.
struct Hdf5AttributeCheck {
  std::size_t offset_size = 8;
  std::size_t length_size = 8;
  std::uint64_t value_limit = 0;           // bytes a variable-length value may claim
  std::string name;                        // found: the attribute's name
  std::vector<Hdf5HeapValue> heap_values;  // found: variable-length values to look up
};

// Attribute message (0x000C): its name, datatype and dataspace, and elements x element size
// bytes of value, inside the message; where its variable-length values live.
std::string check_hdf5_attribute(std::span<const std::byte> message, Hdf5AttributeCheck& check);

}  // namespace blasscope::core
