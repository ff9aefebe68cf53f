// xerbla_: LAPACK's and BLAS's argument-error report. The report is attributed to the call
// running on this thread (a DLASCL inside a DGELSD, a DGEMM), then the real xerbla runs, so
// its message still prints and the program behaves as without BLAScope.
#include "forwarding.h"
#include "preload_runtime.h"

BLASSCOPE_EXPORT void xerbla_(const char* routine, const int* parameter, std::size_t length) {
  using Real = void (*)(const char*, const int*, std::size_t);
  if (auto* call = blasscope::preload::CallScope::innermost(); call && routine && parameter) {
    blasscope::preload::set_xerbla(call->call, routine, length ? length : 6, *parameter);
  }
  BLASSCOPE_REAL(Real, "xerbla_")(routine, parameter, length);
}
