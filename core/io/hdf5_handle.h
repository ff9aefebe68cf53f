#pragma once

// RAII for libhdf5 identifiers, and libhdf5's error stack turned into InputError text.
// Every entry point into libhdf5 calls hdf5_quiet() first: the library is built
// thread-safe, and its automatic error printing is a per-thread setting.

#include <hdf5.h>

#include <string>
#include <utility>

namespace blasscope::core {

// An hid_t closed by the H5*close function that matches what opened it.
class Hid {
 public:
  using Close = herr_t (*)(hid_t);
  Hid() = default;
  Hid(hid_t id, Close close) : m_id(id), m_close(close) {}
  ~Hid() { reset(); }
  Hid(Hid&& other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)), m_close(other.m_close) {}
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      m_id = std::exchange(other.m_id, H5I_INVALID_HID);
      m_close = other.m_close;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;

  hid_t get() const { return m_id; }
  bool valid() const { return m_id >= 0; }
  void reset() {
    if (m_id >= 0 && m_close) m_close(m_id);
    m_id = H5I_INVALID_HID;
  }

 private:
  hid_t m_id = H5I_INVALID_HID;
  Close m_close = nullptr;
};

// Turns off libhdf5's printing of its error stack on this thread (we report it ourselves).
void hdf5_quiet();
// The innermost messages of the current thread's error stack, "; "-joined, or "" when empty.
std::string hdf5_error_text();
// Throws InputError(Malformed) with `what` and the error stack when `id` is negative.
Hid hdf5_check(hid_t id, Hid::Close close, const std::string& what);
// Throws InputError(Malformed) with `what` and the error stack when `status` is negative.
void hdf5_check(herr_t status, const std::string& what);

}  // namespace blasscope::core
