// blasscope-cli-tools: the headless front end's commands (scripts, CI, GPU servers without a
// display), which blasscope-cli runs (see cli_main.cpp).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli_catalogue.h"
#include "cli_guard.h"
#include "cli_inspect.h"
#include "cli_record.h"
#include "cli_run.h"
#include "cli_triage.h"
#include "cli_usage.h"

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
  const std::vector<std::string> args(argv + 1, argv + argc);
  return blasscope::app::run_guarded([&args] { return dispatch(args); });
}
