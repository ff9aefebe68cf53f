// blasscope-cli: the headless front end (scripts, CI, GPU servers without a display). It runs
// `record` itself and hands every other command to blasscope-cli-tools beside it (exec: the
// same process, arguments and streams). This binary loads no BLAS: OpenBLAS's load and start
// (its 14,000 relocations, its threads) cost every recording 6-10 ms on two cores, before the
// program starts.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli_guard.h"
#include "cli_record.h"

namespace {

// The blasscope-cli-tools that sits beside this executable.
std::string tools_path() {
  char self[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string();
  const std::size_t slash = dir.rfind('/');
  dir = slash == std::string::npos ? "." : dir.substr(0, slash);
  return dir + "/blasscope-cli-tools";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace blasscope::app;
  if (argc > 1 && std::strcmp(argv[1], "record") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return run_guarded([&args] { return run_record(args); });
  }
  const std::string tools = tools_path();
  ::execv(tools.c_str(), argv);
  std::cerr << "error: cannot start " << tools
            << " (blasscope-cli runs every command but record there): " << std::strerror(errno) << '\n';
  return kExitRejected;
}
