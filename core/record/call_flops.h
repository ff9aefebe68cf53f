#pragma once

#include <algorithm>
#include <cstdint>

#include "record/call_record.h"

namespace blasscope::record {

// FLOPs of a BLAS level 2/3 call by its sizes, in real arithmetic (0 for other routines). The
// preload counts a quiet nested call's by it, without a record to hand to flops_of.
inline double blas_flops(Routine routine, double m, double n, double k, std::uint8_t side) {
  switch (routine) {
    case Routine::Gemm: return 2 * m * n * k;
    case Routine::Gemv: return 2 * m * n;
    case Routine::Syrk: return n * (n + 1) * k;
    case Routine::Trsm: return (side == 'L' || side == 'l') ? m * m * n : m * n * n;
    default: return 0;
  }
}

// A FLOP count as the totals hold it: a complex multiply-add is 4 real ones.
inline std::uint64_t flop_count(double real_flops, Precision precision) {
  const double complex_factor = is_complex(precision) ? 4.0 : 1.0;
  return real_flops > 0 ? static_cast<std::uint64_t>(real_flops * complex_factor) : 0;
}

// FLOPs of a call, as the usual conventions count them (complex multiply-add = 8).
inline std::uint64_t flops_of(const CallRecord& c) {
  const double m = static_cast<double>(c.m), n = static_cast<double>(c.n), k = static_cast<double>(c.k);
  if (c.flags & kWorkspaceQuery) return 0;  // LWORK = -1: sized the workspace, did no work
  double f = 0;
  switch (c.routine) {
    case Routine::Gemm:
    case Routine::Gemv:
    case Routine::Syrk:
    case Routine::Trsm: f = blas_flops(c.routine, m, n, k, c.side_uplo); break;
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
  return flop_count(f, c.precision);
}

// The least work a call of these sizes does, in FLOPs (0 where not known): flops_of where that
// is exact, and for the iterative drivers the reduction they start with (to bidiagonal form for
// the SVDs and GELSD/GELSS, QR for GELSY/GELS, tridiagonal for the symmetric eigensolvers,
// Hessenberg for GEEV, GEES and GGES), which the iterations only add to. A call still running
// far longer than that at the machine's peak may be hung; one that has not is merely big.
inline double least_flops(const CallRecord& c) {
  if (c.flags & kWorkspaceQuery) return 0;
  const double m = c.m, n = c.n, big = std::max(m, n), r = std::min(m, n);
  double f = 0;
  switch (c.routine) {
    case Routine::Gesdd:
    case Routine::Gesvd:
    case Routine::Gelsd:
    case Routine::Gelss: f = 4 * big * r * r - 4 * r * r * r / 3; break;
    case Routine::Gelsy:
    case Routine::Gels: f = 2 * big * r * r - 2 * r * r * r / 3; break;
    case Routine::Syevd:
    case Routine::Syev:
    case Routine::Syevr:
    case Routine::Sygvd:
    case Routine::Sygv: f = 4 * n * n * n / 3; break;
    case Routine::Geev:
    case Routine::Gees:
    case Routine::Gges: f = 10 * n * n * n / 3; break;
    case Routine::Lascl: f = m * n; break;
    default: return static_cast<double>(flops_of(c));
  }
  return static_cast<double>(flop_count(std::max(f, 0.0), c.precision));
}

// What one finished call adds to its routine's totals (RoutineTotals): the preload adds it for
// most calls, the recorder for those it leaves to it (kCountedByRecorder: all but the count of
// calls, which the preload keeps, so that a call lost with its writer is still counted).
// `self_ns`: its time without the recorded calls it made.
struct CallCount {
  std::uint64_t calls = 1;  // 0 where the call is counted already (kCountedByRecorder: by the preload)
  std::uint64_t nanoseconds = 0, self_nanoseconds = 0, failures = 0, flops = 0, queries = 0, query_nanoseconds = 0;
  std::uint64_t longest = 0;  // its time where it did work: a workspace query's is no measure of a hang
};

inline CallCount count_of(const CallRecord& c, std::uint64_t self_ns) {
  CallCount n;
  n.nanoseconds = c.duration_ns;
  n.self_nanoseconds = self_ns;
  n.failures = call_failed(c) ? 1 : 0;
  // A call that failed did not do the work its sizes say (POTRF stops at the first minor that
  // is not positive definite): it adds no FLOPs.
  n.flops = has_xerbla(c) || c.info != 0 ? 0 : flops_of(c);
  const bool query = (c.flags & kWorkspaceQuery) != 0;
  n.queries = query ? 1 : 0;
  n.query_nanoseconds = query ? c.duration_ns : 0;
  n.longest = query ? 0 : c.duration_ns;
  return n;
}

}  // namespace blasscope::record
