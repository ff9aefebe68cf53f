#pragma once

#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>

#include "results/run_event.h"

namespace blasscope::core {

// The one JSON form of run events: a flat object with an "event" name, the event's fields
// and "t". The worker writes it, and streams and session files are read back with it.
nlohmann::json encode_event(const RunEvent& event);
// An event name this BLAScope does not know (a newer one wrote it): readers skip and count it.
struct UnknownEvent : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws UnknownEvent for a well-formed event of an unknown kind, and nlohmann::json::exception
// for an object that is not an event or whose fields cannot be read (wrong type, an integer
// field holding 1e300 or -1 for a count: see text/json.h).
RunEvent decode_event(const nlohmann::json& json);

// The event's name as its JSON says it ("kernel_started").
std::string event_name(const RunEvent& event);

}  // namespace blasscope::core
