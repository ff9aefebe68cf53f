#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "results/run_event.h"

namespace blasscope::core {

// The one JSON form of run events: a flat object with an "event" name, the event's fields
// and "t". The worker writes it, and streams and session files are read back with it.
nlohmann::json encode_event(const RunEvent& event);
// Throws nlohmann::json::exception for an object that is not a known event or whose
// fields cannot be read; the caller skips it.
RunEvent decode_event(const nlohmann::json& json);

// The event's name as its JSON says it ("kernel_started").
std::string event_name(const RunEvent& event);

}  // namespace blasscope::core
