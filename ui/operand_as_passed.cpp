#include "operand_as_passed.h"

#include <algorithm>

#include "text/format.h"

namespace blasscope::ui {
namespace {

std::string ld_name(const std::string& role) {
  return "ld" + (role == "out" ? std::string("c") : role);
}

std::string padding_text(std::int64_t padding, core::MemoryOrder order) {
  if (padding <= 0) return "no padding";
  return std::to_string(padding) + " padding element" + (padding == 1 ? "" : "s") + " after each " +
         (order == core::MemoryOrder::C ? "row" : "column");
}

// The promotion that made this operand's copy, as prepare_gemm lists it ("a: float16 -> float32").
std::string cast_of(const core::KernelRecord& record, const std::string& role) {
  for (const auto& cast : record.casts) {
    if (cast.starts_with(role + ": ")) return cast.substr(role.size() + 2);
  }
  return {};
}

void set_padding(OperandAsPassed& out) {
  const auto inner = static_cast<std::int64_t>(out.order == core::MemoryOrder::C ? out.cols : out.rows);
  out.padding = out.ld > inner ? out.ld - inner : 0;
}

void lapack_copy(OperandAsPassed& out, const core::OperandRecord& operand) {
  // The working copy is dense, column-major and ld rows tall: lstsq's B copy has max(m, n)
  // rows, room for the solution, so its extra rows are part of the copy, not padding.
  out.copied = true;
  out.order = core::MemoryOrder::Fortran;
  out.rows = static_cast<std::uint64_t>(out.ld);
  const std::string from = core::text(operand.order) + std::string("-order ") + core::format_shape(operand.shape);
  out.how = "copied from " + from + " to column-major (LAPACK overwrites its input), " + ld_name(operand.role) + " = " +
            std::to_string(out.ld) + ", no padding";
  if (operand.shape.size() >= 1 && out.rows > operand.shape[0]) {
    out.how += "; " + std::to_string(out.rows - operand.shape[0]) + " more rows hold the solution";
  }
  out.alignment = "source address " + std::to_string(operand.alignment) + "-byte aligned (the copy's is not recorded)";
}

void gemm_in_place(OperandAsPassed& out, const core::KernelRecord& record, const core::OperandRecord& operand) {
  const core::BlasCallRecord& call = *record.call;
  const auto call_order = call.row_major ? core::MemoryOrder::C : core::MemoryOrder::Fortran;
  std::string how = "passed in place (no copy)";
  if (const std::string cast = cast_of(record, operand.role); !cast.empty()) {
    out.copied = true;
    how = "promoted copy (" + cast + "), passed as is";
  }
  if (operand.order != call_order && operand.shape.size() == 2) {
    how += std::string(" as the transpose of a ") + (call.row_major ? "row" : "column") + "-major matrix (" +
           (operand.role == "a"   ? "TransA"
            : operand.role == "b" ? "TransB"
                                  : "Trans") +
           " flipped)";
  }
  out.how =
      how + ", " + ld_name(operand.role) + " = " + std::to_string(out.ld) + ", " + padding_text(out.padding, out.order);
}

void lascl_in_place(OperandAsPassed& out, const core::OperandRecord& operand) {
  std::string how = "passed in place (no copy)";
  if (operand.order == core::MemoryOrder::C && operand.shape.size() == 2) {
    how += " as its column-major transpose (M = " + std::to_string(operand.shape[1]) +
           ", N = " + std::to_string(operand.shape[0]) + ")";
  }
  out.how = how + ", lda = " + std::to_string(out.ld) + ", " + padding_text(out.padding, out.order);
}

}  // namespace

OperandAsPassed operand_as_passed(const core::KernelRecord& record, const core::OperandRecord& operand) {
  OperandAsPassed out;
  out.order = operand.order;
  out.ld = operand.ld;
  const bool matrix = operand.shape.size() == 2;
  out.rows = matrix ? operand.shape[0] : operand.shape.empty() ? 1 : operand.shape[0];
  out.cols = matrix ? operand.shape[1] : 1;
  if (!matrix && operand.order == core::MemoryOrder::C) std::swap(out.rows, out.cols);  // a vector drawn as a row
  out.alignment =
      "address " + std::to_string(operand.alignment) + "-byte aligned" + (operand.alignment < 64 ? " (below 64)" : "");
  if (operand.ld <= 0) {
    out.how = operand.role == "out" || operand.role == "u" || operand.role == "vt" ? "result, not a matrix argument"
                                                                                   : "read element by element";
    return out;
  }
  if (core::is_lapack_op(record.op_kind)) {
    out.rows = matrix ? operand.shape[0] : out.rows * out.cols;
    out.cols = matrix ? operand.shape[1] : 1;
    lapack_copy(out, operand);
    return out;
  }
  set_padding(out);
  if (record.op_kind == core::OpKind::Gemm && record.call) {
    gemm_in_place(out, record, operand);
  } else if (record.op_kind == core::OpKind::Dlascl) {
    lascl_in_place(out, operand);
  } else {
    out.how = "ld = " + std::to_string(out.ld) + ", " + padding_text(out.padding, out.order);
  }
  if (record.device == core::Device::Gpu) out.how += "; copied to GPU memory for the kernel";
  return out;
}

}  // namespace blasscope::ui
