#include "workload/workload.h"

namespace blasscope::core {

std::string_view name(OpKind kind) {
  switch (kind) {
    case OpKind::Gemm: return "gemm";
    case OpKind::Dlascl: return "dlascl";
    case OpKind::Svd: return "svd";
    case OpKind::Lstsq: return "lstsq";
    case OpKind::Cast: break;
  }
  return "cast";
}

std::string_view name(Device device) {
  return device == Device::Cpu ? "cpu" : "gpu";
}

}  // namespace blasscope::core
