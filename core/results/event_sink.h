#pragma once

#include <nlohmann/json.hpp>

namespace blasscope::core {

// Receives the events of a run as they happen (JSON objects with an "event" key).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void publish(const nlohmann::json& event) = 0;
};

}  // namespace blasscope::core
