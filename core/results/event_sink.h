#pragma once

#include "results/run_event.h"

namespace blasscope::core {

// Receives the events of a run as they happen.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void publish(const RunEvent& event) = 0;
};

}  // namespace blasscope::core
