#pragma once

#include <string>
#include <vector>

namespace blasscope::app {

// `blasscope-cli triage [FILE|-] [--json]`: the diagnoses a log or traceback shows, most
// likely first. Exit 0 when one matched, 1 when none did, 2 usage, 3 unreadable input.
int run_triage(const std::vector<std::string>& args);

}  // namespace blasscope::app
