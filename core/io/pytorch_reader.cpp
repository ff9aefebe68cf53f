#include "io/pytorch_reader.h"

#include <charconv>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "io/inflate_reader.h"
#include "io/input_error.h"
#include "io/pickle_reader.h"

namespace blasscope::core {
namespace {

using K = PickleNode::Kind;

struct StorageType {
  std::string_view global;
  DType dtype;
};

// torch.*Storage as torch.save names a storage's dtype in its persistent id.
constexpr StorageType kStorageTypes[] = {
    {"torch.FloatStorage", DType::Float32},
    {"torch.DoubleStorage", DType::Float64},
    {"torch.HalfStorage", DType::Float16},
    {"torch.BFloat16Storage", DType::BFloat16},
    {"torch.LongStorage", DType::Int64},
    {"torch.IntStorage", DType::Int32},
    {"torch.ShortStorage", DType::Int16},
    {"torch.CharStorage", DType::Int8},
    {"torch.ByteStorage", DType::UInt8},
    {"torch.BoolStorage", DType::Bool},
    {"torch.ComplexFloatStorage", DType::Complex64},
    {"torch.ComplexDoubleStorage", DType::Complex128},
    {"torch.UntypedStorage", DType::UInt8},
};

// data.pkl of a state_dict with 100,000 tensors is about 10 MiB.
constexpr std::uint64_t kMaxPickleBytes = std::uint64_t{256} << 20;
// Nesting of containers in a checkpoint; deeper is hostile (or a list that holds itself).
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxDims = 64;
// Metadata values are shown, not stored: a long list is cut here.
constexpr std::size_t kMaxMetadataText = 200;
// A state_dict's keys are attribute names; a dotted name is a few of them.
constexpr std::size_t kMaxKeyBytes = 1024;
constexpr std::size_t kMaxNameBytes = 4096;

bool top_folder_pickle(const std::string& name) {
  constexpr std::string_view pickle = "/data.pkl";
  return name.size() > pickle.size() && name.ends_with(pickle) && name.find('/') == name.size() - pickle.size();
}

std::string folder_of(const std::string& pickle_member) {
  return pickle_member.substr(0, pickle_member.size() - std::string_view("data.pkl").size());
}

// open + inner + close, appended (GCC 12 warns falsely on char + std::string chains).
std::string enclosed(char open, std::string_view inner, std::string_view close) {
  std::string out(1, open);
  out.append(inner).append(close);
  return out;
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string out = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + (dims.size() == 1 ? ",)" : ")");
}

class CheckpointReader {
 public:
  CheckpointReader(TensorFile& file, const std::vector<ZipMember>& members) : m_file(file) {
    for (const ZipMember& member : members) {
      m_members.emplace(member.name, &member);
      if (top_folder_pickle(member.name)) {
        if (!m_prefix.empty()) fail_malformed("archive: two top folders hold a data.pkl");
        m_prefix = folder_of(member.name);
      }
    }
    if (m_prefix.empty()) fail_malformed("archive: no ARCHIVE/data.pkl entry");
  }

  void read() {
    read_byte_order();
    const std::vector<std::byte> bytes = member_bytes(m_prefix + "data.pkl", kMaxPickleBytes);
    m_pickle = read_pickle(bytes, m_prefix + "data.pkl");
    m_visit_budget = 4 * m_pickle.nodes.size() + 1024;
    m_text_budget = 64 * bytes.size() + (std::size_t{1} << 20);
    walk(m_pickle.root, "", 0);
    make_names_unique();
  }

 private:
  // {"a.b": t1, "a": {"b": t2}} gives two tensors named a.b: the later ones get "#2", "#3", so
  // a workload's "key" names exactly one tensor, and a warning says which one "a.b" gets.
  void make_names_unique() {
    constexpr int kListedWarnings = 20;
    int collisions = 0;
    std::unordered_set<std::string> taken;
    for (TensorInfo& tensor : m_file.tensors) {
      std::string unique = tensor.name;
      for (int n = 2; !taken.insert(unique).second; ++n) unique = tensor.name + "#" + std::to_string(n);
      if (unique != tensor.name && ++collisions <= kListedWarnings) {
        m_file.warnings.push_back({"duplicate-tensor-name",
                                   "two tensors are named '" + tensor.name +
                                       "' (a key with dots and nested keys give the same name): this one "
                                       "is listed as '" +
                                       unique + "', and a workload asking for '" + tensor.name + "' gets the first",
                                   unique,
                                   {{"name", tensor.name}, {"listed_as", unique}}});
      }
      tensor.name = std::move(unique);
    }
    if (collisions > kListedWarnings) {
      m_file.warnings.push_back({"duplicate-tensor-name",
                                 std::to_string(collisions - kListedWarnings) + " more tensors share a dotted name",
                                 "",
                                 {{"count", std::to_string(collisions)}}});
    }
  }

