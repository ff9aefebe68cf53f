#pragma once

// What the inspector does with a tensor file once a reader accepted it: describe it, scan
// every value (reading all of each tensor's bytes through the reader's view of the file),
// diagnose, and write the text and JSON reports. A reader that accepted a file whose offsets
// or sizes lie is caught here by AddressSanitizer.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "analysis/inspect_report.h"
#include "diagnose/run_diagnosis.h"
#include "fuzz_input.h"
#include "io/input_error.h"
#include "io/mapped_file.h"
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

// The body of every single-reader harness: the bytes as a mapped file, `read` on it, then the
// inspector on what it accepted. A refusal (InputError) is what a reader must do with bad input.
template <typename Read>
int read_and_exercise(const std::uint8_t* data, std::size_t size, Read read) {
  const MemoryFile input(data, size);
  try {
    exercise(read(std::make_shared<const core::MappedFile>(input.path())));
  } catch (const core::InputError&) {
  }
  return 0;
}

}  // namespace blasscope::fuzz
