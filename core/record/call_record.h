#pragma once

// The shared-memory layout between the preload library (libblasscope-preload.so, inside the
// recorded program and every child it starts) and the recorder (blasscope-cli record). It is
// a plain file mapped MAP_SHARED by both: a header with per-routine totals kept exact by
// atomics, a table of the calls running now (one slot per thread), and a ring of finished
// calls the recorder drains as the program runs. Nothing here allocates or locks.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "record/call_clock.h"

namespace blasscope::record {

inline constexpr std::uint32_t kMagic = 0x52534c42;  // "BLSR"
inline constexpr std::uint32_t kLayoutVersion = 32;
inline constexpr const char* kShmEnv = "BLASSCOPE_RECORD_SHM";              // the mapped file's path
inline constexpr const char* kCaptureDirEnv = "BLASSCOPE_RECORD_CAPTURES";  // where captures are written
// A writer that finds the ring full waits for the recorder (nothing is lost), and wakes it. Each
// 4 KiB page of the ring costs the program and the recorder a page fault the first time round
// (microseconds on a virtual machine that shadows page tables): 65536 entries made 100,000
// 8x8 NumPy matmuls 8 % slower than 16384 did, and 1x1 GEMMs no faster.
inline constexpr std::uint32_t kRingCapacity = 1u << 14;  // finished calls not yet drained (2 MiB)
static_assert((kRingCapacity & (kRingCapacity - 1)) == 0, "ring indices are masked");
inline constexpr std::uint32_t kActiveSlots = 256;   // threads with a call running (more share atomic totals)
inline constexpr std::uint32_t kSlotDepth = 8;       // nested calls a slot publishes (deeper ones are not)
inline constexpr std::uint32_t kMaxProcesses = 256;  // processes that attached

// Every routine the preload library interposes, in every precision it exists in.
enum class Routine : std::uint8_t {
  Gemm,
  Gemv,
  Syrk,
  Trsm,  // BLAS (CBLAS and Fortran names)
  Gesdd,
  Gesvd,
  Gelsd,
  Gelsy,
  Gelss,
  Gels,  // SVD and least squares
  Syevd,
  Syev,
  Gesv,
  Getrf,
  Getrs,
  Potrf,  // eigen, solve, factorisations
  Syevr,
  Geev,
  Geqrf,
  Orgqr,
  Potrs,
  Getri,
  Trtrs,  // more eigen, QR, solves and the inverse (recorded; no workload replays them)
  Sysv,
  Sytrf,
  Gees,  // symmetric indefinite solve and factorisation, Schur (recorded, not replayed)
  Sygvd,
  Sygv,
  Gges,
  Gehrd,
  Geqp3,  // generalized eigen and Schur, Hessenberg, pivoted QR (recorded, not replayed)
  Posv,
  Hesv,
  Hetrf,  // Cholesky solve (SciPy's solve(assume_a='pos')), Hermitian indefinite solve and factorisation
  Lascl,
  // An argument error xerbla reported outside every recorded call (a routine BLAScope does not
  // record, DTRTRI, or the program's own xerbla_ call): xerbla_routine names it, precision S.
  Xerbla,
  // cuBLAS and the CUDA runtime (precision S; `info` is the cublasStatus_t / cudaError_t)
  CublasCreate,
  CublasSgemm,
  CublasDgemm,
  CublasHgemm,
  CublasGemmEx,
  CublasSgemmStridedBatched,
  CublasDgemmStridedBatched,
  CublasGemmStridedBatchedEx,
  CudaMalloc,
  Count
};
inline constexpr std::uint32_t kRoutineCount = static_cast<std::uint32_t>(Routine::Count);

// The precision letter of the call: s, d, c, z.
enum class Precision : std::uint8_t { S, D, C, Z };
inline constexpr std::uint32_t kPrecisionCount = 4;
inline constexpr bool is_complex(Precision p) {
  return p == Precision::C || p == Precision::Z;
}

enum CallFlags : std::uint16_t {
  kCblas = 1 << 0,     // called through the CBLAS name (cblas_dgemm), else the Fortran one
  kRowMajor = 1 << 1,  // CBLAS row-major
  kTransA = 1 << 2,
  kTransB = 1 << 3,
  kHasInfo = 1 << 4,  // a LAPACK routine: `info` is its INFO
  kValuesChecked = 1 << 5,
  kCaptured = 1 << 6,         // its inputs were written as a capture
  kHasStatus = 1 << 7,        // a cuBLAS/CUDA call: `info` is its status
  kWorkspaceQuery = 1 << 8,   // LWORK = -1: LAPACK only sized its workspace, did no work
  kSomeEigenvalues = 1 << 9,  // SYEVR for some eigenvalues (RANGE 'V' or 'I'): no op replays that
  kIncomplete = 1 << 10,      // SYEVR found fewer (M) than it was asked for (N, or IU - IL + 1) with
                              // INFO = 0: those it did not compute are counted as NaN in its output
  kXerbla = 1 << 11,          // xerbla was called inside it: xerbla_parameter says which (0 is
                              // OpenBLAS's CBLAS refusing an ORDER that is neither row- nor column-major)
  kLapacke = 1 << 12,         // LAPACKE_<routine> refused it before LAPACK ran (its NaN check, or an
                              // argument): `info` is what it returned, minus the argument's position
  kConjA = 1 << 13,           // complex A (GEMM's, GEMV's, TRSM's) conjugate-transposed: TRANS 'C' or
  kConjB = 1 << 14,           // CblasConjTrans, beside kTransA/kTransB (on real data 'C' is 'T')
  // In the ring only: a top-level call that made no recorded call, whose totals the recorder
  // adds as it drains it (the preload's per-call path skips them); see ring_totals().
  kCountedByRecorder = 1 << 15,
};

// One finished call (or, in the active table, one running call). 128 bytes, a ring entry of
// two cache lines (its seal inside): the per-call cost is mostly the lines it touches. Sizes are
// the LP64 BLAS `int`s the interposed routines take.
struct CallRecord {
  std::uint64_t id = 0;      // unique across the whole recording (all processes), from 1
  std::uint64_t parent = 0;  // the id of the recorded call this one was made from; 0 for none
  // CLOCK_MONOTONIC; in the shared file, in the header's `clock` until the recorder maps them
  std::uint64_t start_ns = 0, duration_ns = 0;
  std::uint32_t pid = 0, tid = 0;
  std::int32_t m = 0, n = 0, k = 0;  // sizes (k: GEMM's inner size, NRHS for solvers)
  std::int32_t lda = 0, ldb = 0, ldc = 0;
  double alpha = 0, beta = 0;                  // real parts
  std::int32_t info = 0;                       // LAPACK INFO
  std::int32_t xerbla_parameter = 0;           // set when xerbla was called inside this call
  char xerbla_routine[8] = {};                 // as xerbla received it (DLASCL, DGEMM)
  std::uint32_t input_nan = 0, input_inf = 0;  // when values were checked (saturating)
  std::uint32_t output_nan = 0, output_inf = 0;
  Routine routine = Routine::Gemm;
  Precision precision = Precision::D;
  std::uint16_t flags = 0;
  // The first character argument, as passed ('G', 'U', 'N', ...); for cuBLAS's *Ex GEMMs 1 + the
  // cudaDataType of A (record::call_dtype).
  std::uint8_t side_uplo = 0;
  // The operands' pointer alignment as 1 + its log2 (1 byte: 1, 4096 bytes or more: 13); 0 for
  // an operand not recorded.
  std::uint8_t align_a = 0, align_b = 0, align_c = 0;
  // Calls made inside this one (at any depth) that are counted in the totals but not listed one
  // by one: see SharedHeader::nested_limit.
  std::uint32_t unlisted = 0;
  // In a ring entry, the low 32 bits of its ring index + 1 once the rest is written (read and
  // written through std::atomic_ref); meaningless elsewhere.
  std::uint32_t ring_seal = 0;
};
static_assert(sizeof(CallRecord) == 128);

// Which of a LAPACK routine's arguments (1-based, as xerbla numbers them) is the CHARACTER one
// `side_uplo` holds: the first, except where an earlier one decides less (SYEV's JOBZ: its UPLO,
// which says the triangle read, is kept). 0 for a routine with none recorded.
constexpr int letter_parameter(Routine r) {
  switch (r) {
    case Routine::Syevd:
    case Routine::Syev: return 2;  // (JOBZ, UPLO, ...)
    case Routine::Syevr:           // (JOBZ, RANGE, UPLO, ...)
    case Routine::Sygvd:
    case Routine::Sygv: return 3;  // (ITYPE, JOBZ, UPLO, ...)
    case Routine::Gesdd:
    case Routine::Gesvd:
    case Routine::Gels:
    case Routine::Getrs:
    case Routine::Potrf:
    case Routine::Geev:
    case Routine::Potrs:
    case Routine::Posv:
    case Routine::Trtrs:
    case Routine::Sysv:
    case Routine::Hesv:
    case Routine::Sytrf:
    case Routine::Hetrf:
    case Routine::Gees:
    case Routine::Gges:
    case Routine::Lascl: return 1;
    default: return 0;
  }
}

// Whether a workload op replays a call of this routine (gemm, gemv, syrk, trsm, dlascl, svd,
// lstsq, cholesky, lu, solve, lu_solve, eigh; SYEVR's of every eigenvalue): the preload
// captures only these, the reports name the others.
inline bool has_replay_op(Routine r) {
  switch (r) {
    case Routine::Geev:
    case Routine::Geqrf:
    case Routine::Orgqr:
    case Routine::Potrs:
    case Routine::Getri:
    case Routine::Trtrs:
    case Routine::Sysv:
    case Routine::Sytrf:
    case Routine::Gees:
    case Routine::Sygvd:
    case Routine::Sygv:
    case Routine::Gges:
    case Routine::Gehrd:
    case Routine::Geqp3:
    case Routine::Posv:
    case Routine::Hesv:
    case Routine::Hetrf:
    case Routine::Xerbla: return false;
    default: return r < Routine::CublasCreate;
  }
}

// Whether a complex call of this routine replays too: the svd, lstsq, eigh (?HEEVD, ?HEEV,
// ?HEEVR), cholesky, lu, solve and lu_solve ops take complex matrices.
inline bool replays_complex(Routine r) {
  switch (r) {
    case Routine::Gesdd:
    case Routine::Gesvd:
    case Routine::Gelsd:
    case Routine::Gelsy:
    case Routine::Gelss:
    case Routine::Gels:
    case Routine::Syevd:
    case Routine::Syev:
    case Routine::Syevr:
    case Routine::Potrf:
    case Routine::Getrf:
    case Routine::Gesv:
    case Routine::Getrs: return true;
    default: return false;
  }
}

// A call that failed: INFO != 0, an xerbla report, a non-finite result, or a LAPACK call that
// read NaN/Inf, whatever it returned (a finite result from them means nothing: SYEVR with
// eigenvectors returns zeros for a NaN).
inline bool has_xerbla(const CallRecord& c) {
  return (c.flags & kXerbla) || c.xerbla_parameter != 0;
}

inline bool call_failed(const CallRecord& c) {
  const bool read_nonfinite = (c.flags & kHasInfo) && (c.flags & kValuesChecked) && c.input_nan + c.input_inf > 0;
  return c.info != 0 || has_xerbla(c) || c.output_nan != 0 || c.output_inf != 0 || read_nonfinite;
}

// A call whose record the diagnoses need one by one: it failed, read or made NaN/Inf, was
// captured, or is a ?LASCL given a non-finite scale (an Inf norm it accepted, scaling by zero,
// explains what fails after it in the same driver).
inline bool needed_one_by_one(const CallRecord& c) {
  const bool odd_scale = c.routine == Routine::Lascl && (!std::isfinite(c.alpha) || !std::isfinite(c.beta));
  return (c.flags & kCaptured) || c.info != 0 || has_xerbla(c) || c.input_nan != 0 || c.input_inf != 0 ||
         c.output_nan != 0 || c.output_inf != 0 || odd_scale;
}

// A GELS of A^T X = B (TRANS 'T' or 'C', held in side_uplo): B's rows are N on entry and M on
// return, and the lstsq op (A X = B) does not replay it.
inline bool transposed_gels(const CallRecord& c) {
  return c.routine == Routine::Gels &&
         (c.side_uplo == 'T' || c.side_uplo == 't' || c.side_uplo == 'C' || c.side_uplo == 'c');
}

// cudaMalloc's size in bytes, which passes 2^31 (the allocations that fail): its low 32 bits
// in m, its high ones in n. Sessions write it as "bytes".
inline std::uint64_t malloc_bytes(const CallRecord& c) {
  return static_cast<std::uint32_t>(c.m) | static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.n)) << 32;
}
inline void set_malloc_bytes(CallRecord& c, std::uint64_t bytes) {
  c.m = static_cast<std::int32_t>(static_cast<std::uint32_t>(bytes));
  c.n = static_cast<std::int32_t>(static_cast<std::uint32_t>(bytes >> 32));
}

