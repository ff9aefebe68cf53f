#pragma once

#include <vector>

#include "analysis/finding.h"
#include "analysis/tensor_stats.h"
#include "tensor/tensor_file.h"

namespace blasscope::core {

// Findings that follow from one tensor's values: non-finite-values, subnormal-values.
std::vector<Finding> findings_for_values(const TensorInfo& tensor, const TensorStats& stats);

}  // namespace blasscope::core
