#pragma once

#include <algorithm>
#include <cstdint>

#include "record/call_record.h"

namespace blasscope::record {

// FLOPs of a call, as the usual conventions count them (complex multiply-add = 8).
inline std::uint64_t flops_of(const CallRecord& c) {
  const double m = static_cast<double>(c.m), n = static_cast<double>(c.n), k = static_cast<double>(c.k);
  const double complex_factor = c.precision == Precision::C || c.precision == Precision::Z ? 4.0 : 1.0;
  if (c.flags & kWorkspaceQuery) return 0;  // LWORK = -1: sized the workspace, did no work
  double f = 0;
  switch (c.routine) {
    case Routine::Gemm: f = 2 * m * n * k; break;
    case Routine::Gemv: f = 2 * m * n; break;
    case Routine::Syrk: f = n * (n + 1) * k; break;
    case Routine::Trsm: f = (c.side_uplo == 'L' || c.side_uplo == 'l') ? m * m * n : m * n * n; break;
    case Routine::Getrf: {
      const double r = std::min(m, n);
      f = 2 * (m * n * r - (m + n) * r * r / 2 + r * r * r / 3);
      break;
    }
    case Routine::Potrf: f = n * n * n / 3; break;
    case Routine::Gesv: f = 2 * n * n * n / 3 + 2 * n * n * k; break;
    case Routine::Getrs:
    case Routine::Potrs: f = 2 * n * n * k; break;
    case Routine::Trtrs: f = n * n * k; break;
    case Routine::Getri: f = 4 * n * n * n / 3; break;
    case Routine::Sytrf:
    case Routine::Hetrf: f = n * n * n / 3; break;
    case Routine::Sysv:
    case Routine::Hesv:
    case Routine::Posv: f = n * n * n / 3 + 2 * n * n * k; break;
    case Routine::Geqrf:
    case Routine::Geqp3: f = m >= n ? 2 * n * n * (m - n / 3) : 2 * m * m * (n - m / 3); break;
    case Routine::Gehrd: f = 10 * n * n * n / 3; break;
    case Routine::Orgqr: f = 4 * m * n * k - 2 * (m + n) * k * k + 4 * k * k * k / 3; break;
    default: break;  // iterative or data-dependent: left out of GFLOP/s
  }
  return f > 0 ? static_cast<std::uint64_t>(f * complex_factor) : 0;
}

}  // namespace blasscope::record
