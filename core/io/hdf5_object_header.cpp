#include "io/hdf5_object_header.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "io/hdf5_global_heap.h"
#include "io/hdf5_message_check.h"
#include "io/input_error.h"
#include "io/little_endian.h"

namespace blasscope::core {
namespace {

// HDF5 file format specification, "Data Object Headers" and "Header Message Types".
constexpr unsigned kContinuation = 0x10;
constexpr unsigned kSymbolTable = 0x11;
constexpr unsigned kAttribute = 0x0C;
constexpr unsigned kAttributeInfo = 0x15;
constexpr unsigned kDataspace = 0x01;
constexpr unsigned kDatatype = 0x03;
constexpr unsigned kFillValueOld = 0x04;
constexpr unsigned kFillValue = 0x05;
constexpr unsigned kLink = 0x06;
constexpr unsigned kDataLayout = 0x08;
constexpr unsigned kFilterPipeline = 0x0B;
constexpr unsigned kMessageShared = 0x02;        // message flag: the message lives in the shared heap
constexpr unsigned kHeaderCreationOrder = 0x04;  // v2 header flag: messages carry a creation order
constexpr std::size_t kMaxChunks = 4096;
constexpr std::uint64_t kMaxVariableLengthValue = 64 << 20;
constexpr std::uint64_t kMaxHeaderBytes = 256 << 20;  // all chunks of one header together

class HeaderWalker {
 public:
  HeaderWalker(std::span<const std::byte> image, const Hdf5Layout& layout, const std::string& object)
      : m_image(image), m_layout(layout), m_object(object) {}

  Hdf5ObjectHeader walk(std::uint64_t address) {
    const std::uint64_t at = absolute(address, 6, "its header");
    if (std::memcmp(m_image.data() + at, "OHDR", 4) == 0) {
      walk_v2(at);
    } else if (byte(at) == 1) {
      absolute(address, 16, "its header");
      walk_v1(at);
    } else {
      fail("its header at offset " + std::to_string(at) + " has version " + std::to_string(byte(at)) +
           " (1, or 2 with an OHDR signature)");
    }
    return m_result;
  }

 private:
  struct Chunk {
    std::uint64_t at;    // first message byte, absolute
    std::uint64_t size;  // bytes of messages (and gap)
  };

  [[noreturn]] void fail(const std::string& what) const {
    fail_malformed("HDF5 object '" + (m_object.empty() ? std::string("/") : m_object) + "': " + what);
  }

  unsigned byte(std::uint64_t at) const { return std::to_integer<unsigned>(m_image[at]); }

  bool undefined(std::uint64_t address) const {
    return m_layout.offset_size >= 8 ? address == ~std::uint64_t{0}
                                     : address == (std::uint64_t{1} << (8 * m_layout.offset_size)) - 1;
  }

  // The absolute position of `size` bytes at `address`, or a failure naming `what`.
  std::uint64_t absolute(std::uint64_t address, std::uint64_t size, const std::string& what) const {
    const std::uint64_t file = m_image.size();
    if (m_layout.base > file || address > file - m_layout.base || size > file - m_layout.base - address) {
      fail(what + " (" + std::to_string(size) + " bytes at address " + std::to_string(address) +
           ") lies past the end of the file (" + std::to_string(file) + " bytes)");
    }
    return m_layout.base + address;
  }

  void add_chunk(Chunk chunk) {
    m_walked += chunk.size;
    if (++m_chunks > kMaxChunks || m_walked > kMaxHeaderBytes) {
      fail("its header has more than " + std::to_string(kMaxChunks) + " chunks or " +
           std::to_string(kMaxHeaderBytes >> 20) + " MiB of messages");
    }
    m_pending.push_back(chunk);
  }

  void walk_v1(std::uint64_t at) {
    const std::uint64_t size = read_le_width(m_image.data() + at + 8, 4);
    add_chunk({absolute(at + 16 - m_layout.base, size, "its first header chunk"), size});
    walk_chunks(8, [&](const std::byte* p) {
      return Message{read_le_width(p, 2), read_le_width(p + 2, 2), std::to_integer<unsigned>(p[4])};
    });
  }

  void walk_v2(std::uint64_t at) {
    const unsigned flags = byte(at + 5);
    if (byte(at + 4) != 2) fail("its OHDR header has version " + std::to_string(byte(at + 4)) + " (2)");
    std::uint64_t prefix = 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
    const std::size_t width = std::size_t{1} << (flags & 3);
    absolute(at - m_layout.base, prefix + width, "its header prefix");
    const std::uint64_t size = read_le_width(m_image.data() + at + prefix, width);
    prefix += width;
    if (size > m_image.size()) fail("its first header chunk claims " + std::to_string(size) + " bytes");
    add_chunk({absolute(at + prefix - m_layout.base, size + 4, "its first header chunk"), size});
    m_v2_order = flags & kHeaderCreationOrder ? 2 : 0;
    walk_chunks(4 + m_v2_order, [](const std::byte* p) {
      return Message{std::to_integer<std::uint64_t>(p[0]), read_le_width(p + 1, 2), std::to_integer<unsigned>(p[3])};
    });
  }

  struct Message {
    std::uint64_t type;
    std::uint64_t size;
    unsigned flags;
  };

  template <typename Decode>
  void walk_chunks(std::size_t message_header, Decode decode) {
    while (!m_pending.empty()) {
      const Chunk chunk = m_pending.back();
      m_pending.pop_back();
      const std::uint64_t end = chunk.at + chunk.size;
      for (std::uint64_t p = chunk.at; end - p >= message_header;) {
        const Message message = decode(m_image.data() + p);
        p += message_header;
        if (message.size > end - p) {
          fail("a header message of " + std::to_string(message.size) + " bytes at offset " + std::to_string(p) +
               " overruns its chunk");
        }
        on_message(message, m_image.data() + p);
        p += message.size;
      }
    }
  }

