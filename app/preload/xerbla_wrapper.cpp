// xerbla_: LAPACK's and BLAS's argument-error report. The report is attributed to the call
// running on this thread (a DLASCL inside a DGELSD, a DGEMM), or recorded alone where none is,
// then the real xerbla runs, so its message still prints and the program behaves as without
// BLAScope.
#include "forwarding.h"
#include "preload_runtime.h"

BLASSCOPE_EXPORT void xerbla_(const char* routine, const int* parameter, std::size_t length) {
  using Real = void (*)(const char*, const int*, std::size_t);
  using blasscope::preload::CallScope;
  if (routine && parameter && blasscope::preload::QuietCall::take_report(routine, length ? length : 6, *parameter)) {
    // A quiet nested call's: it is recorded when it returns (QuietCall).
  } else if (auto* call = CallScope::innermost(); call && routine && parameter) {
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