  const ZipMember* find(const std::string& name) const {
    const auto it = m_members.find(name);
    return it == m_members.end() ? nullptr : it->second;
  }

  // A small member's bytes (data.pkl, byteorder), inflated if needed; the size is checked first.
  std::vector<std::byte> member_bytes(const std::string& name, std::uint64_t limit) const {
    const ZipMember* member = find(name);
    if (!member) fail_malformed("archive: no '" + name + "' entry");
    if (member->uncompressed_size > limit) {
      fail_malformed("'" + name + "': " + std::to_string(member->uncompressed_size) + " bytes exceed the limit of " +
                     std::to_string(limit));
    }
    const auto stored = m_file.mapping->bytes().subspan(member->data_offset, member->compressed_size);
    if (member->method == 0) return {stored.begin(), stored.end()};
    std::vector<std::byte> out(member->uncompressed_size);
    InflateReader reader(stored, member->uncompressed_size, member->crc32, name);
    if (reader.read(out) != out.size()) fail_malformed("'" + name + "': ends early");
    reader.finish();
    return out;
  }

  void read_byte_order() {
    if (!find(m_prefix + "byteorder")) return;  // written since PyTorch 2.1; older files are little-endian
    const auto bytes = member_bytes(m_prefix + "byteorder", 16);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (text == "little") {
      m_order = ByteOrder::Little;
    } else if (text == "big") {
      m_order = ByteOrder::Big;
    } else {
      fail_malformed("'" + m_prefix + "byteorder': must be 'little' or 'big'");
    }
  }

  const PickleNode& node(std::uint32_t index) const { return m_pickle.at(index); }

  // Names are built from keys a pickle can reuse any number of times (BINGET), so their total
  // length is paid for from a budget proportional to data.pkl, like the walk's steps.
  std::string join(const std::string& prefix, const std::string& key) {
    std::string name = prefix.empty() ? key : prefix + "." + key;
    if (name.size() > kMaxNameBytes) {
      fail_malformed("'" + name.substr(0, 80) + "...': a tensor name longer than " + std::to_string(kMaxNameBytes) +
                     " bytes");
    }
    charge_text(name.size(), name);
    return name;
  }
  void charge_text(std::size_t bytes, const std::string& name) {
    if (bytes > m_text_budget) {
      fail_malformed("'" + name.substr(0, 80) + "': names and values repeat more text than the checkpoint holds");
    }
    m_text_budget -= bytes;
  }
  static bool is_structured(K kind) {
    return kind == K::Dict || kind == K::List || kind == K::Tuple || kind == K::Call || kind == K::PersistentId;
  }

  std::string key_text(std::uint32_t key, const std::string& where) {
    const PickleNode& k = node(key);
    if (k.kind == K::String) {
      if (k.text.size() > kMaxKeyBytes) {
        fail_malformed("'" + where.substr(0, 80) + "': a dict key of " + std::to_string(k.text.size()) +
                       " bytes (a checkpoint's keys are names, at most " + std::to_string(kMaxKeyBytes) + ")");
      }
      return k.text;
    }
    if (is_structured(k.kind)) fail_malformed("'" + where + "': a dict key is a " + std::string(name(k.kind)));
    m_render_budget = 1;
    return render(key, 0);
  }

