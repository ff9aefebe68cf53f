#include "io/hdf5_message_check.h"

#include <cstring>

#include "io/little_endian.h"

namespace blasscope::core {
namespace {

struct Bad {
  std::string what;
};

std::uint64_t padded8(std::uint64_t size) {
  return (size + 7) & ~std::uint64_t{7};
}

// Reads a message front to back; every read past its end throws Bad naming `what`.
class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> bytes) : m_bytes(bytes) {}

  std::uint64_t left() const { return m_bytes.size() - m_at; }
  std::uint64_t at() const { return m_at; }

  std::uint64_t number(std::size_t width, const char* what) { return read_le_width(skip(width, what), width); }

  const std::byte* skip(std::uint64_t n, const char* what) {
    if (n > left()) throw Bad{"a header message ends before " + std::string(what)};
    const std::byte* p = m_bytes.data() + m_at;
    m_at += n;
    return p;
  }

  // A NUL-terminated name, then padding to a multiple of 8 bytes when `padded`.
  std::string name(bool padded, const char* what) {
    const auto* start = reinterpret_cast<const char*>(m_bytes.data() + m_at);
    const void* nul = std::memchr(start, '\0', left());
    if (!nul) throw Bad{std::string(what) + " has no terminating NUL inside its message"};
    std::string text(start, static_cast<const char*>(nul));
    skip(padded ? padded8(text.size() + 1) : text.size() + 1, what);
    return text;
  }

 private:
  std::span<const std::byte> m_bytes;
  std::uint64_t m_at = 0;
};

template <typename Check>
std::string guarded(Check check) {
  try {
    check();
  } catch (const Bad& bad) {
    return bad.what;
  }
  return "";
}

constexpr int kMaxTypeDepth = 32;

struct TypeInfo {
  std::uint64_t size = 0;       // bytes per element, as stored
  unsigned type_class = 0;      // 9: variable-length
  std::uint64_t base_size = 0;  // a variable-length type's element size
};

// One encoded datatype; returns its size field (bytes per element).
std::uint64_t datatype(Cursor& in, int depth, TypeInfo* info = nullptr) {
  if (depth > kMaxTypeDepth) throw Bad{"a datatype nested more than 32 deep"};
  const unsigned head = static_cast<unsigned>(in.number(1, "a datatype"));
  const unsigned type_class = head & 0x0F, version = head >> 4;
  const std::uint64_t bits = in.number(3, "a datatype");
  const std::uint64_t size = in.number(4, "a datatype's size");
  switch (type_class) {
    case 0:  // fixed-point
    case 4:  // bitfield
      in.skip(4, "a datatype's properties");
      break;
    case 1: in.skip(12, "a floating-point datatype's properties"); break;
    case 2: in.skip(2, "a time datatype's properties"); break;
    case 5: in.skip(bits & 0xFF, "an opaque datatype's tag"); break;
    case 6: {  // compound
      const std::uint64_t members = bits & 0xFFFF;
      std::size_t offset_width = 1;
      while (offset_width < 8 && size >> (8 * offset_width)) ++offset_width;
      for (std::uint64_t m = 0; m < members; ++m) {
        in.name(version < 3, "a compound member's name");
        const std::uint64_t offset = in.number(version < 3 ? 4 : offset_width, "a compound member's offset");
        if (version == 1) in.skip(28, "a compound member's dimensions");
        const std::uint64_t member = datatype(in, depth + 1);
        if (offset > size || member > size - offset) throw Bad{"a compound member lies outside its compound"};
      }
      break;
    }
    case 8: {  // enumeration: base type, names, then one base-type value per member
      const std::uint64_t members = bits & 0xFFFF;
      const std::uint64_t base = datatype(in, depth + 1);
      // libhdf5 decodes members x base size bytes of values but copies members x enum size.
      if (base != size) throw Bad{"an enumeration's size differs from its base type's"};
      for (std::uint64_t m = 0; m < members; ++m) in.name(version < 3, "an enumeration member's name");
      std::uint64_t values = 0;
      if (__builtin_mul_overflow(members, base, &values)) throw Bad{"an enumeration's values overflow 64 bits"};
      in.skip(values, "an enumeration's values");
      break;
    }
    case 9: {  // variable-length: its base type
      const std::uint64_t base = datatype(in, depth + 1);
      if (info) info->base_size = base;
      break;
    }
    case 10: {  // array
      const std::uint64_t rank = in.number(1, "an array datatype's rank");
      if (version < 3) in.skip(3, "an array datatype");
      std::uint64_t elements = 1;
      for (std::uint64_t k = 0; k < rank; ++k) {
        if (__builtin_mul_overflow(elements, in.number(4, "an array datatype's dimensions"), &elements)) {
          throw Bad{"an array datatype's size overflows 64 bits"};
        }
      }
      if (version < 3) in.skip(4 * rank, "an array datatype's permutation");
      std::uint64_t whole = 0;
      if (__builtin_mul_overflow(elements, datatype(in, depth + 1), &whole) || whole != size) {
        throw Bad{"an array datatype's size is not its elements x its base type's size"};
      }
      break;
    }
    default: break;  // string, reference: no properties; others libhdf5 refuses itself
  }
  if (info) {
    info->size = size;
    info->type_class = type_class;
  }
  return size;
}

