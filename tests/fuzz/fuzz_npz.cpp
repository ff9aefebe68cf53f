// libFuzzer harness: the npz reader on any bytes, then the inspector on what it accepted.
#include "io/npz_reader.h"
#include "tensor_exercise.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::read_and_exercise(
      data, size, [](std::shared_ptr<const core::MappedFile> mapping) { return core::read_npz(std::move(mapping)); });
}
