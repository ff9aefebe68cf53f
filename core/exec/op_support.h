#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/tensor_stats.h"
#include "exec/run_state.h"
#include "kernels/xerbla_capture.h"
#include "results/kernel_record.h"
#include "workload/workload.h"

namespace blasscope::core {

// An op that cannot run, with the finding id that explains it.
struct OpRejected : std::runtime_error {
  OpRejected(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind(kind) {}
  ErrorKind kind;  // shape-mismatch, dtype-mismatch, unsupported-dtype, missing-input
};

// A fresh record for an op: its index and kind filled in.
KernelRecord record_for(const OpSpec& op);

// Stats of a tensor's logical values (padding is skipped); first_nonfinite is the
// storage-order position (in components for complex tensors).
TensorStats summarize_values(const HostTensor& tensor);

// NaN and +/-Inf among a tensor's logical values.
std::pair<std::uint64_t, std::uint64_t> count_nonfinite(const HostTensor& tensor);

// Describes an operand for the record; `ld` is what the kernel was given. Inputs are
// scanned for NaN/Inf (`scan`); an output's counts are filled in after the kernel ran.
OperandRecord operand_record(const std::string& role, const HostTensor& tensor, std::int64_t ld, bool scan = true);
// Sets an operand's NaN/Inf/subnormal counts, largest magnitude and first NaN/Inf index.
void fill_value_summary(OperandRecord& record, const HostTensor& tensor);

// The tensor an op reads; throws OpRejected when it is missing (an earlier op failed).
HostTensor& input_tensor(RunState& state, const std::string& name);

// Runs `kernel` `repeat` times and records each duration. When `restore` is given it runs
// before every repetition after the first, outside the timed region (ops that update their
// output in place start each repetition from the same values).
void time_repeats(KernelRecord& record, int repeat, const std::function<void()>& kernel,
                  const std::function<void()>& restore = {});

void emit_kernel_started(RunState& state, const KernelRecord& record);

// Copies the argument errors a kernel reported into the record and the event stream (unless
// they were published as they came: `published`); `meaning` explains a parameter number in
// the user's terms. Marks the record failed.
void record_argument_errors(RunState& state, KernelRecord& record, const std::vector<XerblaCall>& calls,
                            const std::function<std::string(const XerblaCall&)>& meaning, bool published = false);
inline void record_argument_errors(RunState& state, KernelRecord& record, const std::vector<XerblaCall>& calls,
                                   const std::function<std::string(int)>& meaning) {
  record_argument_errors(state, record, calls, [&meaning](const XerblaCall& call) { return meaning(call.parameter); });
}

// Copies every logical element of src into dst (same shape), converting the dtype.
void copy_converted(const HostTensor& src, HostTensor& dst);

// A dense copy of `source` converted to `dtype` (a promotion), charged to the budget and
// freed with `temporaries`.
HostTensor& converted_copy(RunState& state, ScopedTemporaries& temporaries, const HostTensor& source, DType dtype,
                           const std::string& name);

std::string dtype_name(DType dtype);
std::string order_name(MemoryOrder order);

}  // namespace blasscope::core
