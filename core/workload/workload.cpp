#include "workload/workload.h"

namespace blasscope::core {

std::string_view name(OpKind kind) {
  switch (kind) {
    case OpKind::Gemm: return "gemm";
    case OpKind::Dlascl: return "dlascl";
    case OpKind::Svd: return "svd";
    case OpKind::Lstsq: return "lstsq";
    case OpKind::Cholesky: return "cholesky";
    case OpKind::Lu: return "lu";
    case OpKind::Solve: return "solve";
    case OpKind::LuSolve: return "lu_solve";
    case OpKind::Eigh: return "eigh";
    case OpKind::Gemv: return "gemv";
    case OpKind::Syrk: return "syrk";
    case OpKind::Trsm: return "trsm";
    case OpKind::Cast: break;
  }
  return "cast";
}

bool is_lapack_op(OpKind kind) {
  return kind == OpKind::Svd || kind == OpKind::Lstsq || kind == OpKind::Cholesky || kind == OpKind::Lu ||
         kind == OpKind::Solve || kind == OpKind::LuSolve || kind == OpKind::Eigh;
}

bool is_blas_call_op(OpKind kind) {
  return kind == OpKind::Gemv || kind == OpKind::Syrk || kind == OpKind::Trsm;
}

std::string_view name(Device device) {
  return device == Device::Cpu ? "cpu" : "gpu";
}

}  // namespace blasscope::core
