#include "results/kernel_record.h"

namespace blasscope::core {

std::uint64_t KernelRecord::input_nonfinite() const {
  std::uint64_t total = 0;
  for (const auto& o : operands) {
    if (!o.is_output()) total += o.nan + o.inf;
  }
  return total;
}

}  // namespace blasscope::core
