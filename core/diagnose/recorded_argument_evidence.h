#pragma once

// What a refused argument of a recorded call was, in the caller's own terms: the evidence,
// cause and fix of an illegal-argument diagnosis of a recording.
#include <string>
#include <vector>

#include "record/call_record.h"

namespace blasscope::core::recorded {

// The bound a LAPACK driver's leading dimension `name` broke, from the call's own sizes:
// " = 2, which must be at least 3 (N: A is N x N)"; "" where it is not known.
std::string leading_dimension_bound(const record::CallRecord& c, const std::string& name);
// The evidence of an XERBLA report made in call `c`, which `top` (the program's own call, `c`
// itself unless LAPACK made `c` internally) led to.
std::vector<std::string> argument_evidence(const record::CallRecord& c, const record::CallRecord& top);
// Whether xerbla named a routine LAPACK called inside the program's call (DHSEQR inside DGEEV,
// DLASCL inside DGELSD) rather than the routine the program called.
bool refused_inside(const record::CallRecord& c, const record::CallRecord& top);
// The Cause of an argument error outside GEMM: the routine's own list, and who passed the value.
std::string argument_cause(const record::CallRecord& c, const record::CallRecord& top);
// The Fix of a refused option letter (TRANS, UPLO, ...); "" for any other parameter.
std::string option_fix(const record::CallRecord& c);
// Whether xerbla named a ?GEMM.
bool is_gemm_xerbla(const record::CallRecord& c);
// A ?LASCL refusing its CFROM, whose value the record holds (not a report recorded alone).
bool is_lascl_cfrom(const record::CallRecord& c);
// "ZLASCL parameter 4 (4 times in this call), and DLASCL parameter 4 (2 times)": the refusals
// of one driver's ?LASCLs by routine, `first` first.
std::string refusal_counts(const std::vector<const record::CallRecord*>& refused, const std::string& first);

}  // namespace blasscope::core::recorded