// Elements in an encoded dataspace, or nullopt-like ~0 for a version libhdf5 refuses itself.
std::uint64_t dataspace(Cursor& in, std::size_t length_size) {
  const std::uint64_t version = in.number(1, "a dataspace");
  const std::uint64_t rank = in.number(1, "a dataspace's rank");
  const std::uint64_t flags = in.number(1, "a dataspace's flags");
  if (version != 1 && version != 2) return ~std::uint64_t{0};
  if (rank > 32) throw Bad{"a dataspace of rank " + std::to_string(rank) + " (HDF5 allows 32)"};
  std::uint64_t kind = 1;  // version 2 kinds: 0 scalar, 1 simple, 2 null
  if (version == 1) {
    in.skip(5, "a dataspace");
  } else {
    kind = in.number(1, "a dataspace's type");
  }
  std::uint64_t count = kind == 2 ? 0 : 1;
  for (std::uint64_t k = 0; k < rank; ++k) {
    const std::uint64_t dim = in.number(length_size, "a dataspace's dimensions");
    if (kind == 1 && __builtin_mul_overflow(count, dim, &count)) throw Bad{"a dataspace's size overflows 64 bits"};
  }
  if (flags & 1) in.skip(rank * length_size, "a dataspace's maximum dimensions");
  if (version == 1 && (flags & 2)) in.skip(rank * length_size, "a dataspace's permutation");
  return count;
}

}  // namespace

std::string check_hdf5_datatype(std::span<const std::byte> message) {
  return guarded([&] {
    Cursor in(message);
    datatype(in, 0);
  });
}

std::string check_hdf5_dataspace(std::span<const std::byte> message, std::size_t length_size) {
  return guarded([&] {
    Cursor in(message);
    dataspace(in, length_size);
  });
}

std::string check_hdf5_fill_value(std::span<const std::byte> message, bool old_format) {
  return guarded([&] {
    Cursor in(message);
    if (old_format) {
      in.skip(in.number(4, "a fill value's size"), "a fill value");
      return;
    }
    const std::uint64_t version = in.number(1, "a fill value message");
    if (version == 1 || version == 2) {
      in.skip(2, "a fill value message");
      const bool defined = in.number(1, "a fill value message") != 0;
      if (version == 1 || defined) in.skip(in.number(4, "a fill value's size"), "a fill value");
    } else if (version == 3) {
      if (in.number(1, "a fill value message's flags") & 0x20) {
        in.skip(in.number(4, "a fill value's size"), "a fill value");
      }
    }
  });
}

std::string check_hdf5_filter_pipeline(std::span<const std::byte> message) {
  return guarded([&] {
    Cursor in(message);
    const std::uint64_t version = in.number(1, "a filter pipeline");
    const std::uint64_t filters = in.number(1, "a filter pipeline's count");
    if (version == 1) in.skip(6, "a filter pipeline");
    if (version != 1 && version != 2) return;
    for (std::uint64_t f = 0; f < filters; ++f) {
      const std::uint64_t id = in.number(2, "a filter's id");
      const std::uint64_t name_length = version == 1 || id >= 256 ? in.number(2, "a filter's name length") : 0;
      in.skip(2, "a filter's flags");
      const std::uint64_t values = in.number(2, "a filter's client data count");
      if (name_length > 0) {
        const std::byte* name = in.skip(version == 1 ? padded8(name_length) : name_length, "a filter's name");
        if (!std::memchr(name, '\0', name_length)) throw Bad{"a filter's name has no terminating NUL"};
      }
      in.skip(4 * values, "a filter's client data");
      if (version == 1 && values % 2 == 1) in.skip(4, "a filter's padding");
    }
  });
}

