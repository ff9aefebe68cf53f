#include "analysis/tensor_stats.h"

#include <cstdio>

namespace blasscope::core {

double Scalar::as_double() const {
  switch (kind) {
    case Kind::Float: return f;
    case Kind::Signed: return static_cast<double>(i);
    case Kind::Unsigned: break;
  }
  return static_cast<double>(u);
}

std::string format_scalar(const Scalar& value) {
  switch (value.kind) {
    case Scalar::Kind::Signed: return std::to_string(value.i);
    case Scalar::Kind::Unsigned: return std::to_string(value.u);
    case Scalar::Kind::Float: break;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value.f);
  return text;
}

}  // namespace blasscope::core
