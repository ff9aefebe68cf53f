#pragma once

#include <vector>

#include "analysis/detection.h"
#include "analysis/tensor_stats.h"
#include "io/tensor_file.h"

namespace blasscope::core {

// Findings that follow from one tensor's values: non-finite-input, subnormal-values.
// The NumPy index, as "(i, j)", of the value at flat storage position `flat` (a stats scan's
// first_nonfinite: it counts components, two per complex element).
std::string index_tuple(const TensorInfo& tensor, std::uint64_t flat);

std::vector<Detection> findings_for_values(const TensorInfo& tensor, const TensorStats& stats);

}  // namespace blasscope::core
