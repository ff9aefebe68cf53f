#include "cli_inspect.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli_usage.h"
#include "diagnose/run_diagnosis.h"
#include "io/input_error.h"
#include "report/inspect_json.h"
#include "report/inspect_text.h"

namespace blasscope::app {
namespace {

using Clock = std::chrono::steady_clock;

// A one-line progress meter on stderr for scans that take a while, only on a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : m_enabled(enabled && ::isatty(STDERR_FILENO)) {}
  ~ProgressLine() {
    if (m_shown) std::fprintf(stderr, "\r%60s\r", "");
  }
  void update(std::uint64_t done, std::uint64_t total) {
    if (!m_enabled || total == 0) return;
    const auto now = Clock::now();
    if (now - m_start < std::chrono::milliseconds(500) || now - m_last < std::chrono::milliseconds(100)) return;
    m_last = now;
    m_shown = true;
    std::fprintf(stderr, "\rscanning: %5.1f%% of %s", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                 core::format_bytes(total).c_str());
  }

 private:
  bool m_enabled;
  bool m_shown = false;
  Clock::time_point m_start = Clock::now();
  Clock::time_point m_last{};
};

}  // namespace

int run_inspect(const std::vector<std::string>& args) {
  bool json = false;
  bool quiet = false;
  std::string path;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (arg == "--quiet" || arg == "-q") {
      quiet = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kCliUsage;
      return kExitOk;
    } else if (arg.starts_with("-") && arg != "-") {
      std::cerr << "error: inspect: unknown option '" << arg << "'\n";
      return kExitUsage;
    } else if (!path.empty()) {
      std::cerr << "error: inspect: takes one FILE, got '" << path << "' and '" << arg << "'\n";
      return kExitUsage;
    } else {
      path = arg;
    }
  }
  if (path.empty()) {
    std::cerr << "error: inspect: missing FILE\nusage: blasscope-cli inspect FILE [--json]\n";
    return kExitUsage;
  }
  constexpr auto kJsonErrors = nlohmann::json::error_handler_t::replace;
  try {
    ProgressLine progress(!quiet);
    core::ScanOptions options;
    options.progress = [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
    const core::InspectReport report = core::inspect_file(path, options);
    const auto diagnoses = core::diagnose_inspect(report);
    if (json) {
      nlohmann::json out = core::to_json(report);
      out["diagnoses"] = nlohmann::json::array();
      for (const auto& d : diagnoses) out["diagnoses"].push_back(core::to_json(d));
      std::cout << out.dump(2, ' ', false, kJsonErrors) << '\n';
    } else {
      std::cout << core::printable_utf8(core::to_text(report));
    }
    return kExitOk;
  } catch (const core::InputError& error) {
    std::cerr << "error: " << path << ": " << core::printable_utf8(error.what()) << '\n';
    if (json) std::cout << core::error_json(error).dump(2, ' ', false, kJsonErrors) << '\n';
    return kExitRejected;
  } catch (const std::bad_alloc&) {
    const core::InputError error(core::InputError::Kind::Unsupported, "out of memory while reading");
    std::cerr << "error: " << path << ": " << core::printable_utf8(error.what()) << '\n';
    if (json) std::cout << core::error_json(error).dump(2, ' ', false, kJsonErrors) << '\n';
    return kExitRejected;
  }
}

}  // namespace blasscope::app
