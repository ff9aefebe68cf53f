#pragma once

#include <functional>
#include <string>

#include "exec/op_support.h"

namespace blasscope::core {

// A dlascl op in LAPACK's column-major terms, its matrix copied to `out_name` when the op
// writes elsewhere: the same for every device.
struct PreparedLascl {
  HostTensor* matrix = nullptr;  // scaled in place
  char type = 'G';               // after mirroring L/U for C-order matrices
  std::int64_t m = 0, n = 0, lda = 0;
  double cfrom = 1;
};

// Throws OpRejected for dtypes and shapes LAPACK's ?LASCL cannot take.
PreparedLascl prepare_lascl(const OpSpec& op, RunState& state, KernelRecord& record, const std::string& out_name);

// What a reported ?LASCL parameter was, with the value passed and its bound.
std::string lascl_argument_meaning(const PreparedLascl& p, int parameter);

// Throughput and output summary once the kernel ran without an argument error.
void finish_lascl_record(KernelRecord& record, const PreparedLascl& p);

// Restores the matrix before every repetition after the first (outside the timed region).
std::function<void()> lascl_restorer(RunState& state, ScopedTemporaries& temporaries, const PreparedLascl& p,
                                     int repeat, const std::string& name);

}  // namespace blasscope::core
