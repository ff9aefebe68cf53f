#pragma once

#include "results/run_result.h"
#include "text/json.h"

namespace blasscope::core {

// A Chrome Trace Event document (Perfetto and chrome://tracing open it): one complete
// ("X") event per kernel on a track per device, host-memory counters ("C"), and an
// instant event where the worker crashed.
nlohmann::json chrome_trace(const RunResult& result);
// The same as the text of a .json file.
std::string chrome_trace_text(const RunResult& result);

}  // namespace blasscope::core
