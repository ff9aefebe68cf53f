#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/kernel_record.h"

namespace blasscope::gpu {

// CUPTI activity tracing for the process (CUPTI's callbacks are process-wide). The enabled
// activity kinds are the table kEnabledKinds in cupti_tracer.cpp. Buffer callbacks only
// copy records into the collector and return; records are mapped to BLAScope ops through
// external correlation ids pushed around each op.
class CuptiTracer {
 public:
  // Starts tracing; false with the reason (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, ...) if it can't.
  static bool start(std::string& why_not);
  static void begin_op(std::size_t op);
  static void end_op();
  // Flushes CUPTI's buffers and returns the op's device events, sorted by start.
  static std::vector<core::DeviceEventRecord> take(std::size_t op);
  static std::uint64_t dropped();
};

}  // namespace blasscope::gpu
