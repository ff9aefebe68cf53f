#pragma once

#include <functional>
#include <string>
#include <vector>

namespace blasscope::core {

// One argument error a BLAS or LAPACK routine reported through xerbla_.
struct XerblaCall {
  std::string routine;  // as the library names it: "DGEMM", "DLASCL"
  int parameter = 0;    // 1-based position in the Fortran-style argument list
};

// BLAScope provides xerbla_ (OpenBLAS's is a weak symbol): instead of printing
// "On entry to DGEMM parameter number 8 had an illegal value" the call is recorded by the
// innermost capture active on the calling thread, and the process goes on.
class XerblaCapture {
 public:
  XerblaCapture();
  // `on_call` also hears of each call as it is made: a routine that then never returns (a
  // LAPACK driver spinning on the NaN its DLASCL refused) has still reported it.
  explicit XerblaCapture(std::function<void(const XerblaCall&)> on_call);
  ~XerblaCapture();
  XerblaCapture(const XerblaCapture&) = delete;
  XerblaCapture& operator=(const XerblaCapture&) = delete;

  const std::vector<XerblaCall>& calls() const { return m_calls; }
  void record(XerblaCall call) {
    if (m_on_call) m_on_call(call);
    m_calls.push_back(std::move(call));
  }

 private:
  XerblaCapture* m_outer;
  std::function<void(const XerblaCall&)> m_on_call;
  std::vector<XerblaCall> m_calls;
};

// Reports an argument error exactly as LAPACK does, for BLAScope's own kernels.
void report_argument_error(const char* routine, int parameter);

}  // namespace blasscope::core