  void on_message(const Message& message, const std::byte* data) {
    const std::size_t offset = m_layout.offset_size;
    const std::size_t length = m_layout.length_size;
    const bool shared = message.flags & kMessageShared;  // then the data only says where it lives
    if (shared && message.type != kAttribute) return;
    switch (message.type) {
      case kContinuation: {
        if (message.size < offset + length) fail("a continuation message is truncated");
        continuation(read_le_width(data, offset), read_le_width(data + offset, length));
        break;
      }
      case kSymbolTable:
        if (message.size < 2 * offset) fail("its symbol table message is truncated");
        check_local_heap(read_le_width(data + offset, offset));
        break;
      case kAttribute:
        if (shared) {
          m_result.shared_attributes = true;
        } else {
          attribute(data, message.size);
        }
        break;
      case kDataspace: check(check_hdf5_dataspace(std::span(data, message.size), length)); break;
      case kDatatype: check(check_hdf5_datatype(std::span(data, message.size))); break;
      case kFillValueOld:
      case kFillValue:
        check(check_hdf5_fill_value(std::span(data, message.size), message.type == kFillValueOld));
        break;
      case kLink: check(check_hdf5_link(std::span(data, message.size), offset)); break;
      case kDataLayout: check(check_hdf5_compact_layout(std::span(data, message.size))); break;
      case kFilterPipeline: check(check_hdf5_filter_pipeline(std::span(data, message.size))); break;
      case kAttributeInfo: {
        const std::uint64_t at = 2 + (message.size >= 2 && (std::to_integer<unsigned>(data[1]) & 1) ? 2 : 0);
        if (message.size < at + offset) fail("its attribute info message is truncated");
        if (!undefined(read_le_width(data + at, offset))) m_result.dense_attributes = true;
        break;
      }
      default: break;
    }
  }

  void continuation(std::uint64_t address, std::uint64_t size) {
    const std::uint64_t at = absolute(address, size, "a continuation chunk");
    if (!m_continuations.insert(at).second) fail("a continuation chunk at offset " + std::to_string(at) + " repeats");
    if (m_v2_order < 0) {
      add_chunk({at, size});
      return;
    }
    if (size < 8 || std::memcmp(m_image.data() + at, "OCHK", 4) != 0) {
      fail("the continuation chunk at offset " + std::to_string(at) + " has no OCHK signature");
    }
    add_chunk({at + 4, size - 8});
  }

  // A symbol table's local heap holds the group's link names; libhdf5 allocates its data
  // segment at the size the heap header claims before reading it.
  void check_local_heap(std::uint64_t address) {
    const std::size_t length = m_layout.length_size;
    const std::uint64_t at = absolute(address, 8 + 2 * length + m_layout.offset_size, "its local heap");
    if (std::memcmp(m_image.data() + at, "HEAP", 4) != 0) {
      fail("its local heap at offset " + std::to_string(at) + " has no HEAP signature");
    }
    const std::uint64_t size = read_le_width(m_image.data() + at + 8, length);
    const std::uint64_t data = read_le_width(m_image.data() + at + 8 + 2 * length, m_layout.offset_size);
    absolute(data, size, "its local heap's data segment");
  }

  void attribute(const std::byte* data, std::uint64_t size) {
    Hdf5AttributeCheck attribute;
    attribute.offset_size = m_layout.offset_size;
    attribute.length_size = m_layout.length_size;
    check(check_hdf5_attribute(std::span(data, size), attribute));
    // libhdf5 allocates what a variable-length value claims before it looks in the heap: more
    // than the file (where it must lie), or than is worth showing, is not read.
    const std::uint64_t limit = std::min<std::uint64_t>(m_image.size(), kMaxVariableLengthValue);
    for (const Hdf5HeapValue& value : attribute.heap_values) {
      if (value.bytes > limit) {
        m_result.unreadable_values.emplace(attribute.name, "a value claims " + std::to_string(value.bytes) +
                                                               " bytes (more than " + std::to_string(limit) + ")");
        break;
      }
      if (value.address > m_image.size() - m_layout.base)
        fail("a variable-length value's heap lies past the end of the file");
      const auto problem = check_global_heap_value(m_image, m_layout.length_size, m_layout.base + value.address,
                                                   value.index, value.bytes, m_heap_objects);
      if (problem) {
        m_result.unreadable_values.emplace(attribute.name, *problem);
        break;
      }
    }
    m_result.attribute_names.push_back(std::move(attribute.name));
  }

  void check(const std::string& problem) const {
    if (!problem.empty()) fail(problem);
  }

  std::span<const std::byte> m_image;
  const Hdf5Layout& m_layout;
  const std::string& m_object;
  Hdf5ObjectHeader m_result;
  std::vector<Chunk> m_pending;
  std::set<std::uint64_t> m_continuations;
  Hdf5HeapObjects m_heap_objects;  // global heap collections already walked
  std::size_t m_chunks = 0;
  std::uint64_t m_walked = 0;
  int m_v2_order = -1;  // -1 for a version 1 header; else the bytes of creation order per message
};

}  // namespace

Hdf5ObjectHeader check_hdf5_object_header(std::span<const std::byte> image, const Hdf5Layout& layout,
                                          std::uint64_t address, const std::string& object) {
  return HeaderWalker(image, layout, object).walk(address);
}

}  // namespace blasscope::core
