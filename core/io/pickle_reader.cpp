#include "io/pickle_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_map>

#include "io/input_error.h"
#include "io/little_endian.h"

namespace blasscope::core {
namespace {

// What torch.load(weights_only=True) lets a checkpoint name (torch/_weights_only_unpickler.py).
constexpr std::string_view kTorchGlobals[] = {
    "collections.OrderedDict",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch.FloatStorage",
    "torch.DoubleStorage",
    "torch.HalfStorage",
    "torch.BFloat16Storage",
    "torch.LongStorage",
    "torch.IntStorage",
    "torch.ShortStorage",
    "torch.CharStorage",
    "torch.ByteStorage",
    "torch.BoolStorage",
    "torch.ComplexFloatStorage",
    "torch.ComplexDoubleStorage",
    "torch.UntypedStorage",
};

// Mark stack depth: torch nests a few levels; a deep stack of marks is an attack on memory.
constexpr std::size_t kMaxMarks = 1000;
// Nodes and stack entries: a state_dict of 100,000 tensors needs about 2 million; a pickle of
// one-byte opcodes must not turn a few hundred MiB into tens of GiB of nodes.
constexpr std::size_t kMaxNodes = std::size_t{1} << 22;

std::string hex_byte(unsigned value) {
  constexpr char digits[] = "0123456789abcdef";
  return {'0', 'x', digits[(value >> 4) & 0xF], digits[value & 0xF]};
}

class PickleParser {
 public:
  PickleParser(std::span<const std::byte> bytes, const std::string& what, bool (*allowed)(std::string_view))
      : m_bytes(bytes), m_what(what), m_allowed(allowed) {}

  Pickle run() {
    while (true) {
      if (m_pos >= m_bytes.size()) fail_at(m_pos, "the pickle ends without a STOP opcode (truncated)");
      m_opcode_pos = m_pos;
      m_opcode = std::to_integer<unsigned>(m_bytes[m_pos++]);
      if (m_opcode == '.') break;
      step();
    }
    if (m_stack.size() != 1 || !m_marks.empty()) {
      fail("STOP leaves " + std::to_string(m_stack.size()) + " values and " + std::to_string(m_marks.size()) +
           " marks on the stack (expected exactly one value)");
    }
    Pickle pickle;
    pickle.root = m_stack.back();
    pickle.nodes = std::move(m_nodes);
    return pickle;
  }

 private:
  [[noreturn]] void fail_at(std::uint64_t pos, const std::string& message) const {
    fail_malformed(m_what + ": byte " + std::to_string(pos) + ": " + message);
  }
  [[noreturn]] void fail(const std::string& message) const {
    const char c = static_cast<char>(m_opcode);
    const std::string shown = c >= 0x21 && c < 0x7f ? " '" + std::string(1, c) + "'" : "";
    fail_at(m_opcode_pos, "opcode " + hex_byte(m_opcode) + shown + ": " + message);
  }

  std::span<const std::byte> take(std::uint64_t count) {
    if (count > m_bytes.size() - m_pos) {
      fail("needs " + std::to_string(count) + " bytes but only " + std::to_string(m_bytes.size() - m_pos) +
           " remain (truncated)");
    }
    const auto out = m_bytes.subspan(m_pos, count);
    m_pos += count;
    return out;
  }
  template <typename T>
  T take_le() {
    return read_le<T>(take(sizeof(T)), 0);
  }
  std::string take_text(std::uint64_t count) {
    const auto span = take(count);
    return {reinterpret_cast<const char*>(span.data()), span.size()};
  }
  std::string take_line() {
    const auto rest = m_bytes.subspan(m_pos);
    const auto* begin = reinterpret_cast<const char*>(rest.data());
    const void* newline = std::memchr(begin, '\n', rest.size());
    if (!newline) fail("a text argument has no terminating newline (truncated)");
    const std::string line(begin, static_cast<const char*>(newline));
    m_pos += line.size() + 1;
    return line;
  }

