// libFuzzer harness: `blasscope-cli report` on any text taken for a run's session: the reader,
// the diagnosis and every report form.
#include "diagnose/run_diagnosis.h"
#include "fuzz_input.h"
#include "io/input_error.h"
#include "report/run_text.h"
#include "report/session_report.h"
#include "results/session_file.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::SessionFile session = core::parse_session(std::string(fuzz::text_of(data, size)), "/fuzz/s.json");
    const auto diagnoses = core::diagnose_run(session.run);
    (void)core::markdown_report(session.run, diagnoses);
    (void)core::html_report(session.run, diagnoses);
    (void)core::to_text(session.run, diagnoses);
    (void)core::to_json(session.run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const core::InputError&) {
  }
  return 0;
}
