#include "record/recording.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>

#include "record/call_clock.h"
#include "record/call_flops.h"
#include "record/capture_folder.h"
#include "record/drained_calls.h"
#include "record/process_list.h"
#include "record/routine_names.h"
#include "record/shared_buffer.h"

extern char** environ;

namespace blasscope::record {
namespace {

using Clock = std::chrono::steady_clock;

// Ctrl-Cs the recorder received while the program ran (see record_program), and how long the
// program has to end by itself after the first.
std::atomic<int> g_interrupts{0};
// The process that sent the latest SIGINT with kill(), 0 where a terminal's Ctrl-C sent it: a
// kill reaches the program only if it was sent to the whole process group.
std::atomic<int> g_interrupt_sender{0};
// The SIGINTs sent with kill() (any process's), counted apart from a terminal's: they may have
// reached the recorder alone, and a second one stops the program.
std::atomic<int> g_kill_interrupts{0};
// The same as presses, timed as they arrive: kills closer together than kSameKillNs are one
// (timeout(1) and others signal the recorder, then its whole process group, which holds the
// recorder too).
std::atomic<int> g_kill_presses{0};
std::atomic<std::uint64_t> g_last_kill_ns{0};
constexpr std::uint64_t kSameKillNs = 200'000'000;
constexpr auto kInterruptGrace = std::chrono::seconds(10);

// What the recorder says when a SIGINT comes: from a kill (`sender`) or a terminal's Ctrl-C.
std::string interrupt_notice(int sender, std::size_t running) {
  return (sender ? "SIGINT from process " + std::to_string(sender) +
                       " (the recorder cannot tell whether the program got it too; SIGINT again stops it): "
                 : std::string("Ctrl-C: ")) +
         (running == 0 ? std::string("no recorded call running")
                       : std::to_string(running) +
                             " recorded call(s) running; the program is stopped if one that started before it is "
                             "still running in " +
                             std::to_string(kInterruptGrace.count()) + " s (SIGINT again: now)");
}
// The longest the recorder sleeps between drains, in seconds: where a full ring and the
// program's exit (a pidfd) wake it, and where they cannot. Signals wake it too.
constexpr double kQuietWait = 0.2;
constexpr double kPolledWait = 0.02;

// Sleeps `wait` (under a second), or until the program ends (`exit_fd`, a pidfd) or a writer
// finds the ring full (`full_fd`, an eventfd, then emptied), or a signal comes.
void sleep_until_due(int exit_fd, int full_fd, std::chrono::microseconds wait) {
  pollfd fds[2];
  nfds_t count = 0;
  if (exit_fd >= 0) fds[count++] = {exit_fd, POLLIN, 0};
  if (full_fd >= 0) fds[count++] = {full_fd, POLLIN, 0};
  if (count == 0) {
    std::this_thread::sleep_for(wait);
    return;
  }
  const timespec timeout{0, static_cast<long>(std::chrono::nanoseconds(wait).count())};
  if (::ppoll(fds, count, &timeout, nullptr) > 0 && full_fd >= 0 && (fds[count - 1].revents & POLLIN)) {
    std::uint64_t reports = 0;
    [[maybe_unused]] const ssize_t read = ::read(full_fd, &reports, sizeof reports);
  }
}

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// The environment of the program: ours, with the library preloaded first and the buffer named.
std::vector<std::string> program_environment(const std::string& library, const std::string& buffer,
                                             const std::string& captures) {
  std::vector<std::string> env;
  std::string preload = "LD_PRELOAD=" + library;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      if (entry.size() > 11) preload.append(1, ':').append(entry, 11);  // the program's own, after ours
    } else if (entry.rfind(std::string(kShmEnv) + "=", 0) != 0 &&
               entry.rfind(std::string(kCaptureDirEnv) + "=", 0) != 0) {
      env.push_back(entry);
    }
  }
  env.push_back(preload);
  env.push_back(std::string(kShmEnv) + "=" + buffer);
  if (!captures.empty()) env.push_back(std::string(kCaptureDirEnv) + "=" + captures);
  return env;
}

void collect_processes(SharedHeader& h, Recording& out, ProcessHandles& handles, bool zombies_are_gone = false) {
  collect_processes(h, monotonic_ns(), out.processes, zombies_are_gone, &handles);
}

std::vector<RoutineTotal> routine_totals(const ProcessTotals& totals, const ClockMap& clock) {
  std::vector<RoutineTotal> out;
  for (std::uint32_t r = 0; r < kRoutineCount; ++r) {
    for (std::uint32_t p = 0; p < kPrecisionCount; ++p) {
      const RawTotals& t = totals[r][p];
      if (t.calls == 0) continue;
      RoutineTotal& total = out.emplace_back();
      total.routine = static_cast<Routine>(r), total.precision = static_cast<Precision>(p);
      total.calls = t.calls, total.failures = t.failures, total.queries = t.queries;
      total.seconds = static_cast<double>(clock.span(t.nanoseconds)) * 1e-9;
      total.self_seconds = static_cast<double>(clock.span(t.self_nanoseconds)) * 1e-9;
      total.gflop = static_cast<double>(t.flops) * 1e-9;
      total.query_seconds = static_cast<double>(clock.span(t.query_nanoseconds)) * 1e-9;
      total.longest_seconds = static_cast<double>(clock.span(t.longest)) * 1e-9;
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RoutineTotal& a, const RoutineTotal& b) { return a.self_seconds > b.self_seconds; });
  return out;
}

