#include "workload/tensor_factory.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_set>

#include "io/input_error.h"
#include "io/tensor_data.h"
#include "io/tensor_file_reader.h"
#include "tensor/byte_swap.h"
#include "tensor/element_codec.h"

namespace blasscope::core {
namespace {

const TensorInfo& file_entry(const TensorSpec& spec, TensorFile& holder) {
  const auto& source = std::get<FileTensorSource>(spec.source);
  try {
    holder = open_tensor_file(source.path);
  } catch (const InputError& error) {
    throw InputError(error.kind(), "tensors." + spec.name + ": " + source.path + ": " + error.what());
  }
  return find_file_tensor(holder, source, spec.name);
}

// Distinct seeded positions among `count` values.
std::vector<std::uint64_t> pick_positions(std::uint64_t count, std::uint64_t wanted, std::mt19937_64& rng) {
  std::vector<std::uint64_t> picked;
  if (wanted * 4 < count) {
    std::unordered_set<std::uint64_t> seen;
    std::uniform_int_distribution<std::uint64_t> any(0, count - 1);
    while (picked.size() < wanted) {
      const std::uint64_t p = any(rng);
      if (seen.insert(p).second) picked.push_back(p);
    }
    return picked;
  }
  picked.resize(count);
  std::iota(picked.begin(), picked.end(), 0);
  std::shuffle(picked.begin(), picked.end(), rng);
  picked.resize(wanted);
  return picked;
}

}  // namespace

const TensorInfo& find_file_tensor(const TensorFile& file, const FileTensorSource& source, const std::string& name) {
  std::string names;
  for (const auto& t : file.tensors) {
    if (t.name == source.key || (source.key.empty() && file.tensors.size() == 1)) {
      if (t.unread) {
        fail_unsupported("tensors." + name + ": '" + t.name + "' is not read: " + t.unread->reason);
      }
      if (!is_scannable(t.dtype)) {
        fail_unsupported("tensors." + name + ": '" + t.name + "' is " + std::string(core::name(t.dtype)) +
                         ", a packed type BLAScope cannot compute with");
      }
      return t;
    }
    names += (names.empty() ? "" : ", ") + t.name;
  }
  if (source.key.empty()) {
    fail_malformed("tensors." + name + ": " + source.path + " holds " + std::to_string(file.tensors.size()) +
                   " tensors; name one with \"key\" (" + names + ")");
  }
  fail_malformed("tensors." + name + ": " + source.path + " has no tensor '" + source.key + "' (it has: " + names +
                 ")");
}

TensorRequirement requirement_of(const TensorSpec& spec) {
  TensorRequirement r;
  if (const auto* s = std::get_if<SyntheticTensorSource>(&spec.source)) {
    r = {s->dtype, s->shape, s->order, HostTensor::storage_bytes_for(s->dtype, s->shape, s->order, s->ld)};
  } else {
    TensorFile holder;
    const TensorInfo& info = file_entry(spec, holder);
    r = {info.dtype, info.shape, info.order, info.nbytes};
  }
  r.bytes += HostTensor::kAllocationOverhead;
  return r;
}

void fill_synthetic(HostTensor& tensor, const SyntheticTensorSource& spec) {
  std::mt19937_64 rng(spec.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const DType dtype = tensor.dtype();
  const bool complex = kind(dtype) == DTypeKind::Complex;
  const std::uint64_t count = tensor.element_count();
  for (std::uint64_t i = 0; i < count; ++i) {
    std::complex<double> v;
    switch (spec.fill) {
      case FillKind::Random: v = complex ? std::complex<double>(normal(rng), normal(rng)) : normal(rng); break;
      case FillKind::Uniform: v = complex ? std::complex<double>(uniform(rng), uniform(rng)) : uniform(rng); break;
      case FillKind::Zeros: v = 0; break;
      case FillKind::Ones: v = 1; break;
      case FillKind::Range: v = static_cast<double>(i); break;
      case FillKind::Constant: v = spec.constant; break;
    }
    if (kind(dtype) == DTypeKind::SignedInt || kind(dtype) == DTypeKind::UnsignedInt) {
      v = std::round(v.real() * (spec.fill == FillKind::Random || spec.fill == FillKind::Uniform ? 10 : 1));
    }
    store_element(dtype, tensor.data() + tensor.offset_of_flat(i), v);
  }
  const auto positions = pick_positions(count, spec.nan + spec.inf, rng);
  for (std::size_t p = 0; p < positions.size(); ++p) {
    const double special =
        p < spec.nan ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    store_element(dtype, tensor.data() + tensor.offset_of_flat(positions[p]), special);
  }
}

HostTensor make_tensor(const TensorSpec& spec) {
  if (const auto* s = std::get_if<SyntheticTensorSource>(&spec.source)) {
    HostTensor tensor(spec.name, s->dtype, s->shape, s->order, s->ld, s->misalign);
    fill_synthetic(tensor, *s);
    return tensor;
  }
  TensorFile holder;
  const TensorInfo& info = file_entry(spec, holder);
  HostTensor tensor(spec.name, info.dtype, info.shape, info.order);
  read_tensor_bytes(holder, info, tensor.data());
  if (info.byte_order == ByteOrder::Big) {
    copy_swapped(tensor.data(), tensor.data(), info.nbytes, swap_width(info.dtype));
  }
  return tensor;
}

}  // namespace blasscope::core
