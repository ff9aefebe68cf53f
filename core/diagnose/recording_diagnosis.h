#pragma once

#include <vector>

#include "diagnose/diagnosis.h"
#include "record/recording.h"

namespace blasscope::core {

// Diagnoses of a recorded program, with the same ids and explanations as runs: each names the
// call it is about (facts "call": its id) and groups repeats ("and 41 more calls like it").
// dlascl-invalid-cfrom, illegal-argument, lapack-failed, non-finite-input, non-finite-output,
// kernel-hang (stopped while a call ran), program-crashed (died by a signal).
std::vector<Diagnosis> diagnose_recording(const record::Recording& recording);

}  // namespace blasscope::core
