#pragma once

// What the LAPACK ops share: checking and copying their inputs, the argument errors and INFO
// they report, and their results' NaN/Inf.
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "exec/op_support.h"

namespace blasscope::core {

// Throws OpRejected unless `t` is a float32/float64 matrix (or, where `complex_too`, a
// complex64/complex128 one).
void require_real_matrix(const HostTensor& t, const char* op, bool complex_too = false);

// A dense column-major working copy (LAPACK overwrites its input), `rows` x `cols`, with
// `slack_columns` more columns after it that LAPACK is not told of (see run_svd_op).
HostTensor& column_major_copy(RunState& state, ScopedTemporaries& temporaries, const HostTensor& src,
                              std::uint64_t rows, const std::string& name, std::uint64_t slack_columns = 0);

// "dgesdd" for a float64 "gesdd", "zgesdd" for a complex128 one.
std::string lapack_name(DType dtype, const char* driver);

// Throws OpRejected unless b can be the right-hand side of A (`op` solve, lstsq): A's dtype, a
// vector or matrix with A's rows.
void require_right_hand_side(const HostTensor& a, const HostTensor& b, const char* op);

// The record's kernel (the driver in A's precision), dtype and sizes (A's).
void describe_lapack_call(KernelRecord& record, const HostTensor& a, const char* driver);

// Publishes each argument error a driver reports as it comes: a driver that then never
// returns (DGELSD spinning after DLASCL refused the NaN norm of an Inf input) has told it.
XerblaCapture streamed_xerbla(RunState& state, std::size_t op);

// Records INFO and the argument errors: an illegal argument (INFO < 0, named from
// `argument_names`) or a failure (INFO > 0, `positive_info` says what it means).
void finish_lapack(RunState& state, KernelRecord& record, const XerblaCapture& capture, int info,
                   const std::vector<const char*>& argument_names, const std::string& positive_info);

// LAPACK workspace charged to the memory budget for as long as the op runs, and reported
// (workspace_allocated / workspace_freed) so the memory view shows it beside the tensors.
class Workspace {
 public:
  Workspace(RunState& state, std::size_t op) : m_state(state), m_op(op) {}
  ~Workspace() {
    for (const auto& [what, bytes] : m_parts) {
      m_state.release(bytes);
      m_state.publish(events::Workspace{false, m_op, what, bytes});
    }
    if (!m_parts.empty()) m_state.publish(events::HostMemory{m_state.budget().used()});
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Nothing is charged or reported for no elements (POTRF has no workspace).
  template <typename T>
  std::vector<T> take(std::int64_t elements, const std::string& what) {
    if (elements <= 0) return {};
    const auto bytes = static_cast<std::uint64_t>(elements) * sizeof(T);
    m_state.reserve(bytes, "op " + std::to_string(m_op) + "'s " + what);
    std::vector<T> storage;
    try {
      storage.resize(static_cast<std::size_t>(elements));
    } catch (const std::bad_alloc&) {
      m_state.release(bytes);
      throw;
    }
    m_parts.emplace_back(what, bytes);
    m_state.publish(events::Workspace{true, m_op, what, bytes});
    m_state.publish(events::HostMemory{m_state.budget().used()});
    return storage;
  }

 private:
  RunState& m_state;
  std::size_t m_op;
  std::vector<std::pair<std::string, std::uint64_t>> m_parts;
};

// The result as an operand of the record (`role`): its NaN/Inf counts and where the first one is.
void record_output(KernelRecord& record, const std::string& role, const HostTensor& out);

}  // namespace blasscope::core
