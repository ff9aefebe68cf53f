// libFuzzer harness: the pickle reader alone (a checkpoint's data.pkl), with torch's allow-list.
#include <span>

#include "fuzz_input.h"
#include "io/input_error.h"
#include "io/pickle_reader.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::Pickle pickle = core::read_pickle(std::as_bytes(std::span(data, size)), "data.pkl");
    // Every index a node holds must name a node: a reader that returned a dangling one fails here.
    for (const core::PickleNode& node : pickle.nodes) {
      for (const std::uint32_t item : node.items) {
        if (item >= pickle.nodes.size()) __builtin_trap();
      }
    }
    if (pickle.root >= pickle.nodes.size()) __builtin_trap();
  } catch (const core::InputError&) {
  }
  return 0;
}
