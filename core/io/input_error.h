#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace blasscope::core {

// A file or workload that BLAScope refuses, with a message naming the field and the limit.
class InputError : public std::runtime_error {
 public:
  enum class Kind { Unreadable, Malformed, Unsupported };

  InputError(Kind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}

  Kind kind() const { return m_kind; }
  std::string_view kind_name() const {
    switch (m_kind) {
      case Kind::Unreadable: return "unreadable";
      case Kind::Malformed: return "malformed";
      case Kind::Unsupported: break;
    }
    return "unsupported";
  }

 private:
  Kind m_kind;
};

[[noreturn]] inline void fail_malformed(const std::string& message) {
  throw InputError(InputError::Kind::Malformed, message);
}
[[noreturn]] inline void fail_unsupported(const std::string& message) {
  throw InputError(InputError::Kind::Unsupported, message);
}

}  // namespace blasscope::core
