#pragma once

#include <string>
#include <string_view>

namespace blasscope::core {

// What CUPTI traces, as BLASSCOPE_CUPTI asks: "" (unset) or "kernels" kernels alone; "all"
// copies, memsets, allocations and CUPTI's own overhead records too; "api" all that and every
// runtime/driver call (records correlated to ops by id); "0" nothing; or a comma list of kernel,
// overhead, memcpy, memset, memory, api. Runs of 100 small GEMMs on an H200 took 4-5 % longer
// with kernels traced, 6 % with the overhead records added and 14 % with "all" (each copy and
// allocation costs CUPTI a few microseconds), measured in one process with CUPTI attached.
struct CuptiSetting {
  bool kernels = true, overhead = false, memcpy = false, memset = false, memory = false, api = false;
  std::string text;   // the setting as given, empty for the default
  std::string error;  // why `text` was not understood (the default is used then)

  bool off() const { return !kernels && !overhead && !memcpy && !memset && !memory && !api; }
  // "kernels", "kernels, copies, memsets, allocations, overhead" ...; "nothing" when off.
  std::string describe() const;
};

CuptiSetting parse_cupti_setting(std::string_view text);

}  // namespace blasscope::core
