#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace blasscope::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRejected = 3;

inline constexpr const char* kCliUsage = R"(usage: blasscope-cli COMMAND [OPTIONS]

Inspects BLAS/LAPACK workloads and the tensors they read, headless.

commands:
  inspect FILE [--json]   list the tensors in FILE (.npy, .npz, .safetensors, a torch.save
                          checkpoint .pt/.pth read without running its pickle, HDF5 .h5/.hdf5
                          and Keras .keras through libhdf5; the format is recognised by its
                          magic bytes) with dtype, shape, memory order,
                          alignment and a count of NaN, +/-Inf, zero and subnormal values;
                          tensors of strings, structured, object (pickled) or long double dtypes
                          are listed with a "not-scanned" finding, their values never read.
                          A sharded checkpoint is read whole: FILE is its index
                          (model.safetensors.index.json, pytorch_model.bin.index.json) or its
                          folder; a folder is read through model.safetensors.index.json, else
                          pytorch_model.bin.index.json, else its one *.index.json, else every
                          *.safetensors file (else every *.bin/*.pt/*.pth) as a shard
      --json              print one JSON object on stdout instead of the table
      --quiet             no progress on stderr

  run WORKLOAD [OPTIONS]   run a workload file or a built-in scenario id (tensors + gemm, dlascl, svd, lstsq,
                          cholesky, lu, solve, lu_solve, eigh, gemv, syrk, trsm, cast ops)
                          through instrumented OpenBLAS/LAPACK kernels in an isolated worker
                          process; a crash in a kernel is reported, never fatal
      --json              print one JSON object (environment, ops, findings, crash)
      --trace FILE        write a Chrome trace (Perfetto, chrome://tracing) of the kernels
      --save-outputs DIR  write every op's output as DIR/NAME.npy
      --device D          run every op on cpu, gpu or both. GPU ops are timed with CUDA events;
                          CUPTI traces their kernels (BLASSCOPE_CUPTI=all: copies, memsets,
                          allocations and CUPTI's overhead too, at more cost; =api: every CUDA
                          call too; =0: no tracing)
      --session FILE      save the whole result for the GUI
      --in-process        run without a worker (debugging, benchmarks; a crash ends the CLI)
  scenarios [--json]      list the built-in scenarios: id, title, the diagnoses each shows
  explain ID              the cause, the fix and the error texts of a diagnosis id
  triage [FILE|-] [--json]
                          read a log or traceback (FILE, or standard input) from NumPy, SciPy,
                          PyTorch, TensorFlow, MKL, OpenBLAS, LAPACK, cuBLAS or CUDA and list the
                          diagnoses it shows, most likely first: the matched line, the values read
                          from it (routine, parameter, shapes, dtypes, status), cause, fix and the
                          scenario that reproduces it
      --json              print one JSON object (matches: id, title, line, values, scenario, score)
  record [OPTIONS] -- COMMAND [ARGS...]
                          run COMMAND (python3 train.py, a C program) unmodified and record the
                          BLAS/LAPACK calls it and its children make (GEMM, GEMV, SYRK, TRSM, the
                          SVD, least-squares, eigen and solve drivers and factorisations, ?LASCL,
                          xerbla, cuBLAS GEMMs; the README lists them): routine, sizes, time, INFO,
                          xerbla reports, NaN/Inf in LAPACK inputs and outputs; failures are
                          diagnosed. Exits with COMMAND's status (128+signal, 124 on timeout)
      --output FILE       the session file (default blasscope-record-HOST-PID.json)
      --timeout SECONDS   stop COMMAND after this long (0, the default: no limit); the call still
                          running is named. Ctrl-C goes to COMMAND; if a recorded call it
                          interrupted still runs 10 s later (or at a second Ctrl-C), COMMAND is
                          stopped the same way
      --capture MODE      failing (default), all or none: write a failing call's inputs as they were
                          before it ran (.npy) with a workload.json that replays it
      --capture-limit MIB at most this much captured per session (default 256); what is left out is said
      --check-values      also scan GEMM operands and results for NaN/Inf
      --max-calls N       keep at most N calls one by one (totals stay exact; default 1000000)
      --nested-calls N|all
                          list the first N calls made inside each top-level call (LAPACK's own
                          GEMVs and GEMMs; default 64) one by one; later ones are counted in the
                          totals and in their caller's "unlisted", unless they fail, read or make
                          NaN/Inf, or run 100 us or more
      --quiet             no summary on stderr
  report SESSION [--format md|html|json] [--output FILE]
                          a readable report of a saved run (--session) or a recording:
                          environment, ops or routines, diagnoses with evidence and explanations

options:
  -h, --help              show this help
  --version               show the version

exit status:
  0  inspect: the input was read (findings may still be listed, "not-scanned" tensors
     included); run: no error finding; triage: at least one diagnosis matched
  1  run: an error diagnosis (illegal argument, shape/dtype mismatch, out of memory, crash...);
     triage: no known error text in the input
  2  usage error
  3  the input or workload was rejected (unreadable, malformed or unsupported: a PyTorch
     checkpoint or a pickle is named, not read); stderr says why
  record exits with the recorded program's own status (127: the command was not found)
)";

// One command's part of kCliUsage (`blasscope-cli record --help`), or all of it for a command
// it does not list.
inline std::string command_usage(std::string_view command) {
  const std::string_view usage = kCliUsage;
  std::size_t start = usage.find("\n  " + std::string(command) + ' ');
  if (start == std::string_view::npos) start = usage.find("\n  " + std::string(command) + '\n');
  if (start == std::string_view::npos) return std::string(usage);
  std::size_t end = start + 1;
  // Up to the next command (a line with two spaces and a name) or the end of the list.
  while ((end = usage.find('\n', end)) != std::string_view::npos && end + 3 < usage.size()) {
    const bool next_command =
        usage.substr(end + 1, 2) == "  " && std::islower(static_cast<unsigned char>(usage[end + 3]));
    if (next_command || usage[end + 1] != ' ') break;
    ++end;
  }
  std::string text = "usage: blasscope-cli " + std::string(usage.substr(start + 3, end - start - 3)) + '\n';
  return text;
}

}  // namespace blasscope::app