// An alignment as CallRecord holds it, in bytes (0: not recorded).
inline std::uint32_t alignment_bytes(std::uint8_t code) {
  return code == 0 || code > 13 ? 0 : 1u << (code - 1);
}

// Exact totals per routine and precision, over every call (even when the ring overflowed);
// times in the header's `clock`. `queries`: calls that were workspace queries (in `calls` too);
// `query_nanoseconds` their time (in `nanoseconds` too); `longest`: the longest call's duration
// (what a call stopped by --timeout is measured against).
struct RoutineTotals {
  std::atomic<std::uint64_t> calls, nanoseconds, self_nanoseconds, failures, flops, queries, query_nanoseconds, longest;
};

// A thread's running calls, published at entry so a crash or a hang names them. The calls are
// filled in place (no copy on entry): stack[0, depth) are running, the innermost last.
// A slot stays its process's when its thread ends (owner_tid 0, owner_pid kept), for its
// process's threads alone, until the recorder takes it back with its totals once the process
// has exited: each process's totals stay exact, and apart.
inline constexpr std::uint32_t kSlotReclaiming = UINT32_MAX;  // owner_tid while the recorder takes it back
struct alignas(64) ActiveSlot {
  std::atomic<std::uint32_t> owner_tid;  // 0: free (for owner_pid's threads, or any when that is 0)
  std::atomic<std::uint32_t> owner_pid;
  std::atomic<std::uint32_t> version;  // odd while a new call's entry is being written
  std::atomic<std::uint32_t> depth;    // calls running (at most kSlotDepth are published)
  CallRecord stack[kSlotDepth];
  // Totals of the calls made by the threads that held this slot, written by the holder alone
  // (no atomic read-modify-write on the call path); the recorder adds up every slot.
  RoutineTotals totals[kRoutineCount][kPrecisionCount];
};

