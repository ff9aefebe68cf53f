#pragma once

// How diagnoses of a recording name a recorded call and what was seen of it.
#include <string>
#include <vector>

#include "record/call_record.h"

namespace blasscope::core::recorded {

std::string upper(std::string s);
// The routine xerbla named, as the record holds it ("DLASCL").
std::string xerbla_routine(const record::CallRecord& c);
// A ?LASCL scale as LAPACK users write it: Inf and NaN, not inf and nan.
std::string scale_text(double v);
// The routine's name in capitals ("DGESDD"); a report recorded alone is named after the
// routine xerbla named.
std::string call_name(const record::CallRecord& c);
// Routines of one square matrix (POTRF, GESV, SYEV) take N alone: their M is recorded as N.
bool square_only(record::Routine r);
// "M=3, N=4, K=5, LDA=3": the sizes the routine takes.
std::string sizes(const record::CallRecord& c);
// "call 7 DGEMM (M=3, N=4, K=5, LDA=3)".
std::string label(const record::CallRecord& c);
// "2 NaN and 0 Inf in its inputs".
std::string values(const record::CallRecord& c);
// What was seen of a call that read NaN/Inf, beyond the counts its title gives: what was
// scanned, what its output held (`returned`: it did return) and what it said.
std::vector<std::string> input_evidence(const record::CallRecord& c, bool returned);

}  // namespace blasscope::core::recorded
