// libFuzzer harness: the Python literal parser that reads .npy headers, both dialects.
#include "fuzz_input.h"
#include "io/input_error.h"
#include "io/python_literal.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const bool python2 : {false, true}) {
    try {
      (void)core::parse_python_literal(fuzz::text_of(data, size), "header", {.python2_long_suffix = python2});
    } catch (const core::InputError&) {
    }
  }
  return 0;
}