// Two cache lines; `call.ring_seal` says when it is complete.
struct alignas(64) RingEntry {
  CallRecord call;
};
static_assert(sizeof(RingEntry) == 128);

// How a process's image ended, as the preload saw it (a child is not the recorder's to wait for).
enum class ProcessEnd : std::uint32_t {
  None,      // still running, or gone without exiting: a signal (a crash, the OOM killer, a kill)
  Exiting,   // it called exit(): its exit handlers run (a crash in one of them leaves it so)
  Exited,    // exit() whose handlers all ran, or _exit() or _Exit(): the status is its own
  Returned,  // its exit handlers ran without exit() seen (a C main that returned): status unknown
  Execed,    // it exec'd another program, which attached again under the same pid
};

// ProcessEntry::ending: the end in its low 32 bits and the exit status (0-255) above, one word
// so that two threads ending a process at once (exit() against _exit()) never mix theirs.
inline std::uint64_t pack_ending(ProcessEnd end, int status) {
  return static_cast<std::uint64_t>(end) | static_cast<std::uint64_t>(status & 0xff) << 32;
}
inline ProcessEnd end_of(std::uint64_t ending) {
  return static_cast<ProcessEnd>(ending & 0xffffffffu);
}
inline int status_of(std::uint64_t ending) {
  return static_cast<int>(ending >> 32);
}

