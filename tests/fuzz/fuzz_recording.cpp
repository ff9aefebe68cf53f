// libFuzzer harness: a recording session as `blasscope-cli report` and File > Open read it:
// the reader (fast path and careful path), the diagnosis and every report form.
#include "diagnose/recording_diagnosis.h"
#include "document/document.h"
#include "fuzz_input.h"
#include "io/input_error.h"
#include "report/recording_report.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::MemoryFile input(data, size);
  try {
    const core::Document document = core::open_document(input.path());
    if (!document.recording) return 0;
    const auto diagnoses = core::diagnose_recording(*document.recording);
    (void)core::recording_summary(*document.recording, diagnoses);
    (void)core::recording_markdown(*document.recording, diagnoses);
    (void)core::recording_html(*document.recording, diagnoses);
    (void)core::recording_report_json(*document.recording, diagnoses)
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const core::InputError&) {
  }
  return 0;
}