// The whole recording's totals and each process's (those of threads that found no free slot
// count in the whole recording's only).
void collect_totals(const SharedBuffer& buffer, const ClockMap& clock, Recording& out) {
  ProcessTotals all{};
  out.process_routines.clear();
  for (const auto& [pid, totals] : buffer.process_totals()) {
    for (std::uint32_t r = 0; r < kRoutineCount; ++r) {
      for (std::uint32_t p = 0; p < kPrecisionCount; ++p) all[r][p].add(totals[r][p]);
    }
    out.process_routines[pid] = routine_totals(totals, clock);  // 0: threads that found no free slot
  }
  out.routines = routine_totals(all, clock);
  out.calls_total = 0;
  for (const RoutineTotal& t : out.routines) out.calls_total += t.calls;
}

// Signals the program and every process of the recording still alive, and marks them stopped.
// Only a process that had not ended is marked: a worker that crashed before and waits unreaped
// (a zombie) keeps its own end.
void signal_all(Recording& out, pid_t top, int sig) {
  for (ProcessInfo& p : out.processes) {
    if (process_alive(p.pid, true)) p.stopped = true;
  }
  ::kill(top, sig);
  for (const ProcessInfo& p : out.processes) {
    if (p.pid != static_cast<std::uint32_t>(top) && p.stopped) ::kill(static_cast<pid_t>(p.pid), sig);
  }
}

// After a stop, the processes signalled take a moment to go: waits up to `limit` for them,
// so that the session says they were stopped, not still running.
void wait_for_stopped(const Recording& out, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    const bool any = std::any_of(out.processes.begin(), out.processes.end(),
                                 [](const ProcessInfo& p) { return p.stopped && process_alive(p.pid, true); });
    if (!any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

namespace {
std::vector<int> g_closed_standard_streams;  // set once at start-up, by the main thread
}  // namespace

void hold_closed_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int null = ::open("/dev/null", O_RDWR);  // the lowest free number: this one
    if (null == fd)
      g_closed_standard_streams.push_back(fd);
    else if (null >= 0)
      ::close(null);
  }
}

