// libFuzzer harness: the HDF5 reader (a .keras zip through its Keras branch) on any bytes,
// then the inspector on what it accepted: every dataset streamed or read in place.
#include "io/hdf5_reader.h"
#include "io/little_endian.h"
#include "tensor_exercise.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::read_and_exercise(data, size, [](std::shared_ptr<const core::MappedFile> mapping) {
    if (core::has_prefix(mapping->bytes(), "PK\x03\x04", 4)) {
      return core::read_keras(mapping, core::read_zip_directory(mapping->bytes()));
    }
    return core::read_hdf5(std::move(mapping));
  });
}
