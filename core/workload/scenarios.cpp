#include "workload/scenarios.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "io/input_error.h"
#include "resources/embedded_resources.h"
#include "workload/workload_parser.h"

namespace blasscope::core {

const std::vector<Workload>& builtin_scenarios() {
  static const std::vector<Workload> kScenarios = [] {
    std::vector<Workload> all;
    for (const auto& r : embedded_resources()) {
      if (r.path.rfind("scenarios/", 0) != 0) continue;
      try {
        Workload w = parse_workload_text(r.text, "");
        if (!w.scenario) throw InputError(InputError::Kind::Malformed, "has no \"scenario\" block");
        w.source_path = "scenario:" + w.scenario->id;
        all.push_back(std::move(w));
      } catch (const InputError& error) {
        throw std::runtime_error("built-in " + std::string(r.path) + ": " + error.what());
      }
    }
    std::sort(all.begin(), all.end(),
              [](const Workload& a, const Workload& b) { return a.scenario->id < b.scenario->id; });
    return all;
  }();
  return kScenarios;
}

const Workload* find_scenario(const std::string& id) {
  for (const auto& w : builtin_scenarios()) {
    if (w.scenario->id == id) return &w;
  }
  return nullptr;
}

Workload load_workload(const std::string& path_or_scenario) {
  std::error_code error;
  if (std::filesystem::exists(path_or_scenario, error)) return parse_workload_file(path_or_scenario);
  const std::string id = path_or_scenario.rfind("scenario:", 0) == 0 ? path_or_scenario.substr(9) : path_or_scenario;
  if (const Workload* w = find_scenario(id)) return *w;
  throw InputError(InputError::Kind::Unreadable,
                   "no such workload file, and no built-in scenario of that name (see blasscope-cli scenarios)");
}

}  // namespace blasscope::core
