#pragma once

#include <string>
#include <vector>

namespace blasscope::app {

// `blasscope-cli inspect FILE [--json] [--quiet]`; returns the exit status.
int run_inspect(const std::vector<std::string>& args);

}  // namespace blasscope::app