  std::uint32_t add(PickleNode node) {
    if (m_nodes.size() >= kMaxNodes) fail("more than " + std::to_string(kMaxNodes) + " values");
    m_nodes.push_back(std::move(node));
    return static_cast<std::uint32_t>(m_nodes.size() - 1);
  }
  void push(PickleNode node) { push_index(add(std::move(node))); }
  void push_index(std::uint32_t index) {
    // Every container item was pushed once: bounding pushes bounds all memory.
    if (m_stack.size() >= kMaxNodes || ++m_pushes > 4 * kMaxNodes) fail("more values than a checkpoint holds");
    m_stack.push_back(index);
  }
  std::uint32_t pop() {
    if (m_stack.size() <= stack_floor()) fail("the stack is empty");
    const std::uint32_t top = m_stack.back();
    m_stack.pop_back();
    return top;
  }
  std::uint32_t top() {
    if (m_stack.size() <= stack_floor()) fail("the stack is empty");
    return m_stack.back();
  }
  std::size_t stack_floor() const { return m_marks.empty() ? 0 : m_marks.back(); }
  std::vector<std::uint32_t> pop_mark() {
    if (m_marks.empty()) fail("no MARK to pop to");
    std::vector<std::uint32_t> items(m_stack.begin() + static_cast<std::ptrdiff_t>(m_marks.back()), m_stack.end());
    m_stack.resize(m_marks.back());
    m_marks.pop_back();
    return items;
  }
  static PickleNode scalar(PickleNode::Kind kind) {
    PickleNode node;
    node.kind = kind;
    return node;
  }
  static PickleNode integer(std::int64_t value) {
    PickleNode node = scalar(PickleNode::Kind::Int);
    node.integer = value;
    return node;
  }
  static PickleNode text(PickleNode::Kind kind, std::string value) {
    PickleNode node = scalar(kind);
    node.text = std::move(value);
    return node;
  }
  static PickleNode sequence(PickleNode::Kind kind, std::vector<std::uint32_t> items) {
    PickleNode node = scalar(kind);
    node.items = std::move(items);
    return node;
  }

  PickleNode& container(PickleNode::Kind kind) {
    PickleNode& node = m_nodes[top()];
    if (node.kind != kind) {
      fail("adds items to a " + std::string(name(node.kind)) + ", expected a " + std::string(name(kind)));
    }
    return node;
  }

  void global(const std::string& module, const std::string& qualname) {
    const std::string full = module + "." + qualname;
    if (!m_allowed(full) && full.starts_with("torch.")) {
      // Newer PyTorch names more of its own (_rebuild_tensor_v3 and torch.float8_e4m3fn for
      // the dtypes that have no typed storage): not hostile, just not read here yet.
      fail_unsupported(m_what + ": uses '" + full +
                       "', a part of PyTorch's format this reader does not support yet (nothing was loaded or "
                       "called); re-save the tensors in a dtype such as float32 or bfloat16, or as safetensors");
    }
    if (!m_allowed(full)) {
      fail_unsupported(m_what + ": refers to the global '" + full +
                       "', which a checkpoint of tensors never needs: refused, nothing was loaded or called "
                       "(torch.load(weights_only=True) refuses it too)");
    }
    push(text(PickleNode::Kind::Global, full));
  }

  void reduce() {
    const std::uint32_t args = pop();
    const std::uint32_t callable = pop();
    if (m_nodes[callable].kind != PickleNode::Kind::Global)
      fail("calls a " + std::string(name(m_nodes[callable].kind)));
    if (m_nodes[args].kind != PickleNode::Kind::Tuple) fail("arguments are not a tuple");
    if (m_nodes[callable].text == "collections.OrderedDict") {
      if (!m_nodes[args].items.empty()) fail("collections.OrderedDict takes no arguments here");
      push(scalar(PickleNode::Kind::Dict));
      return;
    }
    push(sequence(PickleNode::Kind::Call, {callable, args}));
  }

