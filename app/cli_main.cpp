// blasscope-cli: the headless front end (scripts, CI, GPU servers without a display).
#include <csignal>
#include <cstdio>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli_catalogue.h"
#include "cli_inspect.h"
#include "cli_record.h"
#include "cli_run.h"
#include "cli_triage.h"
#include "cli_usage.h"
#include "record/recording.h"

namespace {

int dispatch(const std::vector<std::string>& args) {
  using namespace blasscope::app;
  if (args.empty()) {
    std::cerr << kCliUsage;
    return kExitUsage;
  }
  const std::string& command = args.front();
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kCliUsage;
    return 0;
  }
  if (command == "--version") {
    std::cout << "blasscope-cli " << BLASSCOPE_VERSION << '\n';
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  // COMMAND --help: that command's options. (record reads its own: what follows -- is the
  // recorded program's.)
  if (command != "record" && !rest.empty() && (rest.front() == "--help" || rest.front() == "-h")) {
    std::cout << command_usage(command);
    return kExitOk;
  }
  if (command == "inspect") return run_inspect(rest);
  if (command == "run") return run_run(rest);
  if (command == "scenarios") return run_scenarios(rest);
  if (command == "explain") return run_explain(rest);
  if (command == "report") return run_report(rest);
  if (command == "record") return run_record(rest);
  if (command == "triage") return run_triage(rest);
  std::cerr << "error: unknown command '" << command << "'\n\n" << kCliUsage;
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace blasscope::app;
  // Output piped into a closed reader (| head) must not kill the CLI.
  std::signal(SIGPIPE, SIG_IGN);
  blasscope::record::hold_closed_standard_streams();
  const std::vector<std::string> args(argv + 1, argv + argc);
  // Commands report the errors they expect themselves; whatever else escapes them still ends
  // with a message and the "input rejected" status, never with std::terminate's abort.
  try {
    return dispatch(args);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n(an error BLAScope did not expect here: please report it)\n";
  }
  return kExitRejected;
}