struct ProcessEntry {
  std::atomic<std::uint32_t> pid, parent_pid;
  // Bit 0: a BLAS/LAPACK symbol was resolved in it; bit 1: it ended with a BLAS/LAPACK library
  // loaded (whether or not it called a routine BLAScope records).
  std::atomic<std::uint32_t> blas_found;
  std::atomic<std::uint64_t> ending;  // pack_ending()
  // CLOCK_MONOTONIC ns when it attached, and when it last said how it ends (0: not said): its
  // wall time, whatever the recorder's looks at it missed.
  std::atomic<std::uint64_t> attached_ns, ended_ns;
  // When it started (/proc/PID/stat's starttime; 0: not read): a pid the recorder opens a pidfd
  // on is this process only if its start time is the same (not a pid reused, nor one of another
  // pid namespace).
  std::atomic<std::uint64_t> start_ticks;
  // A futex: 1 once the recorder holds a pidfd on it (or cannot). A process waits for it
  // briefly after registering (SharedHeader::processes_watched): a child that crashes within a
  // millisecond is otherwise reaped before the recorder's look, and how it ended is lost.
  std::atomic<std::uint32_t> watched;
  char command[116];
  // Where its arguments end: bit i set where command[i] was a NUL (shown as a space), and whether
  // the line is whole (not cut to fit): the arguments of a process gone before the recorder
  // read them, exactly ("a b" stays one argument).
  std::uint8_t argument_ends[(sizeof command + 7) / 8];
  std::uint8_t command_whole;
  // The BLAS it calls, said once (complete when blas_said is 2): the library the first routine
  // it called resolved to, and what that library's OpenBLAS says of itself and the
  // OPENBLAS_CORETYPE it saw (empty for another BLAS). The recorder's own OpenBLAS may differ.
  std::atomic<std::uint32_t> blas_said;
  char blas_library[252];
  char blas_corename[32], blas_coretype[32];
  char blas_config[128];
  std::int32_t blas_threads;  // openblas_get_num_threads() when it said (0: not an OpenBLAS)
};

