#pragma once

#include "io/tensor_file.h"
#include "tensor/host_tensor.h"
#include "workload/workload.h"

namespace blasscope::core {

// The element count and storage bytes a tensor spec will need, known before allocating
// (file tensors are described by their headers only).
struct TensorRequirement {
  DType dtype = DType::Float64;
  std::vector<std::uint64_t> shape;
  MemoryOrder order = MemoryOrder::C;
  std::uint64_t bytes = 0;
};

// Opens the file of a file tensor and finds its entry; throws InputError naming the
// workload tensor, the file and the key ("tensors.w: x.npz has no member 'q'; it has a, b").
const TensorInfo& find_file_tensor(const TensorFile& file, const FileTensorSource& source, const std::string& name);

TensorRequirement requirement_of(const TensorSpec& spec);

// Makes the tensor: file data converted to host byte order, or synthetic values (seeded),
// NaN/Inf injected at seeded positions, the requested misalignment and padding.
HostTensor make_tensor(const TensorSpec& spec);

// Fills a synthetic tensor's values as the spec says (exposed for tests).
void fill_synthetic(HostTensor& tensor, const SyntheticTensorSource& spec);

}  // namespace blasscope::core
