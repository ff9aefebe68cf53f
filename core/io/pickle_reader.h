#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blasscope::core {

// One value of a pickle, as data: nothing in a pickle is ever imported or called. A REDUCE
// becomes a Call node (callable and argument tuple) for the caller to interpret.
struct PickleNode {
  enum class Kind : std::uint8_t {
    None,
    Bool,
    Int,
    Float,
    String,
    Bytes,
    Tuple,
    List,
    Dict,
    Global,
    Call,
    PersistentId,
    Set,     // items; text "frozenset" for a frozenset
    BigInt,  // an integer outside 64 bits: text is its exact decimal
    Shown    // a value read from an allowed call (torch.float16, torch.Size([2, 3]), (1+2j)): text
  };
  Kind kind = Kind::None;
  bool boolean = false;
  std::int64_t integer = 0;  // Int; Bytes: the byte count (the bytes themselves are not kept)
  double real = 0;
  std::string text;  // String; Global: "module.name"; Dict: "Counter" for a collections.Counter
  // Tuple, List, Set: the elements. Dict: key, value, key, value... Call: callable, argument tuple.
  // PersistentId: the id.
  std::vector<std::uint32_t> items;
};

// A whole pickle: an arena of nodes (a memo may share one node many times, and a list may even
// hold itself, so nodes refer to each other by index and whoever walks them bounds the depth).
struct Pickle {
  std::vector<PickleNode> nodes;
  std::uint32_t root = 0;
  const PickleNode& at(std::uint32_t index) const { return nodes[index]; }
};

std::string_view name(PickleNode::Kind kind);

// The globals a torch.save checkpoint may name, as torch 2.x's torch.load(weights_only=True)
// allows them: collections.OrderedDict / Counter, set, frozenset, complex, bytearray,
// _codecs.encode, torch dtypes, torch.Size, torch.device, torch._utils._rebuild_tensor_v2 /
// _rebuild_parameter, torch._tensor._rebuild_from_type_v2, torch.Tensor, Parameter and the
// torch.*Storage types. A REDUCE of the value-building ones becomes the value itself (a Dict,
// Set, Bytes or Shown node); only the tensor-building calls stay Call nodes.
bool is_allowed_torch_global(std::string_view qualified_name);

// Reads a pickle of protocol 2 to 5 without running anything: a GLOBAL outside `allowed`
// (posix.system, builtins.eval...) is refused by name before anything else happens. Only the
// opcodes torch.save writes are understood. Throws InputError (prefixed with `what`) naming
// the opcode and its byte offset. Memory is bounded whatever the input claims: at most 4 Mi
// values (about as many memo entries and stack slots), 1000 nested MARKs, strings no longer
// than the input.
Pickle read_pickle(std::span<const std::byte> bytes, const std::string& what,
                   bool (*allowed)(std::string_view) = &is_allowed_torch_global);

}  // namespace blasscope::core
