#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "record/call_record.h"

namespace blasscope::record {

struct ProcessInfo {
  std::uint32_t pid = 0, parent_pid = 0;
  std::string command;            // its arguments joined by spaces
  bool blas_found = false;        // a BLAS/LAPACK symbol was resolved in it
  bool blas_loaded = false;       // a BLAS/LAPACK library was loaded in it (while recording)
  std::vector<std::string> argv;  // its arguments, where they could be read while it ran
  // While recording: the command as the shared table holds it (cut at 115 characters), and
  // when the recorder first and last saw it alive (CLOCK_MONOTONIC ns; 0 for never).
  std::string registered;
  std::uint64_t first_seen_ns = 0, last_seen_ns = 0;
  // How it ended, as its preload said (exit status where it called exit() or _exit()), and
  // whether it was still alive when last looked at (an end of None once gone is a signal's).
  ProcessEnd end = ProcessEnd::None;
  int exit_status = -1;  // the status exit() or _exit() was given (Exiting, Exited)
  // The signal that ended it, where the kernel said (0: none, or not known): a child is not the
  // recorder's to wait for, but a pidfd held on it tells (ProcessHandles).
  int end_signal = 0;
  bool alive = true;
  // Signalled by the recorder when it stopped the program (--timeout, Stop, a Ctrl-C while a
  // call hung): a process gone without exiting after that was ended by the recorder.
  bool stopped = false;
  bool end_known = true;  // false in a session that does not say (an older one, an unfinished one)
  // The BLAS library its first recorded call went to, and what that OpenBLAS said of itself
  // there (empty for another BLAS, or where it called none): see ProcessEntry::blas_said.
  std::string blas_library, openblas_corename, openblas_coretype, openblas_config;
  int openblas_threads = 0;  // openblas_get_num_threads() at its first call (0: not said)
};

// How a process ended, in a word for sessions and reports: "exit", "returned", "exec",
// "signal" (gone without exiting, or dead in its exit handlers), "stopped" (the same, after the
// recorder signalled it to stop the program), "running" (still alive at the end of the
// recording), or "" where the session did not say.
std::string end_name(const ProcessInfo& process);
// The same in words, for a child process: "exit status 1", "ended by a signal (...)".
std::string end_text(const ProcessInfo& process);
// How a process ended by signal `sig` is said ("crashed: SIGSEGV").
std::string ended_by_text(int sig);
// A signal's name ("SIGTERM"), or "signal N" for one without.
std::string signal_text(int sig);

// Exact totals of one routine in one precision, over every call the program made.
struct RoutineTotal {
  Routine routine = Routine::Gemm;
  Precision precision = Precision::D;
  std::uint64_t calls = 0, failures = 0;
  double seconds = 0, self_seconds = 0;  // self: without the recorded calls it made
  double gflop = 0;                      // 0 where FLOPs are data-dependent (SVD, eigen, least squares)
  // Calls that had not returned when the program ended (a hang, a crash): in no other field,
  // which count finished calls only. Set by with_unfinished().
  std::uint64_t unfinished = 0;
  double unfinished_seconds = 0;  // how long they had run when the program ended (where a hang's time went)
  // Workspace queries (LWORK = -1), which only size LAPACK's workspace: counted in `calls` (the
  // program made them) but not in the mean, which would halve a driver's (NumPy queries first).
  std::uint64_t queries = 0;
  double query_seconds = 0;    // their time (in `seconds` too)
  double longest_seconds = 0;  // the longest finished call
  // Where the precision does not say it (cublasGemmEx takes its types as arguments): the one
  // data type all its calls had, if they had one (name_single_dtypes).
  std::string dtype = {};
};

// A routine's data type as tables show it: the precision's, else `dtype` (may be empty).
std::string total_dtype(const RoutineTotal& total);

// The mean time of the calls that did work (of every call, where all were queries).
double mean_seconds(const RoutineTotal& total);
// The time of the calls that did work (their FLOPs' time, for GFLOP/s).
double working_seconds(const RoutineTotal& total);

// A child process's own session, listed in the parent's.
struct ChildSession {
  std::uint32_t pid = 0;
  std::string command;
  std::string session;  // its file
};

// A failing call's inputs, written with a workload that replays it.
struct Capture {
  std::uint64_t call = 0;
  std::string routine;
  std::string workload;  // CAPTURES/call-ID/workload.json
};

enum class CaptureMode { None, Failing, All };

inline constexpr std::uint32_t kAllNested = UINT32_MAX;
inline constexpr std::uint32_t kDefaultNestedLimit = 64;
inline constexpr std::uint64_t kLongNestedCallNs = 100000;  // 100 us: listing costs < 0.5 % of it

// Everything a recording of one program found.
struct Recording {
  std::vector<std::string> command;
  std::string host;
  std::uint32_t pid = 0;  // the program's process
  int exit_status = 0;    // as a shell reports it: 128+signal, 124 after --timeout, 127 not found
  std::string signal;     // "SIGSEGV" when it died by one
  bool timed_out = false;
  bool stopped = false;  // stopped on request (the GUI's Stop), not by a fault
  double timeout_seconds = 0;
  double wall_seconds = 0;
  std::uint64_t start_ns = 0;          // CLOCK_MONOTONIC when the program started (calls' start_ns count from it)
  std::vector<ProcessInfo> processes;  // the program and every child that loaded the library
  std::vector<RoutineTotal> routines;
  // Each process's exact totals, by pid (0: threads that found no free slot, no process's),
  // where the recorder kept them (not in session files: each child's session holds its own as
  // `routines`).
  std::map<std::uint32_t, std::vector<RoutineTotal>> process_routines;
  std::vector<CallRecord> calls;     // finished calls, in the order they finished (capped; see on_calls)
  std::vector<CallRecord> running;   // calls still running when the program ended or was stopped
  std::uint64_t calls_total = 0;     // calls made (exact)
  std::uint64_t calls_not_kept = 0;  // past the per-call cap, or lost when the buffer was full
  std::uint64_t max_calls = 0;
  // Calls made inside a top-level call listed one by one (RecordOptions::nested_limit; all in
  // older sessions), and how many such calls are counted in the totals but not listed (the
  // sum of the calls' `unlisted`).
  std::uint32_t nested_limit = kAllNested;
  std::uint64_t calls_unlisted = 0;
  bool check_values = false;
  std::string problem;  // why nothing (or not everything) could be recorded
  std::vector<Capture> captures;
  std::uint64_t captures_skipped = 0;  // failing calls not captured: over the size or count cap
  std::string capture_mode;            // "failing", "all" or "none" (--capture); "" in older sessions
  std::vector<ChildSession> children;  // the program's session only: one per child process
  // The machine, as the recorder found it, and the BLAS the program called, as it said (filled
  // by the front end; 0 / "" when unknown: the corename only for an OpenBLAS).
  std::string blas_library, openblas_corename, kernel_mismatch;
  // The threads the program's OpenBLAS used (0: unknown), and the peak they can reach: the
  // machine's, scaled to those threads where they are fewer than its logical CPUs.
  int openblas_threads = 0;
  double peak_gflops_fp32 = 0, peak_gflops_fp64 = 0;
  std::uint32_t parent_pid = 0;  // a child's session: the process that started it
};

// Per-routine totals summed from calls (self time without the calls each one made), where the
// exact ones the preload counted are not at hand: a child's session, an unfinished session.
std::vector<RoutineTotal> totals_of(std::span<const CallRecord> calls);
// Sets the `dtype` of each total whose routine takes its data type as an argument, where every
// one of its calls is listed and all had the same type (PyTorch's float16 products: "float16").
void name_single_dtypes(Recording& recording);

// The recording's totals with each routine's unfinished calls counted in, and a row (no finished
// call) for a routine that only has unfinished ones: a program that hung in its first DGELSD.
std::vector<RoutineTotal> with_unfinished(const Recording& recording);

// How long a call in `running` had run when the program ended or was stopped.
double running_seconds(const Recording& recording, const CallRecord& call);

// What the calls list leaves out of the calls made inside other calls (RecordOptions::
// nested_limit), in a sentence, or "" when it lists them all.
std::string unlisted_note(const Recording& recording);

// The recording of child process `process` of `recording`, holding `calls` (the process's
// finished calls, in order) and its running calls, with totals summed from them where the
// preload's exact ones are not at hand.
Recording child_recording(const Recording& recording, const ProcessInfo& process, std::vector<CallRecord> calls);
// The calls of process `pid` that `recording` lists.
std::vector<CallRecord> calls_of_process(const Recording& recording, std::uint32_t pid);

struct RecordOptions {
  std::vector<std::string> command;
  std::string working_directory;  // "" : the recorder's
  std::string preload_library;    // libblasscope-preload.so
  double timeout_seconds = 0;     // 0: none
  bool check_values = false;
  std::uint64_t max_calls = 1000000;
  // The calls made inside each top-level call of the program that are listed one by one:
  // later ones (LAPACK's own GEMVs, 2,048 in one 200x200 DGESDD) are only counted, unless they
  // fail, run for kLongNestedCallNs or more, or made such a call. Listing every one of them cost
  // 10 % of a NumPy program of SVDs; the totals are exact either way. kAllNested lists all.
  std::uint32_t nested_limit = kDefaultNestedLimit;
  CaptureMode capture = CaptureMode::Failing;
  std::string capture_dir;  // made when the first capture is written; removed again if none was
  std::uint64_t capture_limit_bytes = 256ull << 20, capture_limit_count = 100;
  // Called about every 100 ms with the number of calls so far; returns false to stop the program.
  std::function<bool(std::uint64_t calls)> progress;
  // Set (by a signal handler) to a signal the recorder received, such as SIGTERM: the program is
  // stopped as on request, and the recording says which signal stopped it.
  const std::atomic<int>* stop_signal = nullptr;
  // Told what the recorder does about a Ctrl-C (a line for the user's terminal), when set.
  std::function<void(const std::string&)> notice;
  // Given every finished call (up to max_calls) as the recorder drains them, on the recording
  // thread, their times already in CLOCK_MONOTONIC nanoseconds: what a session writer streams to
  // disk while the program runs. With it, Recording::calls keeps only what is needed one by one
  // afterwards: failing calls and the calls they were made from, captured calls, and child
  // processes' calls (unless keep_child_calls is false). Must not throw.
  std::function<void(std::span<const CallRecord> calls, const Recording& so_far)> on_calls;
  // With on_calls: whether child processes' ordinary calls are kept in Recording::calls too
  // (false where on_calls sets them aside itself, as record_to_session does).
  bool keep_child_calls = true;
};

// Runs the program with the preload library, its stdin/stdout/stderr untouched, and records
// it until it exits (or the timeout stops it: SIGTERM, then SIGKILL after 2 s). Never throws
// for a program that fails; a command that cannot start gives exit_status 127 and `problem`.
Recording record_program(const RecordOptions& options);

// Opens /dev/null on whichever of stdin, stdout and stderr this process started without, so
// that no file it opens later (the session) takes their numbers and gets its messages; the
// programs it records are started with them closed again, as they were given. Call first thing.
void hold_closed_standard_streams();

// libblasscope-preload.so beside the running executable (lib/ next to bin/), unless
// BLASSCOPE_PRELOAD names another.
std::string default_preload_library();

}  // namespace blasscope::record
