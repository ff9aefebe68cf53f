#pragma once

// Captures: a failing call's inputs as they were before it ran (LAPACK overwrites them),
// written as .npy files beside a workload.json that replays the call with
// `blasscope-cli run`. Only drivers, GETRS and BLAS argument errors are captured, in real
// precisions, and complex ones where a replay op takes them (record::replays_complex, GEMMs'
// refused arguments). Copies are made only when
// captures are on, and only for calls likely to fail (NaN/Inf inputs, a scale ?LASCL refuses or
// an Inf one) unless every call is captured (then a GETRS, O(n^2 NRHS) work, costs about as much
// again); they are written before the call and removed after it if it did not fail. Under
// --capture all, past the good calls' share of the caps, they are kept through the call and
// written after it only if it failed: such a call that hangs, crashes or is left by a longjmp
// is not captured.
#include <cstddef>
#include <cstdint>
#include <new>

#include "record/call_record.h"

namespace blasscope::preload {

class InputCapture {
 public:
  // Cheap to make on every call (GEMM, LAPACK): nothing is zeroed but the folder's first byte.
  InputCapture() { m_dir[0] = m_deferred_op[0] = '\0'; }
  ~InputCapture();
  InputCapture(const InputCapture&) = delete;
  InputCapture& operator=(const InputCapture&) = delete;

  // Whether the call is expected to fail (NaN/Inf inputs, a refused scale, a result already
  // bad): such captures may use all of the caps, those of other calls (--capture all) three
  // quarters of them. Expected unless said otherwise.
  void set_failure_expected(bool expected) { m_failure_expected = expected; }
  // After the call: whether it failed is known, and copies made now take only their own share.
  void set_outcome(bool failed) { m_failure_expected = failed, m_outcome_known = true; }
  // Whether captures are on for this call's precision (real ones), or for a call of `routine`
  // in `precision` (complex ones too where a workload replays them: record::replays_complex).
  static bool enabled(record::Precision precision);
  static bool enabled(record::Routine routine, record::Precision precision);
  // --capture all: inputs are kept whatever they hold.
  static bool capturing_all();
  // Keeps a packed copy of a rows x cols matrix stored with leading dimension ld, column-major
  // (row_major: each of the rows holds cols elements). Slots 0, 1, 2 are the tensors a, b, c.
  // `complex`: each element is a complex number of element_size bytes (both parts).
  void keep(int slot, const void* data, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t element_size,
            bool row_major = false, bool complex = false);
  // Keeps a copy of `count` LAPACK integers (GETRS's pivots) in slot `slot`, written as the
  // int32 vector `name`.npy (a string that outlives the capture).
  void keep_integers(int slot, const int* data, std::int64_t count, const char* name);
  // Writes the capture now (a GEMM, whose A and B are still as they were): `tensors_extra` are
  // further tensor entries of the workload ("" for none). Marks the call kCaptured; one that
  // failed and could not be captured is counted as skipped.
  void write_after(record::CallRecord& call, bool failed, const char* op_json, const char* tensors_extra = "");
  // Whether slot `slot` holds a copy.
  bool has(int slot) const { return slot >= 0 && slot < 3 && m_inputs[slot].data; }
  // A call that cannot be captured (an input it needed was not kept): counted as skipped when it
  // failed, or when every call is captured.
  void skip(bool failed);
  // Writes the capture of `call` (a driver: svd, lstsq or dlascl replay) from what keep() copied,
  // before the call runs: a call that never returns (a hang stopped by --timeout, a crash) is
  // captured too. Marks the call kCaptured. `op` is the workload op's JSON. A call not expected
  // to fail past its share of the caps keeps the copies through the call instead: settle()
  // writes them if it failed after all (a finite matrix POTRF finds not positive definite); a
  // hang, a crash or a longjmp out of the call loses them.
  void write_before(record::CallRecord& call, const char* op_json);
  // The call cannot be captured after all (no replay op for its arguments): the copies go, and
  // settle() counts it as skipped if it fails.
  void give_up();
  // After the call: a capture that is not wanted (the call succeeded, and not every call is
  // captured) is removed again, with its share of the caps.
  void settle(record::CallRecord& call, bool failed);

 private:
  struct Matrix {
    void* data = nullptr;
    std::int64_t rows = 0, cols = 0;
    std::size_t element_size = 0;
    bool row_major = false;
    bool integers = false;       // a vector of int32 (pivots), not a matrix of reals
    bool complex = false;        // complex values (element_size holds both parts)
    const char* name = nullptr;  // its tensor's name, when not its slot's ("a", "b", "c")
  };
  const char* slot_name(int slot) const;
  // Writes the kept matrices and the workload into the call's folder; false when nothing was.
  bool write_files(record::CallRecord& call, const char* op_json, const char* tensors_extra);
  // Removes what write_files wrote, and gives its share of the caps back.
  void remove_written();
  void release_copies();  // frees what keep() copied
  std::uint64_t kept_bytes() const;

  Matrix m_inputs[3];  // a, b, c
  bool m_failure_expected = true;
  bool m_outcome_known = false;       // set_outcome(): copies are made after the call
  bool m_gave_up = false;             // give_up(): no replay op for this call
  bool m_skipped = false;             // over the caps, or no memory or disk for it: not captured (counted if it fails)
  std::uint64_t m_written_bytes = 0;  // what write_before reserved, given back when it is removed
  char m_dir[4096];                   // where the capture was written, "" for nothing
  char m_deferred_op[256];            // write_before's op, kept for settle(): "" when nothing waits
};

// An InputCapture made only when a call is captured: a GEMM's frame holds one on every call,
// and zeroing its slots (std::optional zeroed all 4 KiB) cost a call of 1x1 matrices a tenth
// of its time.
class LazyCapture {
 public:
  LazyCapture() {}
  ~LazyCapture() {
    if (m_made) m_capture.~InputCapture();
  }
  LazyCapture(const LazyCapture&) = delete;
  LazyCapture& operator=(const LazyCapture&) = delete;
  InputCapture& make() {
    if (!m_made) new (&m_capture) InputCapture(), m_made = true;
    return m_capture;
  }
  // The one made (make() came first).
  InputCapture& made() { return m_capture; }

 private:
  union {
    InputCapture m_capture;
  };
  bool m_made = false;
};

// A GEMM that xerbla rejected: its arguments matter, not its values, so the capture is a
// workload of synthetic tensors of the same shapes, layout and leading dimensions.
void capture_gemm_arguments(record::CallRecord& call);
// The same for a GEMV, SYRK or TRSM: shapes and layout as called, the leading dimension or
// stride that was refused passed as it was (the others legal, since they were not refused).
void capture_blas_arguments(record::CallRecord& call);

}  // namespace blasscope::preload