  // Python-like text of a value without tensors, cut at kMaxMetadataText.
  std::string render(std::uint32_t index, int depth) {
    const PickleNode& n = node(index);
    if (depth > kMaxDepth || m_render_budget == 0 || m_visit_budget == 0) return "...";
    --m_render_budget;
    --m_visit_budget;
    switch (n.kind) {
      case K::None: return "None";
      case K::Bool: return n.boolean ? "True" : "False";
      case K::Int: return std::to_string(n.integer);
      case K::BigInt:
      case K::Shown: return n.text;
      case K::Float: {
        char buffer[64];
        std::string text(buffer, std::to_chars(buffer, buffer + sizeof buffer, n.real).ptr);
        if (text.find_first_of(".eni") == std::string::npos) text += ".0";  // Python's 1.0, not 1
        return text;
      }
      case K::String: {
        const std::string_view text = std::string_view(n.text).substr(0, kMaxMetadataText);
        const std::string_view more = n.text.size() > kMaxMetadataText ? "..." : "";
        return depth == 0 ? std::string(text) + std::string(more)
                          : enclosed('\'', text, std::string("'") + std::string(more));
      }
      case K::Bytes: return enclosed('<', std::to_string(n.integer), " bytes>");
      case K::Global: return enclosed('<', n.text, ">");
      case K::Call:
      case K::PersistentId: return enclosed('<', name(n.kind), ">");
      case K::Tuple:
      case K::List:
      case K::Set:
      case K::Dict: break;
    }
    const bool dict = n.kind == K::Dict;
    const bool set = n.kind == K::Set;
    // Python's repr: set(), frozenset({1}), Counter({1: 1}), Counter()
    const std::string label = n.text.empty() ? "" : n.text + "(";
    if (set && n.items.empty()) return label.empty() ? "set()" : label + ")";
    if (dict && !label.empty() && n.items.empty()) return label + ")";
    std::string out = label + (dict || set ? "{" : n.kind == K::List ? "[" : "(");
    for (std::size_t i = 0; i < n.items.size() && out.size() < kMaxMetadataText; ++i) {
      if (i) out += dict && i % 2 ? ": " : ", ";
      out += render(n.items[i], depth + 1);
    }
    if (n.kind == K::Tuple && n.items.size() == 1) out += ",";
    out += dict || set ? "}" : n.kind == K::List ? "]" : ")";
    if (!label.empty()) out += ")";
    if (out.size() > kMaxMetadataText) out = out.substr(0, kMaxMetadataText) + "...";
    return out;
  }

  // Every step of the walk (a visit, an item looked at, a value rendered) is paid for from one
  // budget proportional to the pickle's size, so a value shared a million times cannot make
  // the reader do a million times the work.
  void spend(const std::string& name) {
    if (m_visit_budget == 0) fail_malformed("'" + name + "': values are shared too many times");
    --m_visit_budget;
  }

  void walk(std::uint32_t index, const std::string& name, int depth) {
    if (depth > kMaxDepth) {
      const std::string shown = name.size() > 80 ? name.substr(0, 80) + "..." : name;
      fail_malformed("'" + shown + "': containers nest deeper than " + std::to_string(kMaxDepth) +
                     " levels (or a container holds itself)");
    }
    spend(name);
    const PickleNode& n = node(index);
    switch (n.kind) {
      case K::Dict:
        if (n.items.empty() || !n.text.empty()) break;  // {} and Counter(...) are values
        for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
          walk(n.items[i + 1], join(name, key_text(n.items[i], name)), depth + 1);
        }
        return;
      case K::List:
      case K::Tuple: {
        bool nested = false;
        for (std::uint32_t item : n.items) {
          spend(name);
          nested = nested || is_structured(node(item).kind);
        }
        if (!nested) break;
        for (std::size_t i = 0; i < n.items.size(); ++i) walk(n.items[i], join(name, std::to_string(i)), depth + 1);
        return;
      }
      case K::Call: return call(n, name, depth);
      default: break;
    }
    m_render_budget = 4 * kMaxMetadataText;
    std::string value = render(index, 0);
    charge_text(value.size(), name);
    m_file.metadata.emplace_back(name.empty() ? "value" : name, std::move(value));
  }

  void call(const PickleNode& n, const std::string& name, int depth) {
    const std::string& callable = node(n.items[0]).text;
    const PickleNode& args = node(n.items[1]);
    const std::string shown = name.empty() ? root_name() : name;
    if (callable == "torch._utils._rebuild_tensor_v2") return add_tensor(args, shown);
    if (callable == "torch._utils._rebuild_parameter" || callable == "torch._utils._rebuild_parameter_with_state") {
      if (args.items.empty()) fail_malformed("'" + shown + "': " + callable + " without arguments");
      return walk(args.items[0], name, depth + 1);  // a Parameter is the tensor it wraps
    }
    if (callable == "torch._tensor._rebuild_from_type_v2") return rebuild_from_type(args, name);
    fail_malformed("'" + shown + "': calls " + callable + ", which does not build a tensor");
  }

  // _rebuild_from_type_v2(func, new_type, args, state): a tensor with Python attributes (torch
  // 2.x). Read when it is a plain tensor or Parameter rebuilt by _rebuild_tensor_v2; the
  // attributes in `state` are not needed.
  void rebuild_from_type(const PickleNode& args, const std::string& name) {
    const std::string shown = name.empty() ? root_name() : name;
    if (args.items.size() < 3 || node(args.items[0]).kind != K::Global || node(args.items[1]).kind != K::Global ||
        node(args.items[2]).kind != K::Tuple) {
      fail_malformed("'" + shown + "': _rebuild_from_type_v2 needs (func, new_type, args, state)");
    }
    const std::string& func = node(args.items[0]).text;
    const std::string& type = node(args.items[1]).text;
    if (type != "torch.Tensor" && type != "torch.nn.parameter.Parameter") {
      fail_unsupported("'" + shown + "': a tensor of type " + type + " (only torch.Tensor and Parameter are read)");
    }
    if (func != "torch._utils._rebuild_tensor_v2") {
      fail_unsupported("'" + shown + "': _rebuild_from_type_v2 rebuilds it with " + func +
                       " (only torch._utils._rebuild_tensor_v2 is read)");
    }
    add_tensor(node(args.items[2]), shown);
  }

