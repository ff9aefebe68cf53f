#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_model/gpu_backend.h"

namespace blasscope::gpu {

// What CUPTI traces (BLASSCOPE_CUPTI): kernels, copies, memsets and allocations (the
// default); kernels alone ("kernels", the least overhead); or all that and every API call,
// correlated to ops by id ("api", the most).
enum class CuptiMode { Default, KernelsOnly, ApiCorrelation };

// CUPTI activity tracing for the process (CUPTI's callbacks are process-wide). The enabled
// activity kinds are the tables in cupti_tracer.cpp. Buffer callbacks only copy records into
// the collector and return; records are placed on BLAScope ops by each op's time window, or
// (CuptiMode::ApiCorrelation) through external correlation ids pushed around each op. Buffers are
// flushed once per run.
class CuptiTracer {
 public:
  // Starts tracing; false with the reason (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, ...) if it can't.
  static bool start(CuptiMode mode, std::string& why_not);
  // Brackets one op: its API calls carry the op as external correlation id, and records
  // without a correlation are placed by CUPTI timestamps.
  static void begin_op(std::size_t op);
  static void end_op();
  // Flushes CUPTI's buffers (unless `flush` is false: after a sticky error, when CUDA calls
  // are unsafe) and returns each op's device events, sorted by start; the collector is emptied.
  static std::vector<core::GpuOpActivity> take_all(bool flush = true);
};

}  // namespace blasscope::gpu
