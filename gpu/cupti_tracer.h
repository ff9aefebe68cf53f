#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_model/cupti_setting.h"
#include "gpu_model/gpu_backend.h"

namespace blasscope::gpu {

// CUPTI activity tracing for the process (CUPTI's callbacks are process-wide). The enabled
// activity kinds are those the setting (BLASSCOPE_CUPTI) names. Buffer callbacks only copy records into
// the collector and return; records are placed on BLAScope ops by each op's time window, or
// (setting.api) through external correlation ids pushed around each op. Buffers are
// flushed once per run.
class CuptiTracer {
 public:
  // Starts tracing; false with the reason (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, ...) if it can't.
  // Once per process: `applied` is the setting the first call started with, which later
  // backends share whatever they asked for.
  static bool start(const core::CuptiSetting& setting, std::string& why_not, core::CuptiSetting& applied);
  // Brackets one op: its API calls carry the op as external correlation id, and records
  // without a correlation are placed by CUPTI timestamps.
  static void begin_op(std::size_t op);
  static void end_op();
  // Flushes CUPTI's buffers (unless `flush` is false: after a sticky error, when CUDA calls
  // are unsafe) and returns each op's device events, sorted by start; the collector is emptied.
  static std::vector<core::GpuOpActivity> take_all(bool flush = true);
  // Disables (or enables again) the kinds start() enabled, for measuring their cost side by
  // side in one process (blasscope-bench-gpu): between runs only, after take_all (records of
  // work still running could be lost). CUPTI stays attached while paused. False where CUPTI
  // refused a kind.
  static bool pause(bool paused);
};

}  // namespace blasscope::gpu
