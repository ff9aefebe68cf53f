#pragma once

// What every blasscope-cli process does around its command (blasscope-cli's `record` and
// blasscope-cli-tools' every command alike).
#include <csignal>
#include <iostream>
#include <new>

#include "cli_usage.h"
#include "record/recording.h"

namespace blasscope::app {

template <typename Command>
int run_guarded(Command&& command) {
  // Output piped into a closed reader (| head) must not kill the CLI.
  std::signal(SIGPIPE, SIG_IGN);
  blasscope::record::hold_closed_standard_streams();
  // Commands report the errors they expect themselves; whatever else escapes them still ends
  // with a message and the "input rejected" status, never with std::terminate's abort.
  try {
    return command();
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n(an error BLAScope did not expect here: please report it)\n";
  }
  return kExitRejected;
}

}  // namespace blasscope::app
