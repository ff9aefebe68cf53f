#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "results/run_result.h"
#include "workload/workload.h"

namespace blasscope::core {

// What a tensor will be, known before anything is allocated (file tensors from headers).
struct TensorMeta {
  DType dtype = DType::Float64;
  std::vector<std::uint64_t> shape;
  MemoryOrder order = MemoryOrder::C;
  std::uint64_t ld = 0;  // 0: dense
  std::uint64_t bytes = 0;
  bool known = true;  // false when an earlier op's output could not be predicted
};

// Static analysis of a workload: the tensors every op will see, and what can be told before
// running: index-overflow (the op is then skipped, its tensors never allocated),
// buffer-overrun (shape and ld imply reading past a buffer), ld-cache-aliasing, and the
// predicted memory peak.
struct WorkloadPlan {
  std::map<std::string, TensorMeta> tensors;
  std::vector<Detection> predictions;
  std::set<std::size_t> skip_ops;
  std::uint64_t predicted_peak_bytes = 0;
};

WorkloadPlan plan_workload(const Workload& workload);

// The largest dimension or element count a 32-bit (LP64) BLAS integer addresses.
inline constexpr std::uint64_t kBlasIntMax = 2147483647;

}  // namespace blasscope::core