Recording record_program(const RecordOptions& options) {
  Recording out;
  out.command = options.command;
  out.host = host_name();
  out.max_calls = options.max_calls;
  out.check_values = options.check_values;
  out.timeout_seconds = options.timeout_seconds;
  if (options.command.empty()) {
    out.exit_status = 127;
    out.problem = "no command to record";
    return out;
  }
  SharedBuffer buffer(options.check_values);
  ProcessHandles handles(buffer.header());
  buffer.set_nested_limit(options.nested_limit);
  buffer.publish_long_call(kLongNestedCallNs);  // at once with the monotonic clock; the TSC's rate takes 20 ms
  out.nested_limit = options.nested_limit;
  std::string capture_dir;
  out.capture_mode = "none";
  // An earlier recording's captures, set aside until the program has started (a command that
  // cannot start leaves them as they were).
  std::optional<EarlierCaptures> earlier;
  if (!options.capture_dir.empty()) earlier.emplace(options.capture_dir);
  if (options.capture != CaptureMode::None && !options.capture_dir.empty()) {
    out.capture_mode = options.capture == CaptureMode::All ? "all" : "failing";
    std::error_code error;
    std::filesystem::create_directories(options.capture_dir, error);
    if (!error) capture_dir = std::filesystem::absolute(options.capture_dir, error).string();
    SharedHeader& h = buffer.header();
    h.capture_mode.store(options.capture == CaptureMode::All ? 2 : 1);
    h.capture_limit_bytes.store(options.capture_limit_bytes);
    h.capture_limit_count.store(options.capture_limit_count);
  }
  std::vector<std::string> env_storage = program_environment(options.preload_library, buffer.path(), capture_dir);
  std::vector<char*> envp, argv;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options.command;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Like time(1): Ctrl-C reaches the program (same process group); the recorder outlives it,
  // counting it: a call that started before it and is still running 10 s later (hung inside
  // LAPACK, where Python cannot raise KeyboardInterrupt), or a second Ctrl-C while a call runs,
  // stops the program as --timeout does. A program that handles it and goes on (a REPL, a
  // checkpoint saved on KeyboardInterrupt) is left alone. Where SIGINT came ignored (a
  // background job), it stays so, for the program too.
  struct sigaction ignore {
  }, counted{}, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  counted.sa_sigaction = [](int, siginfo_t* info, void*) {
    // SI_USER, SI_QUEUE, SI_TKILL (<= 0): a process's kill; a terminal's Ctrl-C is the kernel's.
    if (info && info->si_code <= 0) {
      const std::uint64_t now = monotonic_ns();  // clock_gettime: async-signal-safe
      const std::uint64_t last = g_last_kill_ns.exchange(now);
      if (last == 0 || now - last >= kSameKillNs) g_kill_presses.fetch_add(1);
      g_interrupt_sender.store(std::max(1, static_cast<int>(info->si_pid)));
      g_kill_interrupts.fetch_add(1);
    }
    g_interrupts.fetch_add(1);
  };
  counted.sa_flags = SA_RESTART | SA_SIGINFO;  // the grower's fallocate, a GUI's threads: no EINTR from it
  sigemptyset(&counted.sa_mask);
  g_interrupts.store(0);
  g_interrupt_sender.store(0);
  g_kill_interrupts.store(0);
  g_kill_presses.store(0);
  g_last_kill_ns.store(0);
  ::sigaction(SIGINT, nullptr, &old_int);
  const bool interrupts_ignored = old_int.sa_handler == SIG_IGN;
  if (!interrupts_ignored) ::sigaction(SIGINT, &counted, nullptr);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  if (!interrupts_ignored) sigaddset(&defaults, SIGINT);
  if (old_quit.sa_handler != SIG_IGN) sigaddset(&defaults, SIGQUIT);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (const int fd : g_closed_standard_streams) posix_spawn_file_actions_addclose(&actions, fd);
  if (!options.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory.c_str());
  }
  pid_t pid = 0;
  const auto started = Clock::now();
  const int spawn_error = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawn_error != 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    std::error_code ignored;
    if (!capture_dir.empty()) remove_if_empty_folder(capture_dir);  // made for the program: empty
    out.exit_status = spawn_error == ENOENT ? 127 : 126;
    out.problem = options.command[0] + ": " +
                  (spawn_error == ENOENT ? std::string("command not found") : std::strerror(spawn_error));
    return out;
  }
  out.pid = static_cast<std::uint32_t>(pid);
  if (!options.capture_dir.empty()) {
    // This session replaces any earlier one of its name: so do its captures (none, if none).
    const std::size_t removed = earlier ? earlier->discard() : 0;
    if (removed && options.notice) {
      options.notice("removed " + std::to_string(removed) + (removed == 1 ? " capture" : " captures") +
                     " of an earlier recording under this name from " + options.capture_dir);
    }
  }
  // Woken the moment the program exits (a pidfd is readable then), else when the next drain is due.
  const int exit_fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  out.start_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(started.time_since_epoch()).count());

  DrainedCalls calls(buffer, options, out);
  // The recorder drains at the program's own priority, waking seldom: niced, it drained too
  // slowly beside a program keeping every core busy, whose calls then waited on a full ring
  // (ten times slower); a GEMM and SVD program was no faster for it.
  int status = 0, received = 0;
  int stop_with = SIGTERM;             // what the program is stopped with (then SIGTERM, SIGKILL)
  int kill_presses = 0;                // kill()'s SIGINTs seen, as presses (g_kill_presses)
  Clock::time_point interrupted_at{};  // when the first Ctrl-C came
  std::uint64_t interrupted_tick = 0;  // the same, on the calls' clock
  bool stopping = false;
  auto stop_deadline = Clock::time_point::max();
  const auto timeout_at =
      options.timeout_seconds > 0
          ? started + std::chrono::ceil<Clock::duration>(std::chrono::duration<double>(options.timeout_seconds))
          : Clock::time_point::max();
  auto next_progress = started;
  auto next_reclaim = started;
  auto last_drain = started;
  bool long_call_published = false;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      // A kill's SIGINT that ended the program before this loop looked at it is still said.
      if (!stopping && kill_presses == 0 && g_kill_presses.load() > 0 && options.notice) {
        options.notice(interrupt_notice(g_interrupt_sender.load(), 0));
      }
      break;
    }
    const std::size_t drained = calls.drain(false);
    if (!long_call_published) long_call_published = buffer.publish_long_call(kLongNestedCallNs);
    // Waking seldom: every wake-up takes a core from the program (OpenBLAS's threads wait for
    // each other: on two cores, waking every 20 ms cost a GEMM and SVD program 3 %). The next
    // drain comes when the ring should be a quarter full at the rate just seen, 0.2 ms to
    // kQuietWait away, sooner when a writer finds it full; never a spin: polling the write
    // index would pull its cache line from the writers on every call they make.
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_drain).count();
    last_drain = now;
    const double quarter = drained >= kRingCapacity / 2
                               ? 0.0
                               : seconds * (kRingCapacity / 4.0) / std::max<double>(static_cast<double>(drained), 1.0);
    const double longest = buffer.wakes_when_full() && exit_fd >= 0 ? kQuietWait : kPolledWait;
    auto wait = std::chrono::microseconds(static_cast<std::int64_t>(std::clamp(quarter, 200e-6, longest) * 1e6));
    collect_processes(buffer.header(), out, handles);
    bool stop_requested = false;
    if (options.progress && now >= next_progress) {
      stop_requested = !options.progress(buffer.header().write_index.load());
      next_progress = now + std::chrono::milliseconds(100);
    }
    if (options.stop_signal && options.stop_signal->load() != 0 && !stopping) {
      // Passed on as it came (SIGHUP: a closed terminal), as timeout(1) does.
      stop_requested = true;
      received = stop_with = options.stop_signal->load();
    }
    if (const int interrupts = g_interrupts.load(); interrupts > 0 && !stopping) {
      const bool first = interrupted_at == Clock::time_point{};
      if (first) interrupted_at = now, interrupted_tick = read_call_clock(buffer.header().clock.load());
      // The slots are looked at only when there is something to decide (a program that handled
      // the Ctrl-C and went on is not copied out every few milliseconds for the rest of its run).
      // A terminal's Ctrl-Cs are presses each; kills close together, one (kSameKillNs).
      const int presses = interrupts - g_kill_interrupts.load() + g_kill_presses.load();
      if (first || presses > 1 || now - interrupted_at >= kInterruptGrace) {
        const std::vector<CallRecord> running = buffer.running();
        // A kill's SIGINT (not a terminal's Ctrl-C) may have been sent to the recorder alone
        // (Popen.send_signal, an IDE's stop button): said at once, and a second one stops the
        // program whether or not a call runs.
        const int sender = g_interrupt_sender.load();
        const bool new_kill = kill_presses == 0 && g_kill_presses.load() > 0;
        kill_presses = g_kill_presses.load();
        if ((first || new_kill) && (new_kill || !running.empty()) && options.notice) {
          options.notice(interrupt_notice(sender, running.size()));
        }
        const bool stuck = std::any_of(running.begin(), running.end(), [&](const CallRecord& c) {
          return c.start_ns && c.start_ns <= interrupted_tick;
        });
        if ((presses > 1 && !running.empty()) || kill_presses > 1 ||
            (stuck && now - interrupted_at >= kInterruptGrace)) {
          stop_requested = true, received = SIGINT;
        }
      }
    }
    const bool timed_out = now >= timeout_at;
    if (now >= next_reclaim) {
      buffer.reclaim_slots_of_dead_processes();
      next_reclaim = now + std::chrono::milliseconds(500);
    }
    if (!stopping && (timed_out || stop_requested)) {
      // What was running when it was stopped is the finding: take it before anything ends.
      out.running = buffer.running();
      out.timed_out = timed_out;
      out.stopped = !timed_out;
      stopping = true;
      signal_all(out, pid, stop_with);
      stop_deadline = now + std::chrono::seconds(2);
    } else if (stopping && now >= stop_deadline && stop_with != SIGTERM) {
      // A SIGHUP passed on may only have made the program reload: SIGTERM next, then SIGKILL.
      signal_all(out, pid, SIGTERM);
      stop_with = SIGTERM;
      stop_deadline = now + std::chrono::seconds(2);
    } else if (stopping && now >= stop_deadline) {
      signal_all(out, pid, SIGKILL);
      stop_deadline = Clock::time_point::max();
    }
    // What the loop acts on at a set time is not slept past.
    const bool interrupted = interrupted_at != Clock::time_point{};
    for (const Clock::time_point due :
         {timeout_at, stop_deadline, interrupted ? interrupted_at + kInterruptGrace : Clock::time_point::max(),
          options.progress ? next_progress : Clock::time_point::max()}) {
      if (due > now && due != Clock::time_point::max() && due - now < wait) {
        wait = std::chrono::ceil<std::chrono::microseconds>(due - now);
      }
    }
    sleep_until_due(exit_fd, buffer.full_ring_event(), wait);
  }
  if (exit_fd >= 0) ::close(exit_fd);
  out.wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  buffer.stop_growing();  // the program has ended: the ring needs no more room
  if (stopping) {
    // Children that ignored SIGTERM go now, like the program.
    collect_processes(buffer.header(), out, handles);
    for (ProcessInfo& p : out.processes) {
      if (p.pid == out.pid || !process_alive(p.pid, true)) continue;
      p.stopped = true;
      ::kill(static_cast<pid_t>(p.pid), SIGKILL);
    }
    wait_for_stopped(out, std::chrono::seconds(1));
  }
  // After a Ctrl-C the session is still to be written: another one must not lose it.
  if (g_interrupts.load() == 0)
    ::sigaction(SIGINT, &old_int, nullptr);
  else
    ::sigaction(SIGINT, &ignore, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);

  if (stopping) {
    // A call that returned after the stop request (a program that finishes its call on SIGTERM)
    // did not hang: only what still runs at the end stays.
    const std::vector<CallRecord> still = buffer.running();
    std::erase_if(out.running, [&still](CallRecord& c) {
      const auto now = std::find_if(still.begin(), still.end(), [&c](const CallRecord& s) { return s.id == c.id; });
      if (now != still.end()) c.unlisted = now->unlisted;  // it went on counting until it was killed
      return now == still.end();
    });
  } else {
    out.running = buffer.running();
  }
  // What a process was inside of when it ended is where it died: the program's when a signal
  // ended it, a child's when it is gone with a call unfinished (a crash or a kill; the recorder,
  // not its parent, is not told which). A child still alive is simply still running.
  const bool died = WIFSIGNALED(status);
  std::erase_if(out.running, [&](const CallRecord& c) {
    if (stopping) return false;
    if (c.pid == out.pid) return !died;
    return !(::kill(static_cast<pid_t>(c.pid), 0) != 0 && errno == ESRCH);
  });
  calls.drain(true);
  buffer.stop_draining();
  out.calls_not_kept += calls.not_kept() + buffer.header().dropped.load() + buffer.lost();
  out.calls_unlisted = calls.unlisted();
  for (const CallRecord& c : out.running) out.calls_unlisted += c.unlisted;  // made inside a call that never returned
  collect_processes(buffer.header(), out, handles, true);
  // Calls were timed in the shared file's clock: from here on everything is in nanoseconds.
  const ClockMap clock = buffer.clock_map();
  for (CallRecord& c : out.running) {
    c.duration_ns = clock.span_from(c.start_ns, c.duration_ns);
    c.start_ns = clock.point(c.start_ns);
  }
  collect_totals(buffer, clock, out);
  // A call counted in the totals is listed, counted inside a listed one, or not kept. One whose
  // thread was waiting for room in the ring when the program was stopped (--timeout, Ctrl-C, a
  // kill) had finished and been counted, but never reached the ring: not kept either.
  const std::uint64_t accounted = calls.taken() + out.calls_not_kept + out.calls_unlisted;
  if (out.calls_total > accounted) out.calls_not_kept += out.calls_total - accounted;
  name_single_dtypes(out);
  out.captures_skipped = buffer.header().capture_skipped.load();
  // Calls still running were captured before they ran: a hang or a crash is replayable too.
  for (const auto* calls : {&out.calls, &out.running}) {
    for (const CallRecord& c : *calls) {
      if (!(c.flags & kCaptured)) continue;
      out.captures.push_back({c.id, routine_name(c.routine, c.precision),
                              capture_dir + "/call-" + std::to_string(c.id) + "/workload.json"});
    }
  }
  // In call order: calls of several processes are drained in the order they finished.
  std::sort(out.captures.begin(), out.captures.end(),
            [](const Capture& a, const Capture& b) { return a.call < b.call; });
  // Left only where it holds something (an earlier recording's files, the user's): kept until
  // now, empty, since the recording's lock is on it (record_to_session).
  if (!options.capture_dir.empty() && out.captures.empty()) remove_if_empty_folder(options.capture_dir);
  if (WIFSIGNALED(status)) {
    out.signal = signal_text(WTERMSIG(status));
    out.exit_status = 128 + WTERMSIG(status);
  } else {
    out.exit_status = WEXITSTATUS(status);
  }
  if (out.timed_out) out.exit_status = 124;
  if (out.stopped) {
    const int sender = g_interrupt_sender.load();
    out.problem = received == SIGINT && sender
                      ? "the recorder received SIGINT from process " + std::to_string(sender) +
                            " and stopped the program (with SIGTERM: a recorded call still ran " +
                            std::to_string(kInterruptGrace.count()) +
                            " s later, or SIGINT came again); what it had recorded is kept"
                  : received == SIGINT
                      ? "Ctrl-C (SIGINT) did not end the program while a recorded call ran (Python raises "
                        "KeyboardInterrupt only once a call returns): the recorder stopped it; what it had recorded "
                        "is kept"
                  : received ? "the recorder received " + signal_text(received) +
                                   " and passed it on to the program (then SIGTERM and SIGKILL, 2 s " +
                                   "apart, while it still ran); what it had recorded is kept"
                             : "stopped on request while it ran";
  }
  // How long each unfinished call ran, fixed now that the processes' ends are known: a session
  // read back (without when each process was last seen) says the same.
  for (CallRecord& c : out.running)
    c.duration_ns = static_cast<std::uint64_t>(std::llround(running_seconds(out, c) * 1e9));
  bool blas_found = false, blas_loaded = false;
  for (const auto& p : out.processes)
    blas_found = blas_found || p.blas_found, blas_loaded = blas_loaded || p.blas_loaded;
  if (out.processes.empty() && out.exit_status != 0 && !out.timed_out && !out.stopped) {
    // The dynamic loader's own failure (a library it could not map under `ulimit -v`, one not
    // found) ends a program before any preloaded library runs: its message is above.
    out.problem = "the program never loaded the recording library: it ended (" +
                  (out.signal.empty() ? "exit status " + std::to_string(out.exit_status) : out.signal) +
                  ") before its libraries were loaded, or it is statically linked, or it cleared LD_PRELOAD; "
                  "nothing could be recorded";
  } else if (out.processes.empty()) {
    out.problem =
        "the program never loaded the recording library: it is statically linked, or it cleared LD_PRELOAD; "
        "nothing could be recorded";
  } else if (!blas_found && out.calls_total == 0 && blas_loaded) {
    out.problem = std::string("the program loaded BLAS/LAPACK but called none of the routines BLAScope records (") +
                  kRecordedRoutines +
                  "), in any of their precisions; other routines are not seen, nor calls through a pointer looked up "
                  "with dlvsym";
  } else if (!blas_found && out.calls_total == 0) {
    out.problem = std::string(
                      "the program made no BLAS or LAPACK call through a shared library (none was called, or it "
                      "links a BLAS statically)") +
                  (out.exit_status != 0 && !out.timed_out && !out.stopped
                       ? "; it ended with " +
                             (out.signal.empty() ? "exit status " + std::to_string(out.exit_status) : out.signal) +
                             " first (a library it could not load is one way: its own error says)"
                       : "");
  } else if (const std::string error = buffer.growth_error(); !error.empty() && buffer.header().dropped.load() > 0) {
    out.problem = "the recording buffer could not grow past " + std::to_string(buffer.ring_allocated()) + " calls (" +
                  error + "; is " + buffer.path().substr(0, buffer.path().rfind('/')) +
                  " full?): the program waited ten seconds for room, then " +
                  std::to_string(buffer.header().dropped.load()) + " calls were counted but not recorded";
  }
  if (const std::uint64_t lost = calls.not_kept_for_memory()) {
    out.problem +=
        (out.problem.empty() ? "" : "; ") +
        std::string("the recorder ran out of memory (a `ulimit -v`?) and could not keep " + std::to_string(lost) +
                    " calls one by one for its summary and diagnoses; they are counted in the totals" +
                    (options.on_calls ? " and listed in the session" : ""));
  }
  return out;
}