std::string check_hdf5_link(std::span<const std::byte> message, std::size_t offset_size) {
  return guarded([&] {
    Cursor in(message);
    if (in.number(1, "a link message") != 1) return;  // libhdf5 refuses other versions itself
    const std::uint64_t flags = in.number(1, "a link message's flags");
    const std::uint64_t type = flags & 0x08 ? in.number(1, "a link's type") : 0;
    if (flags & 0x04) in.skip(8, "a link's creation order");
    if (flags & 0x10) in.skip(1, "a link name's character set");
    const std::uint64_t name_length = in.number(std::size_t{1} << (flags & 3), "a link name's length");
    if (name_length == 0) throw Bad{"a link name of length 0"};
    in.skip(name_length, "a link name");
    if (type == 0) in.skip(offset_size, "a hard link's address");
    if (type == 1 || type >= 64) in.skip(in.number(2, "a link value's length"), "a link value");
  });
}

std::string check_hdf5_compact_layout(std::span<const std::byte> message) {
  return guarded([&] {
    Cursor in(message);
    const std::uint64_t version = in.number(1, "a data layout");
    if (version >= 3) {
      if (in.number(1, "a data layout's class") != 0) return;  // not compact
      in.skip(in.number(2, "a compact layout's size"), "a compact dataset's values");
      return;
    }
    const std::uint64_t rank = in.number(1, "a data layout's rank");
    if (in.number(1, "a data layout's class") != 0) return;
    in.skip(5 + 4 * rank, "a data layout's dimensions");
    in.skip(in.number(4, "a compact layout's size"), "a compact dataset's values");
  });
}

std::string check_hdf5_attribute(std::span<const std::byte> message, Hdf5AttributeCheck& check) {
  return guarded([&] {
    Cursor in(message);
    const std::uint64_t version = in.number(1, "an attribute message");
    if (version < 1 || version > 3) throw Bad{"an attribute message has version " + std::to_string(version) + " (1-3)"};
    const bool shared_parts = (in.number(1, "an attribute message") & 3) != 0 && version > 1;
    const std::uint64_t name_size = in.number(2, "an attribute name's size");
    const std::uint64_t type_size = in.number(2, "an attribute datatype's size");
    const std::uint64_t space_size = in.number(2, "an attribute dataspace's size");
    if (version == 3) in.skip(1, "an attribute name's character set");
    const bool padded = version == 1;
    const auto* text =
        reinterpret_cast<const char*>(in.skip(padded ? padded8(name_size) : name_size, "an attribute name"));
    if (name_size == 0 || !std::memchr(text, '\0', name_size)) {
      throw Bad{"an attribute name of " + std::to_string(name_size) + " bytes has no terminating NUL"};
    }
    check.name = text;
    const std::byte* type = in.skip(padded ? padded8(type_size) : type_size, "an attribute's datatype");
    const std::byte* space = in.skip(padded ? padded8(space_size) : space_size, "an attribute's dataspace");
    if (shared_parts) return;  // a shared datatype or dataspace is described elsewhere
    Cursor type_in(std::span(type, type_size));
    TypeInfo info;
    std::uint64_t item = datatype(type_in, 0, &info);
    // libhdf5 sizes a variable-length element as stored in the file ({length, heap ID}),
    // whatever the datatype's size field says.
    if (info.type_class == 9) item = 8 + check.offset_size;
    Cursor space_in(std::span(space, space_size));
    const std::uint64_t count = dataspace(space_in, check.length_size);
    if (count == ~std::uint64_t{0}) return;
    // libhdf5 copies elements x element size bytes of value without comparing them with the
    // message (a read of gigabytes past it, found by fuzz_hdf5).
    std::uint64_t need = 0;
    if (__builtin_mul_overflow(count, item, &need) || need > in.left()) {
      throw Bad{"an attribute's value needs " + std::to_string(count) + " x " + std::to_string(item) +
                " bytes but its message holds " + std::to_string(in.left())};
    }
    // A variable-length value is {length, heap address, index}: libhdf5 allocates length x
    // base size before it looks in the heap, then copies that many bytes out of the object.
    if (info.type_class == 9) {
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t bytes = 0;
        Cursor element(std::span(in.skip(item, "an attribute's value"), item));
        const std::uint64_t length = element.number(4, "a variable-length value's length");
        if (__builtin_mul_overflow(length, info.base_size, &bytes)) bytes = ~std::uint64_t{0};
        const std::uint64_t address = element.number(check.offset_size, "a variable-length value's heap address");
        const std::uint64_t index = element.number(4, "a variable-length value's heap index");
        if (length > 0) check.heap_values.push_back({address, index, bytes});
      }
    }
  });
}

}  // namespace blasscope::core