  void memo_put(std::uint32_t key) {
    // A pickle memoizes each value it builds once; MEMOIZE repeated on one value would grow
    // the table by a few bytes of input each.
    if (m_memo.size() > m_nodes.size() + 1024 && !m_memo.contains(key)) fail("more memo entries than values");
    m_memo[key] = top();
  }
  void memo_get(std::uint32_t key) {
    const auto it = m_memo.find(key);
    if (it == m_memo.end()) fail("memo entry " + std::to_string(key) + " was never stored");
    push_index(it->second);
  }

  void step() {
    using K = PickleNode::Kind;
    switch (m_opcode) {
      case 0x80: {  // PROTO
        const unsigned version = take_le<std::uint8_t>();
        if (version < 2 || version > 5) fail("protocol " + std::to_string(version) + " (2 to 5 are read)");
        return;
      }
      case 0x95: take_le<std::uint64_t>(); return;  // FRAME: a size hint only
      case '(':
        if (m_marks.size() >= kMaxMarks) fail("more than " + std::to_string(kMaxMarks) + " nested MARKs");
        m_marks.push_back(m_stack.size());
        return;
      case '0': pop(); return;              // POP
      case '1': pop_mark(); return;         // POP_MARK
      case '2': push_index(top()); return;  // DUP
      case 'N': push(scalar(K::None)); return;
      case 0x88:
      case 0x89: {  // NEWTRUE, NEWFALSE
        PickleNode node = scalar(K::Bool);
        node.boolean = m_opcode == 0x88;
        push(std::move(node));
        return;
      }
      case 'J': push(integer(static_cast<std::int32_t>(take_le<std::uint32_t>()))); return;  // BININT
      case 'K': push(integer(take_le<std::uint8_t>())); return;                              // BININT1
      case 'M': push(integer(take_le<std::uint16_t>())); return;                             // BININT2
      case 0x8a: {                                                                           // LONG1
        const unsigned count = take_le<std::uint8_t>();
        if (count > 8) fail("an integer of " + std::to_string(count) + " bytes does not fit 64 bits");
        const auto digits = take(count);
        std::uint64_t value = 0;
        for (unsigned i = 0; i < count; ++i)
          value |= std::uint64_t{std::to_integer<std::uint8_t>(digits[i])} << (8 * i);
        if (count > 0 && count < 8 && (std::to_integer<unsigned>(digits[count - 1]) & 0x80)) {
          value |= ~std::uint64_t{0} << (8 * count);  // sign-extend two's complement
        }
        push(integer(static_cast<std::int64_t>(value)));
        return;
      }
      case 'G': {  // BINFLOAT: big-endian IEEE double
        const auto raw = take(8);
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | std::to_integer<std::uint8_t>(raw[i]);
        PickleNode node = scalar(K::Float);
        node.real = std::bit_cast<double>(bits);
        push(std::move(node));
        return;
      }
      case 0x8c: push(text(K::String, take_text(take_le<std::uint8_t>()))); return;   // SHORT_BINUNICODE
      case 'X': push(text(K::String, take_text(take_le<std::uint32_t>()))); return;   // BINUNICODE
      case 0x8d: push(text(K::String, take_text(take_le<std::uint64_t>()))); return;  // BINUNICODE8
      case 'U': push(text(K::String, take_text(take_le<std::uint8_t>()))); return;    // SHORT_BINSTRING
      case 'T': push(text(K::String, take_text(take_le<std::uint32_t>()))); return;   // BINSTRING
      case 'C': push(text(K::Bytes, take_text(take_le<std::uint8_t>()))); return;     // SHORT_BINBYTES
      case 'B': push(text(K::Bytes, take_text(take_le<std::uint32_t>()))); return;    // BINBYTES
      case 0x8e: push(text(K::Bytes, take_text(take_le<std::uint64_t>()))); return;   // BINBYTES8
      case '}': push(scalar(K::Dict)); return;
      case ']': push(scalar(K::List)); return;
      case ')': push(scalar(K::Tuple)); return;
      case 'l': push(sequence(K::List, pop_mark())); return;
      case 't': push(sequence(K::Tuple, pop_mark())); return;
      case 'd': {
        auto items = pop_mark();
        if (items.size() % 2 != 0) fail("an odd number of items for a dict");
        push(sequence(K::Dict, std::move(items)));
        return;
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
        std::vector<std::uint32_t> items(m_opcode - 0x84);
        for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop();
        push(sequence(K::Tuple, std::move(items)));
        return;
      }
      case 'a': {  // APPEND
        const std::uint32_t value = pop();
        container(K::List).items.push_back(value);
        return;
      }
      case 'e': {  // APPENDS
        auto values = pop_mark();
        auto& list = container(K::List).items;
        list.insert(list.end(), values.begin(), values.end());
        return;
      }
      case 's': {  // SETITEM
        const std::uint32_t value = pop();
        const std::uint32_t key = pop();
        auto& dict = container(K::Dict).items;
        dict.push_back(key);
        dict.push_back(value);
        return;
      }
      case 'u': {  // SETITEMS
        auto pairs = pop_mark();
        if (pairs.size() % 2 != 0) fail("an odd number of items for a dict");
        auto& dict = container(K::Dict).items;
        dict.insert(dict.end(), pairs.begin(), pairs.end());
        return;
      }
      case 'q': memo_put(take_le<std::uint8_t>()); return;                     // BINPUT
      case 'r': memo_put(take_le<std::uint32_t>()); return;                    // LONG_BINPUT
      case 0x94: memo_put(static_cast<std::uint32_t>(m_memo.size())); return;  // MEMOIZE
      case 'h': memo_get(take_le<std::uint8_t>()); return;                     // BINGET
      case 'j': memo_get(take_le<std::uint32_t>()); return;                    // LONG_BINGET
      case 'c': {                                                              // GLOBAL
        std::string module = take_line();
        std::string qualname = take_line();
        global(module, qualname);
        return;
      }
      case 0x93: {  // STACK_GLOBAL
        const std::uint32_t qualname = pop();
        const std::uint32_t module = pop();
        if (m_nodes[module].kind != K::String || m_nodes[qualname].kind != K::String) {
          fail("module and name must be strings");
        }
        // Copies: global() pushes a node, which may move m_nodes.
        const std::string module_name = m_nodes[module].text, qualified = m_nodes[qualname].text;
        global(module_name, qualified);
        return;
      }
      case 'R': reduce(); return;
      case 'b':
        pop();
        top();
        return;  // BUILD: the state (a Parameter's or OrderedDict's attributes) is not needed
      case 'Q': push(sequence(K::PersistentId, {pop()})); return;  // BINPERSID
      default: break;
    }
    fail("is not one torch.save writes (unknown or not allowed)");
  }