std::vector<RoutineTotal> totals_of(std::span<const CallRecord> calls) {
  std::map<std::pair<Routine, Precision>, RoutineTotal> totals;
  std::unordered_map<std::uint64_t, std::uint64_t> inside;  // time of the calls made inside each call
  for (const CallRecord& c : calls) {
    if (c.parent) inside[c.parent] += c.duration_ns;
  }
  for (const CallRecord& c : calls) {
    RoutineTotal& t = totals[{c.routine, c.precision}];
    t.routine = c.routine, t.precision = c.precision;
    ++t.calls;
    if (c.flags & kWorkspaceQuery) ++t.queries, t.query_seconds += static_cast<double>(c.duration_ns) * 1e-9;
    t.seconds += static_cast<double>(c.duration_ns) * 1e-9;
    if (!(c.flags & kWorkspaceQuery)) {  // as the preload keeps it: the longest call that did work
      t.longest_seconds = std::max(t.longest_seconds, static_cast<double>(c.duration_ns) * 1e-9);
    }
    const auto it = inside.find(c.id);
    const std::uint64_t made = it == inside.end() ? 0 : it->second;
    t.self_seconds += static_cast<double>(c.duration_ns - std::min(c.duration_ns, made)) * 1e-9;
    if (call_failed(c)) ++t.failures;  // as the preload counts them
    if (!has_xerbla(c) && c.info == 0) t.gflop += static_cast<double>(flops_of(c)) * 1e-9;  // see the preload
  }
  std::vector<RoutineTotal> out;
  for (auto& [key, total] : totals) out.push_back(total);
  return out;
}

