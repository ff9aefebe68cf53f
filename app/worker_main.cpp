// blasscope-worker: runs one workload and streams its events, one JSON object per line, on
// stdout. The caller (blasscope-cli, the GUI) survives whatever happens in here.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "exec/runner.h"
#include "exec/worker_client.h"
#include "io/input_error.h"
#include "results/event_codec.h"
#include "workload/scenarios.h"

namespace {

using namespace blasscope::core;

// Writes each event with one write(2) as it happens, so a crash loses nothing before it.
class FdSink : public EventSink {
 public:
  explicit FdSink(int fd) : m_fd(fd) {}
  void publish(const RunEvent& event) override {
    write_line(encode_event(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  void write_line(std::string line) {
    line += '\n';
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int m_fd;
};

std::uint64_t virtual_memory_size() {
  std::ifstream status("/proc/self/status");
  std::string key;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

// AddressSanitizer reserves terabytes of address space for its shadow memory and allocator, so
// an address-space limit means nothing there (scripts/dev.sh sanitize).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Backstop for the budget checks: an allocation that slips past them fails with ENOMEM
// instead of waking the kernel's OOM killer. Headroom covers OpenBLAS's buffers and stacks.
// Under ASan the budget checks stand alone.
void limit_address_space(std::uint64_t budget) {
  if (kAddressSanitizer) return;
  constexpr std::uint64_t kHeadroom = 2ull << 30;
  const rlim_t limit = virtual_memory_size() + budget + kHeadroom;
  const rlimit rl{limit, limit};
  ::setrlimit(RLIMIT_AS, &rl);
}

bool uses_gpu(const Workload& workload, const RunOptions& options) {
  if (options.device) return *options.device != DeviceChoice::Cpu;
  for (const OpSpec& op : workload.ops) {
    if (op.device != DeviceChoice::Cpu) return true;
  }
  return false;
}

int usage() {
  std::cerr << "usage: blasscope-worker WORKLOAD|SCENARIO [--device cpu|gpu|both] [--save-outputs DIR]\n"
               "       blasscope-worker --environment   (print the CPU and GPU environment as one JSON line)\n"
               "Runs a workload and writes its events as JSON lines on stdout (started by blasscope-cli).\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // A worker never outlives the CLI or GUI that started it: killed with SIGKILL mid-run, the
  // front end cannot stop it, and a kernel that loops forever would spin on alone.
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) return 1;  // the parent died before the line above
  if (argc == 2 && std::string(argv[1]) == "--environment") {
    // For front ends that want the machine's description without running anything; CUDA
    // is initialised here, in a process of its own.
    FdSink(STDOUT_FILENO).write_line(environment_line(probe_environment()));
    return 0;
  }
  std::string path;
  RunOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      const std::string d = argv[++i];
      if (d != "cpu" && d != "gpu" && d != "both") return usage();
      options.device = d == "cpu" ? DeviceChoice::Cpu : d == "gpu" ? DeviceChoice::Gpu : DeviceChoice::Both;
    } else if (arg == "--save-outputs" && i + 1 < argc) {
      options.save_outputs_dir = argv[++i];
    } else if (path.empty() && !arg.starts_with("-")) {
      path = arg;
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  // Events go to a private copy of stdout; anything a library prints lands on stderr.
  const int events_fd = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  FdSink sink(events_fd);
  try {
    const Workload workload = load_workload(path);
    // CUDA reserves address space for all host and device memory at start-up, so under an
    // address-space limit it cannot start: GPU runs rely on the budget checks alone.
    if (workload.memory_limit && !uses_gpu(workload, options)) limit_address_space(*workload.memory_limit);
    run_workload(workload, options, sink);
  } catch (const InputError& error) {
    sink.publish({0, events::Rejected{error.what()}});
    return kWorkerExitRejected;
  } catch (const std::bad_alloc&) {
    sink.publish({0, events::Rejected{"out of memory while preparing or running the workload"}});
    return kWorkerExitRejected;
  } catch (const std::exception& error) {
    // Not an abort: the events so far stay, and the client reports this reason.
    sink.publish({0, events::Rejected{std::string("the run stopped: ") + error.what()}});
    return kWorkerExitRejected;
  }
  return 0;
}
