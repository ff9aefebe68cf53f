#include "kernels/xerbla_capture.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>

namespace blasscope::core {
namespace {

thread_local XerblaCapture* t_active = nullptr;

std::string routine_name(const char* name, int length) {
  // Fortran passes a blank-padded name and its length; OpenBLAS passes a C string and
  // sizeof (which counts the terminating NUL). Accept both.
  std::string text;
  for (int i = 0; i < std::clamp(length, 0, 32) && name[i] != '\0'; ++i) text += name[i];
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

XerblaCapture::XerblaCapture() : m_outer(t_active) {
  t_active = this;
}

XerblaCapture::XerblaCapture(std::function<void(const XerblaCall&)> on_call) : XerblaCapture() {
  m_on_call = std::move(on_call);
}

XerblaCapture::~XerblaCapture() {
  t_active = m_outer;
}

void report_argument_error(const char* routine, int parameter) {
  if (t_active != nullptr) {
    t_active->record({routine, parameter});
  } else {
    std::fprintf(stderr, "blasscope: %s: parameter %d had an illegal value\n", routine, parameter);
  }
}

}  // namespace blasscope::core

// The third argument is the hidden Fortran string length; only its low 32 bits are
// meaningful when OpenBLAS passes an int.
extern "C" void xerbla_(const char* name, const int* info, std::size_t length) {
  using namespace blasscope::core;
  const std::string routine = routine_name(name, static_cast<int>(length & 0x7FFFFFFF));
  report_argument_error(routine.c_str(), info != nullptr ? *info : 0);
}
