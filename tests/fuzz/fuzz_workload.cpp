// libFuzzer harness: the workload parser and the planner on any text (nothing is run).
#include <filesystem>

#include "fuzz_input.h"
#include "io/input_error.h"
#include "plan/workload_plan.h"
#include "workload/workload_parser.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Tensor files a workload names are looked up in an empty folder: they are refused as missing.
  static const std::string empty_dir = [] {
    const auto dir = std::filesystem::temp_directory_path() / "blasscope-fuzz-workload";
    std::filesystem::create_directories(dir);
    return dir.string();
  }();
  try {
    const core::Workload workload = core::parse_workload_text(fuzz::text_of(data, size), empty_dir);
    (void)core::plan_workload(workload);
  } catch (const core::InputError&) {
  }
  return 0;
}
