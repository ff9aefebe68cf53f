// libFuzzer harness: the PyTorch checkpoint reader on any bytes, then the inspector on what it accepted.
#include <memory>

#include "fuzz_input.h"
#include "io/input_error.h"
#include "io/mapped_file.h"
#include "io/pytorch_reader.h"
#include "tensor_exercise.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::MemoryFile input(data, size);
  try {
    auto mapping = std::make_shared<const core::MappedFile>(input.path());
    fuzz::exercise(core::read_pytorch(std::move(mapping)));
  } catch (const core::InputError&) {
    // refused with a message: what a reader must do with bad input
  }
  return 0;
}