  std::string root_name() const { return std::filesystem::path(m_file.path).stem().string(); }

  std::int64_t int_arg(std::uint32_t index, const std::string& tensor, const std::string& field) const {
    const PickleNode& n = node(index);
    if (n.kind == K::BigInt) {
      fail_malformed("tensor '" + tensor + "': " + field + " is " + n.text.substr(0, 40) +
                     ", which does not fit 64 bits");
    }
    if (n.kind != K::Int || n.integer < 0)
      fail_malformed("tensor '" + tensor + "': " + field + " must be an integer >= 0");
    return n.integer;
  }
  std::vector<std::int64_t> dims_arg(std::uint32_t index, const std::string& tensor, const std::string& field) const {
    const PickleNode& n = node(index);
    if (n.kind != K::Tuple) fail_malformed("tensor '" + tensor + "': " + field + " must be a tuple");
    if (n.items.size() > kMaxDims) {
      fail_malformed("tensor '" + tensor + "': " + field + " has " + std::to_string(n.items.size()) +
                     " dimensions (limit " + std::to_string(kMaxDims) + ")");
    }
    std::vector<std::int64_t> dims;
    for (std::uint32_t item : n.items) dims.push_back(int_arg(item, tensor, field + " entries"));
    return dims;
  }

  static std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const std::string& tensor, const char* what) {
    std::uint64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) fail_malformed("tensor '" + tensor + "': " + what + " overflows 64 bits");
    return out;
  }

  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  void add_tensor(const PickleNode& args, const std::string& name) {
    if (args.items.size() < 4) fail_malformed("tensor '" + name + "': _rebuild_tensor_v2 needs at least 4 arguments");
    const PickleNode& storage = node(args.items[0]);
    const PickleNode* pid = storage.kind == K::PersistentId ? &node(storage.items[0]) : nullptr;
    // ('storage', storage_type, key, location, numel)
    if (!pid || pid->kind != K::Tuple || pid->items.size() != 5 || node(pid->items[0]).kind != K::String ||
        node(pid->items[0]).text != "storage" || node(pid->items[1]).kind != K::Global ||
        node(pid->items[2]).kind != K::String) {
      fail_malformed("tensor '" + name +
                     "': its storage is not a persistent id ('storage', type, key, location, numel)");
    }
    const std::string& type = node(pid->items[1]).text;
    const StorageType* storage_type = nullptr;
    for (const auto& entry : kStorageTypes) {
      if (entry.global == type) storage_type = &entry;
    }
    if (!storage_type) fail_unsupported("tensor '" + name + "': storage type " + type + " is not a tensor storage");
    const std::string& key = node(pid->items[2]).text;
    const std::uint64_t storage_numel = static_cast<std::uint64_t>(int_arg(pid->items[4], name, "storage numel"));
    const std::uint64_t item = item_size(storage_type->dtype);
    const std::uint64_t storage_bytes = checked_mul(storage_numel, item, name, "storage size");
    const std::string member_name = m_prefix + "data/" + key;
    const ZipMember* member = find(member_name);
    if (!member) fail_malformed("tensor '" + name + "': storage '" + key + "' has no entry '" + member_name + "'");
    if (member->uncompressed_size != storage_bytes) {
      fail_malformed(
          "tensor '" + name + "': storage '" + member_name + "' holds " + std::to_string(member->uncompressed_size) +
          " bytes but its persistent id says " + std::to_string(storage_numel) + " x " + std::to_string(item) + " = " +
          std::to_string(storage_bytes) + (member->uncompressed_size < storage_bytes ? " (truncated storage)" : ""));
    }

    const auto offset = static_cast<std::uint64_t>(int_arg(args.items[1], name, "storage_offset"));
    const auto shape = dims_arg(args.items[2], name, "size");
    const auto strides = dims_arg(args.items[3], name, "stride");
    if (shape.size() != strides.size()) {
      fail_malformed("tensor '" + name + "': size " + dims_text(shape) + " and stride " + dims_text(strides) +
                     " differ in length");
    }
    std::uint64_t count = 1;
    std::uint64_t last = offset;  // the highest element index the view touches
    for (std::size_t d = 0; d < shape.size(); ++d) {
      count = checked_mul(count, static_cast<std::uint64_t>(shape[d]), name, "the element count");
      if (shape[d] > 0) {
        const std::uint64_t reach = checked_mul(static_cast<std::uint64_t>(shape[d] - 1),
                                                static_cast<std::uint64_t>(strides[d]), name, "the view's extent");
        if (__builtin_add_overflow(last, reach, &last))
          fail_malformed("tensor '" + name + "': the view's extent overflows");
      }
    }
    if (count > 0 ? last >= storage_numel : offset > storage_numel) {
      fail_malformed("tensor '" + name + "': its view (storage offset " + std::to_string(offset) + ", size " +
                     dims_text(shape) + ", stride " + dims_text(strides) + ") reaches element " + std::to_string(last) +
                     ", but its storage '" + key + "' holds only " + std::to_string(storage_numel) + " elements");
    }

    TensorInfo tensor;
    tensor.name = name;
    tensor.dtype = storage_type->dtype;
    for (std::int64_t dim : shape) tensor.shape.push_back(static_cast<std::uint64_t>(dim));
    tensor.byte_order = item > 1 ? m_order : ByteOrder::NotApplicable;
    tensor.nbytes = checked_mul(count, item, name, "the byte size");
    const std::uint64_t start = offset * item;  // <= storage_bytes, checked above
    if (member->method == 0) {
      tensor.data_offset = member->data_offset + start;
    } else {
      tensor.data_offset = start;
      tensor.storage = TensorStorage{};
      tensor.storage.kind = TensorStorage::Kind::Deflated;
      tensor.storage.stream_offset = member->data_offset;
      tensor.storage.stream_size = member->compressed_size;
      tensor.storage.crc32 = member->crc32;
      tensor.storage.member_size = member->uncompressed_size;
    }
    if (count <= 1 || contiguous(shape, strides, false)) {
      tensor.order = MemoryOrder::C;
    } else if (contiguous(shape, strides, true)) {
      tensor.order = MemoryOrder::Fortran;
    } else {
      tensor.nbytes = (last - offset + 1) * item;  // the span of storage the view covers, as stored
      tensor.unread =
          UnreadDType{"strided", std::string(core::name(tensor.dtype)),
                      "a strided view (storage offset " + std::to_string(offset) + ", stride " + dims_text(strides) +
                          ") that is neither C- nor Fortran-contiguous; BLAScope reads contiguous tensors only: save "
                          "tensor.contiguous() to inspect its values"};
    }
    m_file.tensors.push_back(std::move(tensor));
  }

  // Dimensions of extent 1 may carry any stride, as in PyTorch's own is_contiguous().
  static bool contiguous(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                         bool fortran) {
    std::uint64_t expected = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const std::size_t d = fortran ? i : shape.size() - 1 - i;
      if (shape[d] != 1 && static_cast<std::uint64_t>(strides[d]) != expected) return false;
      expected *= static_cast<std::uint64_t>(shape[d]);  // no overflow: the element count was checked
    }
    return true;
  }

  TensorFile& m_file;
  std::unordered_map<std::string, const ZipMember*> m_members;
  std::string m_prefix;
  ByteOrder m_order = ByteOrder::Little;
  Pickle m_pickle;
  std::size_t m_visit_budget = 0;   // see spend()
  std::size_t m_render_budget = 0;  // nodes one metadata value may render
  std::size_t m_text_budget = 0;    // bytes of names and metadata text still allowed
};

}  // namespace

bool is_pytorch_archive(const std::vector<ZipMember>& members) {
  for (const ZipMember& member : members) {
    if (!top_folder_pickle(member.name)) continue;
    const std::string constants = folder_of(member.name) + "constants.pkl";
    for (const ZipMember& other : members) {
      if (other.name == constants) return false;  // TorchScript: code, not a checkpoint
    }
    return true;
  }
  return false;
}

TensorFile read_pytorch(std::shared_ptr<const MappedFile> mapping, const std::vector<ZipMember>& members) {
  TensorFile file;
  file.path = mapping->path();
  file.format = FileFormat::PyTorch;
  file.file_size = mapping->size();
  file.mapping = std::move(mapping);
  CheckpointReader(file, members).read();
  return file;
}

TensorFile read_pytorch(std::shared_ptr<const MappedFile> mapping) {
  const auto members = read_zip_directory(mapping->bytes());
  return read_pytorch(std::move(mapping), members);
}

}  // namespace blasscope::core
