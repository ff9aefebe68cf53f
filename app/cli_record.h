#pragma once

#include <string>
#include <vector>

namespace blasscope::app {

// blasscope-cli record [OPTIONS] -- COMMAND [ARGS...]: runs COMMAND with every BLAS/LAPACK
// call recorded, writes the session, prints the summary on stderr, exits with COMMAND's status.
int run_record(const std::vector<std::string>& args);

}  // namespace blasscope::app