// The start time in /proc/PID/stat's text (its 22nd field, clock ticks after boot), or 0. The
// command (field 2) is in parentheses and may hold spaces and parentheses itself.
inline std::uint64_t start_ticks_in(const char* stat, std::size_t size) {
  std::size_t at = size;
  while (at > 0 && stat[at - 1] != ')') --at;
  if (at == 0) return 0;
  for (int field = 2; field < 21; ++field) {  // fields 3 to 21 follow the ')'
    while (at < size && stat[at] == ' ') ++at;
    while (at < size && stat[at] != ' ') ++at;
  }
  while (at < size && stat[at] == ' ') ++at;
  std::uint64_t ticks = 0;
  for (; at < size && stat[at] >= '0' && stat[at] <= '9'; ++at)
    ticks = ticks * 10 + static_cast<std::uint64_t>(stat[at] - '0');
  return ticks;
}

// Fields written on every call, by the recorder, and read-mostly ones sit on separate cache
// lines: a recorder storing its read index must not evict the writers' line.
struct SharedHeader {
  std::uint32_t magic, version;
  std::uint32_t ring_capacity, active_slots;
  std::atomic<std::uint32_t> check_values;  // scan GEMM operands too (--check-values)
  std::atomic<CallClock> clock;             // what calls' start and duration are counted in
  // Captures: 0 none, 1 failing calls, 2 every capturable call; limits and what they cost.
  std::atomic<std::uint32_t> capture_mode;
  std::atomic<std::uint64_t> capture_limit_bytes, capture_limit_count;
  // The calls made inside a top-level call (LAPACK's own GEMVs: a 200x200 DGESDD makes 2,048)
  // are listed one by one up to the first `nested_limit` of them (UINT32_MAX: all); later ones
  // are only counted (in the totals and in their caller's `unlisted`) unless needed_one_by_one,
  // running for `long_call_ticks` or more (0: not known yet), or the caller of such a call.
  std::atomic<std::uint32_t> nested_limit;
  // Non-zero: calls are forwarded unrecorded (not counted either) until it is zero again. Only
  // tests/bench/bench_record.py sets it, from inside the recorded program at its fixed offset:
  // recorded and unrecorded stretches of one run, side by side, measure what recording costs
  // where separate runs of a program differ by more than that on a shared VM.
  std::atomic<std::uint32_t> paused;
  std::atomic<std::uint64_t> long_call_ticks;
  alignas(64) std::atomic<std::uint64_t> next_call_id;  // ids handed out in blocks
  std::atomic<std::uint64_t> write_index;               // ring slots reserved by writers
  // Writers reserve ring indices below this: the recorder's read index + the capacity, and no
  // further than the part of the ring allocated so far (only its first entries, until a writer
  // first finds it full).
  alignas(64) std::atomic<std::uint64_t> write_limit;
  // A futex (RingFull): a writer that finds the ring full sets it and wakes the recorder's helper
  // thread, which allocates the rest of the ring the first time and wakes the recorder to drain
  // it. The recorder may then sleep long between drains: each wake-up takes a core from the
  // program, and a full ring wakes it anyway.
  std::atomic<std::uint32_t> ring_full;
  // Writers that found the ring full sleep on `room_made` (a futex) instead of spinning: a
  // spinning program thread takes the core the recorder needs to make room. Whoever raises the
  // write limit moves it and wakes them when `room_waiters` says any sleep.
  std::atomic<std::uint32_t> room_waiters;
  std::atomic<std::uint32_t> room_made;
  alignas(64) std::atomic<std::uint64_t> dropped;  // finished calls lost because the ring was full
  // Drained for the last time, or the recorder died (or a writer waited 10 s in vain): later
  // calls drop at once.
  std::atomic<std::uint32_t> recorder_gone;
  // The recorder holds the shared file locked (flock) while it lives, so the program can tell a
  // killed recorder from a slow one: a lock it can take itself means nobody drains any more.
  std::atomic<std::uint32_t> recorder_holds_lock;
  std::atomic<std::uint64_t> captured_bytes, captured_count, capture_skipped;
  std::atomic<std::uint32_t> process_count;
  // A futex moved by every process once its entry is complete: the recorder opens a pidfd on it
  // at once (a short-lived child may be gone by the recorder's next look).
  std::atomic<std::uint32_t> processes_registered;
  std::atomic<std::uint32_t> slots_seen;  // active[0, slots_seen) are all the slots ever claimed
  // The recorder's pid while its thread that opens the pidfds runs (0: none): a registering
  // process then waits for its entry's `watched` (bounded), unless the recorder is its parent
  // (the program: its end comes from waitpid) or it is an exec'd image of a watched process.
  std::atomic<std::uint32_t> processes_watched;
  RoutineTotals totals[kRoutineCount][kPrecisionCount];  // of threads that found no free slot
  ProcessEntry processes[kMaxProcesses];
  ActiveSlot active[kActiveSlots];
  RingEntry ring[kRingCapacity];
};

