#pragma once

// What the inspector does with a tensor file once a reader accepted it: describe it, scan
// every value (reading all of each tensor's bytes through the reader's view of the file),
// diagnose, and write the text and JSON reports. A reader that accepted a file whose offsets
// or sizes lie is caught here by AddressSanitizer.

#include "analysis/inspect_report.h"
#include "diagnose/run_diagnosis.h"
#include "io/tensor_file.h"
#include "report/inspect_json.h"
#include "report/inspect_text.h"

namespace blasscope::fuzz {

inline void exercise(const core::TensorFile& file) {
  core::InspectReport report = core::describe_file(file);
  core::scan_report(file, report);
  const auto diagnoses = core::diagnose_inspect(report);
  (void)core::to_text(report);
  (void)core::to_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)diagnoses;
}

}  // namespace blasscope::fuzz
