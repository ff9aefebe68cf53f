#include "exec/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "results/event_codec.h"
#include "text/format.h"
#include "text/json.h"

extern char** environ;

namespace blasscope::core {

namespace {

constexpr std::size_t kStderrKept = 64 * 1024;

// Reads once without blocking: the bytes read, 0 at end of stream, -1 when nothing is there yet.
ssize_t read_some(int fd, char* buffer, std::size_t size) {
  while (true) {
    const ssize_t got = ::read(fd, buffer, size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -1;
    return got < 0 ? 0 : got;
  }
}

}  // namespace

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

std::size_t WorkerStreamFramer::feed(const char* data, std::size_t size, RunCollector& collector) {
  m_pending.append(data, size);
  std::size_t start = 0, newline, published = 0;
  while ((newline = m_pending.find('\n', start)) != std::string::npos) {
    if (newline > start) {
      const nlohmann::json json =
          nlohmann::json::parse(m_pending.begin() + static_cast<std::ptrdiff_t>(start),
                                m_pending.begin() + static_cast<std::ptrdiff_t>(newline), nullptr, false);
      try {
        if (json.is_discarded()) throw nlohmann::json::parse_error::create(101, 0, "not JSON", nullptr);
        collector.publish(decode_event(json));
        ++published;
      } catch (const nlohmann::json::exception&) {
        collector.skipped_event();
      } catch (const UnknownEvent&) {
        collector.skipped_event();
      }
    }
    start = newline + 1;
  }
  m_pending.erase(0, start);
  return published;
}

void record_worker_exit(RunCollector& collector, const WorkerExit& exit, const std::string& output) {
  // A stop that came after the worker had finished its run changes nothing.
  const bool finished = collector.completed() && !exit.signaled && exit.code == 0;
  if (exit.stopped_by_user && !finished) {
    collector.crashed("stopped by the user");
  } else if (exit.signaled) {
    collector.crashed(signal_name(exit.code), output);
  } else if (exit.code == kWorkerExitRejected && collector.rejected()) {
    return;  // the rejection event says why; nothing crashed
  } else if (exit.code != 0) {
    collector.crashed("exit status " + std::to_string(exit.code), output);
  }
}

WorkerProcess::~WorkerProcess() {
  if (m_pid > 0) {
    ::kill(m_pid, SIGKILL);
    // Reaped if it goes within 2 s; one stuck in a driver call is left rather than waited for.
    for (int i = 0; i < 200 && ::waitpid(m_pid, nullptr, WNOHANG) == 0; ++i) ::usleep(10000);
  }
  close_fd(m_events_fd);
  close_fd(m_stderr_fd);
}

void WorkerProcess::close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool WorkerProcess::start(const std::string& worker, const std::vector<std::string>& args, const Options& options,
                          std::string& error) {
  if (m_pid > 0) {
    error = "a worker is already running";
    return false;
  }
  int events[2], errors[2] = {-1, -1};
  if (::pipe2(events, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return false;
  }
  if (options.capture_stderr && ::pipe2(errors, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(events[0]);
    ::close(events[1]);
    return false;
  }
  close_fd(m_events_fd);
  close_fd(m_stderr_fd);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, events[1], STDOUT_FILENO);
  if (options.capture_stderr) posix_spawn_file_actions_adddup2(&actions, errors[1], STDERR_FILENO);
  std::vector<std::string> argv_storage{worker};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, worker.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(events[1]);
  if (errors[1] >= 0) ::close(errors[1]);
  if (spawn_error != 0) {
    ::close(events[0]);
    if (errors[0] >= 0) ::close(errors[0]);
    error = "cannot start " + worker + ": " + std::strerror(spawn_error);
    return false;
  }
  m_pid = pid;
  m_stopped = false;
  m_limits = options.time_limits;
  m_on_running = options.on_running;
  m_watched_op.reset();
  m_overran.reset();
  m_framer = WorkerStreamFramer();
  m_stderr.clear();
  m_events_fd = events[0];
  m_stderr_fd = errors[0];
  for (int fd : {m_events_fd, m_stderr_fd}) {
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return true;
}

bool WorkerProcess::read_events(RunCollector& collector) {
  char buffer[65536];
  m_more_events = false;
  for (int reads = 0; m_events_fd >= 0; ++reads) {
    if (reads == 16) {
      m_more_events = true;  // the rest next time
      break;
    }
    const ssize_t got = read_some(m_events_fd, buffer, sizeof buffer);
    if (got < 0) break;
    if (got == 0) {
      close_fd(m_events_fd);
      break;
    }
    m_framer.feed(buffer, static_cast<std::size_t>(got), collector);
  }
  return m_events_fd >= 0;
}

void WorkerProcess::read_stderr() {
  char buffer[8192];
  for (int reads = 0; m_stderr_fd >= 0 && reads < 64; ++reads) {
    const ssize_t got = read_some(m_stderr_fd, buffer, sizeof buffer);
    if (got < 0) return;
    if (got == 0) {
      close_fd(m_stderr_fd);
      return;
    }
    m_stderr.append(buffer, static_cast<std::size_t>(got));
    if (m_stderr.size() > 2 * kStderrKept) m_stderr.erase(0, m_stderr.size() - kStderrKept);
  }
}

void WorkerProcess::stop() {
  if (m_pid <= 0) return;
  m_stopped = true;
  ::kill(m_pid, SIGKILL);
}

bool WorkerProcess::finish(RunCollector& collector, bool wait) {
  if (m_pid <= 0) return true;
  read_events(collector);
  int status = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(m_pid, &status, wait ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (reaped == 0) return false;
  m_pid = -1;
  // Whatever the worker wrote before it exited.
  while (read_events(collector) && m_more_events) {
  }
  read_stderr();
  close_fd(m_events_fd);
  close_fd(m_stderr_fd);
  if (m_stderr.size() > kStderrKept) m_stderr.erase(0, m_stderr.size() - kStderrKept);
  const bool signaled = reaped > 0 && WIFSIGNALED(status);
  const int code = reaped < 0 ? 0 : signaled ? WTERMSIG(status) : WEXITSTATUS(status);
  if (m_overran && !collector.completed()) {
    collector.crashed(kTimeLimitEnd,
                      "it ran " + format_number(m_overran->seconds) + " s against a time limit of " +
                          format_number(m_overran->limit) + " s",
                      m_overran->seconds);
  } else {
    record_worker_exit(collector, {signaled, code, m_stopped}, m_stderr);
  }
  return true;
}

double TimeLimits::seconds_for(std::size_t op, std::uint64_t flops, double peak_gflops) const {
  if (const auto it = op_seconds.find(op); it != op_seconds.end()) return it->second;
  if (run_seconds) return *run_seconds;
  const double predicted = peak_gflops > 0 ? static_cast<double>(flops) / (peak_gflops * 1e9) : 0;
  return std::max(kMinimumDefaultTimeLimit, 1000 * predicted);
}

std::optional<RunningOp> WorkerProcess::watch_running_op(const RunCollector& collector) {
  const RunCollector::Progress progress = collector.progress();
  const auto now = std::chrono::steady_clock::now();
  if (progress.running_op != m_watched_op) {
    m_watched_op = progress.running_op;
    m_watched_since = now;
  }
  if (!progress.running_op) return std::nullopt;
  RunningOp running{*progress.running_op, progress.running_kernel,
                    std::chrono::duration<double>(now - m_watched_since).count(),
                    m_limits.seconds_for(*progress.running_op, progress.running_flops, progress.peak_gflops)};
  if (running.seconds > running.limit && m_pid > 0 && !m_overran) {
    m_overran = running;
    ::kill(m_pid, SIGKILL);
  }
  return running;
}

void WorkerProcess::run(RunCollector& collector) {
  while (m_events_fd >= 0 || m_stderr_fd >= 0) {
    pollfd fds[2];
    nfds_t count = 0;
    for (int fd : {m_events_fd, m_stderr_fd}) {
      if (fd >= 0) fds[count++] = {fd, POLLIN, 0};
    }
    if (::poll(fds, count, 200) < 0 && errno != EINTR) break;
    read_events(collector);
    read_stderr();
    const auto running = watch_running_op(collector);
    if (running && m_on_running) m_on_running(*running);
  }
  finish(collector);
}

bool run_in_worker(const std::string& worker, const std::vector<std::string>& args, RunCollector& collector,
                   std::string& error, const WorkerProcess::Options& options) {
  WorkerProcess process;
  if (!process.start(worker, args, options, error)) return false;
  process.run(collector);
  return true;
}

}  // namespace blasscope::core