  std::span<const std::byte> m_bytes;
  const std::string& m_what;
  bool (*m_allowed)(std::string_view);
  std::uint64_t m_pos = 0;
  std::uint64_t m_opcode_pos = 0;
  unsigned m_opcode = 0;
  std::vector<PickleNode> m_nodes;
  std::vector<std::uint32_t> m_stack;
  std::size_t m_pushes = 0;
  std::vector<std::size_t> m_marks;
  std::unordered_map<std::uint32_t, std::uint32_t> m_memo;
};

}  // namespace

std::string_view name(PickleNode::Kind kind) {
  using K = PickleNode::Kind;
  switch (kind) {
    case K::None: return "None";
    case K::Bool: return "bool";
    case K::Int: return "int";
    case K::Float: return "float";
    case K::String: return "str";
    case K::Bytes: return "bytes";
    case K::Tuple: return "tuple";
    case K::List: return "list";
    case K::Dict: return "dict";
    case K::Global: return "global";
    case K::Call: return "call";
    case K::PersistentId: break;
  }
  return "persistent id";
}

bool is_allowed_torch_global(std::string_view qualified_name) {
  return std::find(std::begin(kTorchGlobals), std::end(kTorchGlobals), qualified_name) != std::end(kTorchGlobals);
}

Pickle read_pickle(std::span<const std::byte> bytes, const std::string& what, bool (*allowed)(std::string_view)) {
  return PickleParser(bytes, what, allowed).run();
}

}  // namespace blasscope::core
