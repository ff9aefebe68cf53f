#pragma once

#include <string>
#include <vector>

namespace blasscope::app {

// `blasscope-cli scenarios [--json]`: the built-in scenarios.
int run_scenarios(const std::vector<std::string>& args);
// `blasscope-cli explain ID`: the full explanation of a diagnosis id.
int run_explain(const std::vector<std::string>& args);
// `blasscope-cli report SESSION [--format md|html] [--output FILE]`.
int run_report(const std::vector<std::string>& args);

}  // namespace blasscope::app
