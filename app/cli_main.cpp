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

// The blasscope-cli-tools that sits beside this executable, or "" where neither /proc/self/exe
// nor argv[0] says where that is (never one found in the working directory by chance).
std::string tools_path(const char* argv0) {
  char self[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string path = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string(argv0 ? argv0 : "");
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1) + "blasscope-cli-tools";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace blasscope::app;
  if (argc > 1 && std::strcmp(argv[1], "record") == 0) {
    const std::vector<std::string> args(argv + 2, argv + argc);
    return run_guarded([&args] { return run_record(args); });
  }
  const std::string tools = tools_path(argv[0]);
  if (tools.empty()) {
    std::cerr << "error: cannot tell where blasscope-cli-tools is (blasscope-cli runs every command but record "
                 "there, beside itself): neither /proc/self/exe nor the command's path names a folder\n";
    return kExitRejected;
  }
  ::execv(tools.c_str(), argv);
  std::cerr << "error: cannot start " << tools
            << " (blasscope-cli runs every command but record there): " << std::strerror(errno) << '\n';
  return kExitRejected;
}
