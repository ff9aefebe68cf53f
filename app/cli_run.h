#pragma once

#include <string>
#include <vector>

namespace blasscope::app {

// `blasscope-cli run WORKLOAD [...]`; returns the exit status.
int run_run(const std::vector<std::string>& args);

}  // namespace blasscope::app
