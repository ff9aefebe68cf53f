#pragma once

#include <string>
#include <vector>

#include "results/kernel_record.h"

namespace blasscope::core {

// For a GEMM argument error: which argument of the user's call was wrong, the value passed,
// the bound it broke, and whether it is the row-major/column-major leading-dimension mix-up.
std::vector<std::string> gemm_argument_evidence(const KernelRecord& record, const XerblaRecord& error);

}  // namespace blasscope::core
