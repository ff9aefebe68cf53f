#include "exec/worker_client.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace blasscope::core {

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: break;
  }
  const char* text = ::sigabbrev_np(signal);
  return text ? std::string("SIG") + text : "signal " + std::to_string(signal);
}

bool run_in_worker(const std::string& worker, const std::vector<std::string>& args, RunCollector& collector,
                   std::string& error) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  std::vector<std::string> argv_storage{worker};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, worker.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawn_error != 0) {
    ::close(pipe_fds[0]);
    error = "cannot start " + worker + ": " + std::strerror(spawn_error);
    return false;
  }
  WorkerStreamFramer framer;
  char buffer[65536];
  while (true) {
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    framer.feed(buffer, static_cast<std::size_t>(got), [&collector](const nlohmann::json& e) { collector.publish(e); });
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  record_worker_exit(collector, {WIFSIGNALED(status), WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)});
  return true;
}

void record_worker_exit(RunCollector& collector, const WorkerExit& exit) {
  if (exit.stopped_by_user) {
    collector.crashed("stopped by the user");
  } else if (exit.signaled) {
    collector.crashed(signal_name(exit.code));
  } else if (exit.code == kWorkerExitRejected && collector.rejected()) {
    return;  // the rejection event says why; nothing crashed
  } else if (exit.code != 0) {
    collector.crashed("exit status " + std::to_string(exit.code));
  }
}

}  // namespace blasscope::core