double working_seconds(const RoutineTotal& t) {
  return std::max(0.0, t.seconds - t.query_seconds);
}

double mean_seconds(const RoutineTotal& t) {
  if (t.calls > t.queries) return working_seconds(t) / static_cast<double>(t.calls - t.queries);
  return t.calls ? t.seconds / static_cast<double>(t.calls) : 0;
}

std::vector<RoutineTotal> with_unfinished(const Recording& r) {
  std::vector<RoutineTotal> out = r.routines;
  for (const CallRecord& c : r.running) {
    auto it = std::find_if(out.begin(), out.end(), [&c](const RoutineTotal& t) {
      return t.routine == c.routine && t.precision == c.precision;
    });
    if (it == out.end()) {
      it = out.insert(out.end(), RoutineTotal{});
      it->routine = c.routine, it->precision = c.precision;
    }
    ++it->unfinished;
    it->unfinished_seconds += running_seconds(r, c);
  }
  return out;
}

double running_seconds(const Recording& r, const CallRecord& c) {
  if (c.duration_ns) return static_cast<double>(c.duration_ns) * 1e-9;  // fixed when it was recorded
  double end = static_cast<double>(r.start_ns) * 1e-9 + r.wall_seconds;
  // A child gone before the program ended stopped running its call then (as last seen alive).
  const auto process =
      std::find_if(r.processes.begin(), r.processes.end(), [&c](const ProcessInfo& p) { return p.pid == c.pid; });
  if (process != r.processes.end() && !process->alive && process->last_seen_ns > c.start_ns) {
    end = std::min(end, static_cast<double>(process->last_seen_ns) * 1e-9);
  }
  return std::max(0.0, end - static_cast<double>(c.start_ns) * 1e-9);
}

