// libFuzzer harness: `blasscope-cli inspect` on any bytes (format sniffing, every reader,
// the scan, the findings and both report forms).
#include "analysis/inspect_report.h"
#include "diagnose/run_diagnosis.h"
#include "fuzz_input.h"
#include "io/input_error.h"
#include "report/inspect_json.h"
#include "report/inspect_text.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::MemoryFile input(data, size);
  try {
    const core::InspectReport report = core::inspect_file(input.path());
    (void)core::diagnose_inspect(report);
    (void)core::to_text(report);
    (void)core::to_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const core::InputError& error) {
    (void)core::error_json(error);
  }
  return 0;
}
