// xerbla_: LAPACK's and BLAS's argument-error report. The report is attributed to the call
// running on this thread (a DLASCL inside a DGELSD, a DGEMM), or recorded alone where none is,
// then the real xerbla runs, so its message still prints and the program behaves as without
// BLAScope.
#include "forwarding.h"
#include "preload_runtime.h"

namespace {
// A second report inside one call, from routines BLAScope does not record (DGEEV of a NaN:
// DGEBAL's, then DHSEQR's): the call takes the later one (the one SciPy raises, each report
// replacing the last), and the earlier is kept as a report record of its own made inside it.
void keep_earlier_report(const blasscope::record::CallRecord& call) {
  blasscope::preload::CallScope earlier(blasscope::record::Routine::Xerbla, blasscope::record::Precision::S);
  if (!earlier.recording()) return;
  blasscope::preload::set_xerbla(earlier.call, call.xerbla_routine, sizeof call.xerbla_routine, call.xerbla_parameter);
  earlier.begin();
}
}  // namespace

BLASSCOPE_EXPORT void xerbla_(const char* routine, const int* parameter, std::size_t length) {
  using Real = void (*)(const char*, const int*, std::size_t);
  using blasscope::preload::CallScope;
  if (routine && parameter && blasscope::preload::QuietCall::take_report(routine, length ? length : 6, *parameter)) {
    // A quiet nested call's: it is recorded when it returns (QuietCall).
  } else if (auto* call = CallScope::innermost(); call && routine && parameter) {
    if (blasscope::record::has_xerbla(call->call)) keep_earlier_report(call->call);
    blasscope::preload::set_xerbla(call->call, routine, length ? length : 6, *parameter);
  } else if (routine && parameter) {
    // No recorded call is running (DTRTRI, a routine BLAScope does not record, or the program's
    // own xerbla_ call): the report is a record of its own, so that the error is not lost.
    CallScope report(blasscope::record::Routine::Xerbla, blasscope::record::Precision::S);
    if (report.recording()) {
      blasscope::preload::set_xerbla(report.call, routine, length ? length : 6, *parameter);
      report.begin();
    }
  }
  // R's xerbla longjmps back to R: the calls running here would be left without their
  // destructors, and a later call deeper in the stack would take their dead frames (live frames
  // of the program by then) for its callers and write into them.
  const std::uint32_t running = blasscope::preload::CallScope::forget_running();
  BLASSCOPE_REAL(Real, "xerbla_")(routine, parameter, length);
  blasscope::preload::CallScope::resume_running(running);
}