std::string signal_text(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string end_name(const ProcessInfo& p) {
  if (!p.end_known) return "";
  switch (p.end) {
    case ProcessEnd::Exited: return "exit";
    case ProcessEnd::Returned: return "returned";
    case ProcessEnd::Execed: return "exec";
    case ProcessEnd::Exiting:
    case ProcessEnd::None: break;
  }
  return p.alive ? "running" : p.stopped ? "stopped" : "signal";
}

constexpr const char* kStoppedText =
    "stopped by the recorder with the program (SIGTERM, then SIGKILL once the program had ended or after 2 s)";

std::string end_text(const ProcessInfo& p) {
  if (!p.end_known) return "exit status unknown";
  switch (p.end) {
    case ProcessEnd::Exited: return "exit status " + std::to_string(p.exit_status);
    case ProcessEnd::Returned:
      return "ended after its exit handlers ran, without an exit() or a return from main that the recorder saw: "
             "its exit status is not seen";
    case ProcessEnd::Execed: return "exec'd another program";
    case ProcessEnd::Exiting:
      if (!p.alive) {
        // exit(N) or main's return of N: libc then runs the same exit handlers.
        const std::string ending = "called exit(" + std::to_string(p.exit_status) + ") or returned " +
                                   std::to_string(p.exit_status) + " from main, then ";
        if (p.stopped) return ending + kStoppedText;
        return ending + (p.end_signal ? ended_by_text(p.end_signal) + ", in its exit handlers"
                                      : "ended by a signal in its exit handlers (a crash in an atexit handler or a "
                                        "destructor, or a kill)");
      }
      break;
    case ProcessEnd::None: break;
  }
  if (!p.alive && p.stopped) {
    return p.end_signal ? std::string(kStoppedText) + "; " + signal_text(p.end_signal) + " ended it" : kStoppedText;
  }
  if (!p.alive && p.end_signal) return ended_by_text(p.end_signal);
  return p.alive ? "still running when the program ended"
                 : "gone without exiting: a signal (a crash, the OOM killer or a kill; which one is not seen), or an "
                   "exec into a program that was not recorded";
}

std::string ended_by_text(int sig) {
  const std::string name = signal_text(sig);
  switch (sig) {
    case SIGTERM:
      return "ended by SIGTERM (a request to stop, not a crash: multiprocessing's Pool ends its workers so, for "
             "one)";
    case SIGINT:
    case SIGHUP: return "ended by " + name + ": a request to stop (Ctrl-C, a closed terminal), not a crash";
    case SIGKILL: return "killed by SIGKILL (a kill -9, a parent ending it, or the OOM killer)";
    case SIGPIPE: return "ended by SIGPIPE: it wrote to a pipe whose reader had gone";
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGABRT: return "crashed: " + name;
    default: return "ended by " + name;
  }
}

std::string unlisted_note(const Recording& r) {
  if (r.calls_unlisted == 0) return "";
  // An unfinished session does not say its limit.
  const std::string listed = r.nested_limit == kAllNested ? "the first ones made inside it"
                             : r.nested_limit == 0        ? "none of those made inside it"
                                                   : "the first " + std::to_string(r.nested_limit) + " made inside it";
  return std::to_string(r.calls_unlisted) +
         (r.calls_unlisted == 1 ? " call made inside other calls (LAPACK's own) is"
                                : " calls made inside other calls (LAPACK's own) are") +
         " counted in the totals but not listed one by one: each "
         "top-level call lists " +
         listed +
         ", and every one that failed, read or made NaN/Inf, or ran 100 us or more, with its callers (record with "
         "--nested-calls all to list them all)";
}

std::string total_dtype(const RoutineTotal& total) {
  const std::string dtype = precision_dtype(total.precision, total.routine);
  return dtype.empty() ? total.dtype : dtype;
}

void name_single_dtypes(Recording& r) {
  for (RoutineTotal& t : r.routines) {
    if (!has_data_type_argument(t.routine) || !t.dtype.empty()) continue;
    std::uint64_t listed = 0;
    std::string one;
    bool same = true;
    for (const auto* calls : {&r.calls, &r.running}) {
      for (const CallRecord& c : *calls) {
        if (c.routine != t.routine) continue;
        const std::string dtype = call_dtype(c);
        same = same && !dtype.empty() && (one.empty() || dtype == one);
        one = dtype;
        listed += calls == &r.calls ? 1 : 0;
      }
    }
    if (same && listed == t.calls && !one.empty()) t.dtype = one;
  }
}

namespace {
// Whether a process's registered command line (its arguments joined by spaces, cut to fit the
// shared table) is `argv`'s.
bool started_as(const std::vector<std::string>& argv, const std::string& registered) {
  std::string joined;
  for (const std::string& a : argv) joined += (joined.empty() ? "" : " ") + a;
  return joined == registered ||
         (registered.size() + 1 >= sizeof(ProcessEntry::command) && joined.starts_with(registered));
}
}  // namespace

std::vector<CallRecord> calls_of_process(const Recording& r, std::uint32_t pid) {
  std::vector<CallRecord> calls;
  for (const CallRecord& c : r.calls) {
    if (c.pid == pid) calls.push_back(c);
  }
  return calls;
}

Recording child_recording(const Recording& r, const ProcessInfo& p, std::vector<CallRecord> calls) {
  Recording child;
  // Its arguments, as read while it ran or as its preload registered them (SharedHeader's
  // ProcessEntry::argument_ends); the registered line where it was cut to fit.
  child.command = p.argv.empty() ? std::vector<std::string>{p.command} : p.argv;
  // Gone before the recorder read its arguments, but forked without an exec: the command line it
  // registered is its parent's, whose arguments are known (not one argument with spaces).
  // (At most one step per process: reused pids must not make the walk go round.)
  const ProcessInfo* up = &p;
  for (std::size_t steps = 0; p.argv.empty() && up && steps < r.processes.size(); ++steps) {
    const auto parent = std::find_if(r.processes.begin(), r.processes.end(), [up](const ProcessInfo& q) {
      return q.pid == up->parent_pid && q.pid != up->pid;
    });
    up = parent != r.processes.end() && parent->registered == p.registered ? &*parent : nullptr;
    // The program's own are what the recorder started it with, unless it has exec'd since.
    const std::vector<std::string>& argv = up && up->pid == r.pid && started_as(r.command, p.registered) ? r.command
                                           : up && up->pid != r.pid                                      ? up->argv
                                                                                                         : p.argv;
    if (!argv.empty()) {
      child.command = argv;
      break;
    }
  }
  child.host = r.host;
  child.capture_mode = r.capture_mode;
  child.pid = p.pid;
  child.parent_pid = p.parent_pid;
  // Stopped with the program: what it was running then is a hang or work in progress, as the
  // program's is, not a crash.
  if (p.stopped && !p.alive) {
    child.timed_out = r.timed_out, child.stopped = r.stopped, child.timeout_seconds = r.timeout_seconds;
  }
  // Not waited for by the recorder: known where the preload saw it call exit() or _exit().
  child.exit_status = p.end == ProcessEnd::Exited ? p.exit_status : -1;
  // The signal it died by, where the kernel told the recorder (a pidfd, Linux 6.15 and later):
  // the session says it where a program's does, not only in its process list.
  if (!p.alive && p.end_signal) child.signal = signal_text(p.end_signal);
  // How long it ran: from when it attached to when it said its end (exit, _exit, main's
  // return), else as far as the recorder saw it alive and its calls show (to the time between
  // two looks); not the whole recording's time.
  std::uint64_t first = p.first_seen_ns ? p.first_seen_ns : UINT64_MAX, last = p.last_seen_ns;
  child.max_calls = r.max_calls;
  child.check_values = r.check_values;
  // The same machine, and the program's BLAS until the child's own replaces it (the front end).
  child.blas_library = r.blas_library;
  child.openblas_corename = r.openblas_corename;
  child.openblas_threads = r.openblas_threads;
  child.kernel_mismatch = r.kernel_mismatch;
  child.peak_gflops_fp32 = r.peak_gflops_fp32;
  child.peak_gflops_fp64 = r.peak_gflops_fp64;
  child.processes = {p};
  child.calls = std::move(calls);
  for (const CallRecord& c : child.calls) {
    first = std::min(first, c.start_ns);
    last = std::max(last, c.start_ns + c.duration_ns);
  }
  // Exact where the preload kept them apart (every process it attached to), else summed from
  // the calls listed.
  const auto exact = r.process_routines.find(p.pid);
  child.routines = exact != r.process_routines.end() ? exact->second : totals_of(child.calls);
  child.nested_limit = r.nested_limit;
  for (const CallRecord& c : r.running) {
    if (c.pid != p.pid) continue;
    child.running.push_back(c);
    first = std::min(first, c.start_ns), last = std::max(last, c.start_ns + c.duration_ns);  // as long as it ran
  }
  for (const auto* calls : {&child.calls, &child.running}) {
    for (const CallRecord& c : *calls) child.calls_unlisted += c.unlisted;
  }
  child.start_ns = first == UINT64_MAX ? r.start_ns : std::max(first, r.start_ns);
  child.wall_seconds = static_cast<double>(last > child.start_ns ? last - child.start_ns : 0) * 1e-9;
  for (const Capture& c : r.captures) {
    for (const CallRecord& call : child.calls) {
      if (call.id == c.call) child.captures.push_back(c);
    }
  }
  child.calls_total = 0;
  for (const RoutineTotal& t : child.routines) child.calls_total += t.calls;
  // Its calls past the per-call cap (the whole recording's) are in its exact totals, not listed.
  const std::uint64_t accounted = child.calls.size() + child.calls_unlisted;
  if (exact != r.process_routines.end() && child.calls_total > accounted) {
    child.calls_not_kept = child.calls_total - accounted;
  }
  const auto no_slot = r.process_routines.find(0);
  if (exact != r.process_routines.end() && no_slot != r.process_routines.end() && !no_slot->second.empty()) {
    child.problem =
        "calls of threads that found no free slot in the recording's table (over 256 threads at once) are in "
        "the program's session's totals, not in this process's";
  } else if (exact == r.process_routines.end() && child.calls_unlisted) {
    child.problem = "its totals are summed from the calls listed one by one: the " +
                    std::to_string(child.calls_unlisted) + " calls made inside them that were not are left out";
  }
  if (r.calls_not_kept && exact == r.process_routines.end()) {
    child.problem = "its totals are summed from the calls kept one by one; " + std::to_string(r.calls_not_kept) +
                    " calls of the whole recording were not kept";
  }
  name_single_dtypes(child);
  return child;
}

std::string default_preload_library() {
  if (const char* env = std::getenv("BLASSCOPE_PRELOAD"); env && *env) return env;
  std::error_code error;
  const auto dir = std::filesystem::read_symlink("/proc/self/exe", error).parent_path();
  for (const auto& candidate : {dir / "../lib/libblasscope-preload.so", dir / "libblasscope-preload.so"}) {
    if (std::filesystem::exists(candidate, error)) return std::filesystem::weakly_canonical(candidate, error).string();
  }
  return (dir / "../lib/libblasscope-preload.so").lexically_normal().string();
}

}  // namespace blasscope::record
