#include "analysis/tensor_stats.h"

namespace blasscope::core {

double Scalar::as_double() const {
  switch (kind) {
    case Kind::Float: return f;
    case Kind::Signed: return static_cast<double>(i);
    case Kind::Unsigned: break;
  }
  return static_cast<double>(u);
}

}  // namespace blasscope::core
