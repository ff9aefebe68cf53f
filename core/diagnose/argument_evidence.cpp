#include "diagnose/argument_evidence.h"

#include <algorithm>

namespace blasscope::core {
namespace {

struct LdCheck {
  const char* name;         // the user's argument
  char matrix;              // A, B or C
  std::int64_t value;       // what was passed
  std::int64_t rows, cols;  // the matrix as the call stores it (before its transpose flag)
  std::int64_t bound;
};

// The leading-dimension rule of the CBLAS call: a row-major matrix needs ld >= its columns,
// a column-major one ld >= its rows.
LdCheck check_for(const BlasCallRecord& c, char matrix) {
  const bool ta = c.trans_a, tb = c.trans_b;
  switch (matrix) {
    case 'A': {
      const std::int64_t rows = ta ? c.k : c.m, cols = ta ? c.m : c.k;
      return {"lda", 'A', c.lda, rows, cols, std::max<std::int64_t>(1, c.row_major ? cols : rows)};
    }
    case 'B': {
      const std::int64_t rows = tb ? c.n : c.k, cols = tb ? c.k : c.n;
      return {"ldb", 'B', c.ldb, rows, cols, std::max<std::int64_t>(1, c.row_major ? cols : rows)};
    }
    default: return {"ldc", 'C', c.ldc, c.m, c.n, std::max<std::int64_t>(1, c.row_major ? c.n : c.m)};
  }
}

// Which user matrix a reported ?GEMM parameter number refers to (0: not a leading dimension).
char matrix_of(bool row_major, int parameter) {
  if (parameter == 13) return 'C';
  if (parameter == 8) return row_major ? 'B' : 'A';
  if (parameter == 10) return row_major ? 'A' : 'B';
  return 0;
}

}  // namespace

std::vector<std::string> gemm_argument_evidence(const KernelRecord& record, const XerblaRecord& error) {
  std::vector<std::string> evidence;
  if (!record.call) return evidence;
  const BlasCallRecord& c = *record.call;
  const std::string order = c.row_major ? "CblasRowMajor" : "CblasColMajor";
  evidence.push_back("call: " + record.kernel + "(" + order + ", " + (c.trans_a ? "Trans" : "NoTrans") + ", " +
                     (c.trans_b ? "Trans" : "NoTrans") + ", m=" + std::to_string(c.m) + ", n=" + std::to_string(c.n) +
                     ", k=" + std::to_string(c.k) + ", lda=" + std::to_string(c.lda) +
                     ", ldb=" + std::to_string(c.ldb) + ", ldc=" + std::to_string(c.ldc) + ")");
  const char matrix = matrix_of(c.row_major, error.parameter);
  if (matrix == 0) {
    evidence.push_back("reported: " + error.routine + " parameter " + std::to_string(error.parameter) + " (" +
                       error.meaning + ")");
    return evidence;
  }
  const LdCheck ld = check_for(c, matrix);
  evidence.push_back("reported: " + error.routine + " parameter " + std::to_string(error.parameter) + ", which is " +
                     (c.row_major && matrix != 'C' ? "after the row-major swap of A and B " : "") + "your " + ld.name);
  evidence.push_back(std::string(ld.name) + " = " + std::to_string(ld.value) + ", but " + ld.matrix + " is stored " +
                     (c.row_major ? "row-major" : "column-major") + " as " + std::to_string(ld.rows) + " x " +
                     std::to_string(ld.cols) + ", so " + ld.name + " must be at least " + std::to_string(ld.bound) +
                     " (its " + (c.row_major ? "row length" : "column length") + ")");
  const std::int64_t other_order_bound = c.row_major ? ld.rows : ld.cols;
  if (ld.value == other_order_bound && ld.value < ld.bound) {
    evidence.push_back(std::to_string(ld.value) + " is the number of " + (c.row_major ? "rows" : "columns") + " of " +
                       ld.matrix + ": right for " + (c.row_major ? "column-major" : "row-major") +
                       " storage, wrong for " + (c.row_major ? "row-major" : "column-major") +
                       " (the row-major/column-major leading-dimension mix-up)");
  }
  return evidence;
}

}  // namespace blasscope::core
