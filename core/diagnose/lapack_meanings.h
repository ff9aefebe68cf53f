#pragma once

// What BLAS and LAPACK's own numbers mean, routine by routine, as their reference documentation
// defines them: the argument XERBLA's parameter number points at, and what a positive INFO says.
#include <optional>
#include <string>
#include <string_view>

#include "kernels/argument_lists.h"  // xerbla_parameter_name, xerbla_parameter_list
#include "record/call_record.h"

namespace blasscope::core {

// The Cause of an argument error where GEMM's page does not apply: how XERBLA numbers the
// arguments, with the list of `routine` ("DGEMV") where it is known.
std::string xerbla_list_cause(const std::string& routine);

// What INFO > 0 from `routine` means: one line for the title, then the cause and the fix.
struct PositiveInfo {
  std::string summary, cause, fix;
  // What the error messages of this failure contain ("singular matrix|matrix is singular",
  // alternatives split by '|'): the page's "seen as" lines that do come first.
  std::string seen_as_key = {};
};
// What else the INFO is read with: the call's N, and whether a POTRF made inside it failed
// (SYGVD's INFO = N + i is B's leading minor i only then: its eigensolver's failures, with
// eigenvectors, are numbers above N too).
struct InfoContext {
  std::int64_t n = 0;
  bool factor_of_b_failed = false;
};
std::optional<PositiveInfo> positive_info_meaning(record::Routine routine, int info, const InfoContext& context);

}  // namespace blasscope::core
