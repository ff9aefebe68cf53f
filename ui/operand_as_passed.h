#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/kernel_record.h"

namespace blasscope::ui {

// What the library really read for one operand of a recorded op, which is not always the
// workload tensor itself: LAPACK drivers (svd, lstsq) get a dense column-major working copy
// (they overwrite their input); gemm reads every operand in place, one stored in the other
// order than the call's as its transpose; dlascl reads a C-order matrix in place as its
// column-major transpose. Derived from the record; Qt-free so it is tested without a display.
struct OperandAsPassed {
  core::MemoryOrder order = core::MemoryOrder::C;  // of the memory the library reads
  std::uint64_t rows = 1, cols = 1;                // of that memory, in the tensor's own terms
  std::int64_t ld = 0;                             // 0: not passed as a matrix argument
  std::int64_t padding = 0;                        // ld beyond the stored rows (C) or columns (F)
  bool copied = false;                             // a working copy, not the tensor's own memory
  std::string how;                                 // "copied to column-major (...), lda = 20, no padding"
  std::string alignment;                           // whose address alignment the record holds
};

OperandAsPassed operand_as_passed(const core::KernelRecord& record, const core::OperandRecord& operand);

}  // namespace blasscope::ui
