#include "io/pickle_reader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "io/input_error.h"
#include "io/little_endian.h"

namespace blasscope::core {
namespace {

// What torch.load(weights_only=True) lets a checkpoint name (torch/_weights_only_unpickler.py).
constexpr std::string_view kTorchGlobals[] = {
    "collections.OrderedDict",
    "collections.Counter",
    "builtins.set",
    "__builtin__.set",
    "builtins.frozenset",
    "__builtin__.frozenset",
    "builtins.complex",
    "__builtin__.complex",
    "builtins.bytearray",
    "__builtin__.bytearray",
    "_codecs.encode",
    "torch.Size",
    "torch.device",
    "torch.Tensor",
    "torch.nn.parameter.Parameter",
    "torch._tensor._rebuild_from_type_v2",
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

// torch.float16 and friends: torch pickles a dtype as the global of its name.
constexpr std::string_view kTorchDtypes[] = {
    "float32",       "float",       "float64",         "double",          "float16",        "half",
    "bfloat16",      "int8",        "int16",           "short",           "int32",          "int",
    "int64",         "long",        "uint8",           "uint16",          "uint32",         "uint64",
    "bool",          "complex32",   "chalf",           "complex64",       "cfloat",         "complex128",
    "cdouble",       "qint8",       "quint8",          "qint32",          "quint4x2",       "quint2x4",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
};

// An integer's magnitude in LONG1/LONG4 bytes: a 64-bit seed needs 9, 4096 is far beyond any value.
constexpr std::size_t kMaxLongBytes = 4096;

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
    if (m_stack.size() >= kMaxNodes) fail("more values than a checkpoint holds");
    charge(1);
    m_stack.push_back(index);
  }
  // A value built from a shared one (Counter(d), set(l), torch.Size(t) of a memoized argument)
  // copies items or text: paid from the same budget as pushes, so sharing cannot multiply memory.
  void charge(std::size_t units) {
    m_pushes += units;
    if (m_pushes > 4 * kMaxNodes) fail("more values than a checkpoint holds");
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
  // Bytes are counted, not kept: a value shown as <N bytes>, and a pickle can share one many times.
  static PickleNode bytes_of(std::uint64_t count) {
    PickleNode node = scalar(PickleNode::Kind::Bytes);
    node.integer = static_cast<std::int64_t>(count);
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

  // Why a refused global is refused, and what to save instead.
  static std::string advice(const std::string& full) {
    const std::string_view last = std::string_view(full).substr(full.rfind('.') + 1);
    if (full.starts_with("torch.optim.")) return "a pickled optimizer: save optimizer.state_dict() instead";
    if (full.starts_with("torch._utils._rebuild_sparse")) return "a sparse tensor: convert it with .to_dense() first";
    if (full == "torch._utils._rebuild_meta_tensor_no_storage") return "a meta tensor holds no data";
    if (full.starts_with("torch._utils._rebuild_qtensor")) return "a quantized tensor: save tensor.dequantize() first";
    // A class (Net, Sequential), except torch's own storage types: those are dtypes.
    const bool a_class = !last.empty() && last[0] >= 'A' && last[0] <= 'Z' && !full.starts_with("torch.");
    if (full.starts_with("torch.nn.modules.") || a_class) {
      return "a whole pickled nn.Module/object: save model.state_dict() instead";
    }
    return "";
  }

  void global(const std::string& module, const std::string& qualname) {
    const std::string full = module + "." + qualname;
    if (module == "torch" &&
        std::find(std::begin(kTorchDtypes), std::end(kTorchDtypes), qualname) != std::end(kTorchDtypes)) {
      return push(text(PickleNode::Kind::Shown, full));  // torch.float16: a dtype as a value
    }
    if (m_allowed(full)) return push(text(PickleNode::Kind::Global, full));
    const std::string why = advice(full);
    if (full.starts_with("torch.")) {
      // Newer PyTorch names more of its own (_rebuild_tensor_v3, storages of new dtypes):
      // not hostile, just not read here.
      fail_unsupported(
          m_what + ": uses '" + full +
          "', a part of PyTorch's format this reader does not support (nothing was loaded or called); " +
          (why.empty() ? "re-save the tensors in a dtype such as float32 or bfloat16, or as safetensors" : why));
    }
    fail_unsupported(m_what + ": refers to the global '" + full +
                     "', which a checkpoint of tensors never needs: refused, nothing was loaded or called "
                     "(torch.load(weights_only=True) refuses it too)" +
                     (why.empty() ? "" : "; " + why));
  }

  // Python's repr of a float inside a complex: 1.0 is "1".
  static std::string float_text(double value) {
    if (std::isnan(value)) return "nan";  // as Python writes any NaN, whatever its sign bit
    char buffer[64];
    return {buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr};
  }
  // Characters of a str: latin-1 text (bytes at protocol 2) holds one byte per character.
  // Counting is paid for too (a shared str may be counted many times), at a byte per 64.
  std::size_t code_points(const std::string& utf8) {
    charge(utf8.size() / 64);
    return static_cast<std::size_t>(
        std::count_if(utf8.begin(), utf8.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  }
  const PickleNode& arg(const PickleNode& args, std::size_t i, PickleNode::Kind kind, const std::string& callable) {
    if (i >= args.items.size() || m_nodes[args.items[i]].kind != kind) {
      fail(callable + " expects a " + std::string(name(kind)) + " as argument " + std::to_string(i + 1));
    }
    return m_nodes[args.items[i]];
  }

  void reduce() {
    using K = PickleNode::Kind;
    const std::uint32_t args_index = pop();
    const std::uint32_t callable_index = pop();
    if (m_nodes[callable_index].kind != K::Global) fail("calls a " + std::string(name(m_nodes[callable_index].kind)));
    if (m_nodes[args_index].kind != K::Tuple) fail("arguments are not a tuple");
    // Copies: push() may move m_nodes.
    const std::string callable = m_nodes[callable_index].text;
    const PickleNode args = m_nodes[args_index];
    if (callable == "collections.OrderedDict" || callable == "collections.Counter") {
      PickleNode dict = scalar(K::Dict);
      if (callable == "collections.Counter") dict.text = "Counter";
      if (!args.items.empty()) dict.items = arg(args, 0, K::Dict, callable).items;
      charge(dict.items.size());
      return push(std::move(dict));
    }
    if (callable.ends_with(".set") || callable.ends_with(".frozenset")) {
      PickleNode set = scalar(K::Set);
      if (callable.ends_with(".frozenset")) set.text = "frozenset";
      if (!args.items.empty()) set.items = arg(args, 0, K::List, callable).items;
      charge(set.items.size());
      return push(std::move(set));
    }
    if (callable.ends_with(".complex")) {
      double part[2] = {0, 0};
      for (std::size_t i = 0; i < std::min<std::size_t>(args.items.size(), 2); ++i) {
        const PickleNode& v = m_nodes[args.items[i]];
        if (v.kind == K::Float) {
          part[i] = v.real;
        } else if (v.kind == K::Int) {
          part[i] = static_cast<double>(v.integer);
        } else {
          fail("complex expects numbers");
        }
      }
      const std::string imag = float_text(part[1]) + "j";
      if (part[0] == 0 && !std::signbit(part[0])) return push_shown(imag);
      return push_shown("(" + float_text(part[0]) + (std::signbit(part[1]) && !std::isnan(part[1]) ? "" : "+") + imag +
                        ")");
    }
    if (callable == "_codecs.encode") {  // bytes at protocol 2: ('\x01\x02', 'latin1')
      const PickleNode& data = arg(args, 0, K::String, callable);
      return push(bytes_of(code_points(data.text)));
    }
    if (callable.ends_with(".bytearray")) {
      if (args.items.empty()) return push(bytes_of(0));
      const PickleNode& data = m_nodes[args.items[0]];
      if (data.kind == K::Bytes) return push(bytes_of(static_cast<std::uint64_t>(data.integer)));
      if (data.kind == K::String) return push(bytes_of(code_points(data.text)));
      fail("bytearray expects bytes or a str");
    }
    if (callable == "torch.Size") {
      std::string shown = "torch.Size([";
      for (std::size_t i = 0; i < arg(args, 0, K::Tuple, callable).items.size(); ++i) {
        const PickleNode& dim = m_nodes[m_nodes[args.items[0]].items[i]];
        if (dim.kind != K::Int) fail("torch.Size expects integers");
        shown += (i ? ", " : "") + std::to_string(dim.integer);
        if (shown.size() > 4096) fail("a torch.Size longer than any tensor's");
      }
      return push_shown(shown + "])");
    }
    if (callable == "torch.device") {
      std::string shown = "device(type='" + arg(args, 0, K::String, callable).text.substr(0, 64) + "'";
      if (args.items.size() > 1 && m_nodes[args.items[1]].kind == K::Int) {
        shown += ", index=" + std::to_string(m_nodes[args.items[1]].integer);
      }
      return push_shown(shown + ")");
    }
    push(sequence(K::Call, {callable_index, args_index}));
  }
  void push_shown(std::string shown) {
    charge(shown.size());
    push(text(PickleNode::Kind::Shown, std::move(shown)));
  }

  // LONG1/LONG4: little-endian two's complement of any length, kept as decimal when it does
  // not fit 64 bits (torch.seed() is an unsigned 64-bit value).
  void long_integer(std::span<const std::byte> digits) {
    const std::size_t count = digits.size();
    const bool negative = count > 0 && (std::to_integer<unsigned>(digits[count - 1]) & 0x80);
    if (count <= 8) {
      std::uint64_t value = 0;
      for (std::size_t i = 0; i < count; ++i)
        value |= std::uint64_t{std::to_integer<std::uint8_t>(digits[i])} << (8 * i);
      if (negative && count < 8) value |= ~std::uint64_t{0} << (8 * count);  // sign-extend
      if (count < 8 || negative == (value >> 63 != 0)) return push(integer(static_cast<std::int64_t>(value)));
    }
    // Magnitude as 32-bit limbs, little-endian; negate two's complement when negative.
    std::vector<std::uint32_t> limbs((count + 3) / 4, 0);
    for (std::size_t i = 0; i < count; ++i) {
      limbs[i / 4] |= std::uint32_t{std::to_integer<std::uint8_t>(digits[i])} << (8 * (i % 4));
    }
    if (negative) {
      for (std::size_t i = count; i < limbs.size() * 4; ++i) limbs[i / 4] |= std::uint32_t{0xFF} << (8 * (i % 4));
      std::uint64_t carry = 1;
      for (auto& limb : limbs) {
        const std::uint64_t sum = std::uint64_t{static_cast<std::uint32_t>(~limb)} + carry;
        limb = static_cast<std::uint32_t>(sum);
        carry = sum >> 32;
      }
    }
    std::string decimal;
    while (!limbs.empty()) {
      std::uint64_t remainder = 0;
      for (auto it = limbs.rbegin(); it != limbs.rend(); ++it) {
        const std::uint64_t current = (remainder << 32) | *it;
        *it = static_cast<std::uint32_t>(current / 1000000000);
        remainder = current % 1000000000;
      }
      while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
      std::string chunk = std::to_string(remainder);
      if (!limbs.empty()) chunk.insert(0, 9 - chunk.size(), '0');
      decimal.insert(0, chunk);
    }
    push(text(PickleNode::Kind::BigInt, (negative ? "-" : "") + decimal));
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
      case 0x8a: long_integer(take(take_le<std::uint8_t>())); return;                        // LONG1
      case 0x8b: {                                                                           // LONG4
        const std::int32_t count = static_cast<std::int32_t>(take_le<std::uint32_t>());
        if (count < 0 || static_cast<std::size_t>(count) > kMaxLongBytes) {
          fail("an integer of " + std::to_string(count) + " bytes (at most " + std::to_string(kMaxLongBytes) +
               " are read)");
        }
        long_integer(take(static_cast<std::uint64_t>(count)));
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
      case 'C': push(bytes_of(take(take_le<std::uint8_t>()).size())); return;         // SHORT_BINBYTES
      case 'B': push(bytes_of(take(take_le<std::uint32_t>()).size())); return;        // BINBYTES
      case 0x8e: push(bytes_of(take(take_le<std::uint64_t>()).size())); return;       // BINBYTES8
      case '}': push(scalar(K::Dict)); return;
      case 0x8f: push(scalar(K::Set)); return;  // EMPTY_SET
      case 0x90: {                              // ADDITEMS
        auto values = pop_mark();
        auto& set = container(K::Set);
        if (!set.text.empty()) fail("adds items to a frozenset");
        set.items.insert(set.items.end(), values.begin(), values.end());
        return;
      }
      case 0x91: {  // FROZENSET
        PickleNode set = sequence(K::Set, pop_mark());
        set.text = "frozenset";
        push(std::move(set));
        return;
      }
      case 0x96: push(bytes_of(take(take_le<std::uint64_t>()).size())); return;  // BYTEARRAY8
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
    case K::Set: return "set";
    case K::BigInt: return "int";
    case K::Shown: return "value";
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