inline constexpr std::size_t kSharedBytes = sizeof(SharedHeader);
inline constexpr std::size_t kPausedOffset = 52;  // bench_record.py writes it there
static_assert(offsetof(SharedHeader, paused) == kPausedOffset);

// SharedHeader::ring_full's states.
enum RingFull : std::uint32_t {
  kRingNotFull = 0,   // the drain set it back (or nothing ever filled the ring)
  kRingFull = 1,      // a writer found it full and woke the helper
  kRingReported = 2,  // the helper has grown the ring and woken the recorder
  kRingUnserved = 3,  // the recorder no longer listens (the program has ended)
};

// A writer found the ring full: the recorder is told, once until it drains. The futex word is
// in a MAP_SHARED file, so the wake reaches the recorder's process.
inline void report_ring_full(SharedHeader& header) {
  // Only from NotFull: a late writer must not undo the helper's Reported or the recorder's Unserved.
  std::uint32_t expected = kRingNotFull;
  if (header.ring_full.load(std::memory_order_relaxed) == kRingNotFull &&
      header.ring_full.compare_exchange_strong(expected, kRingFull)) {
    ::syscall(SYS_futex, &header.ring_full, FUTEX_WAKE, 1, nullptr, nullptr, 0);
  }
}

}  // namespace blasscope::record
