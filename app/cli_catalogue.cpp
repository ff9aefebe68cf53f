#include "cli_catalogue.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli_usage.h"
#include "diagnose/explanation_catalogue.h"
#include "diagnose/recording_diagnosis.h"
#include "diagnose/run_diagnosis.h"
#include "document/document.h"
#include "io/input_error.h"
#include "io/tensor_file_reader.h"
#include "io/text_file.h"
#include "report/inspect_text.h"
#include "report/recording_report.h"
#include "report/session_report.h"
#include "report/text_table.h"
#include "results/session_file.h"
#include "text/format.h"
#include "workload/scenarios.h"

namespace blasscope::app {
namespace {

// What a file `report` was given is, when it is no session: one the tensor readers open (a
// folder of checkpoint shards too) is sent to `inspect`; anything else is named for what it is.
std::string not_a_session(const core::Document& document, const std::string& path) {
  if (document.kind == core::DocumentKind::Workload) {
    return "a workload, not a saved session: `blasscope-cli run " + core::shell_quoted(path) +
           " --session FILE` makes one";
  }
  const std::string makes =
      " (`blasscope-cli record -- COMMAND` or `blasscope-cli run WORKLOAD --session FILE` makes one)";
  std::error_code error;
  const bool folder = std::filesystem::is_directory(path, error);
  try {
    core::open_tensor_file(path);
    return std::string(folder ? "a checkpoint's folder" : "a tensor file") +
           ", not a saved session: `blasscope-cli inspect " + core::shell_quoted(path) + "` reads it";
  } catch (const core::InputError& reason) {
    if (folder) return "a folder, not a saved session" + makes;
    return "not a saved session" + makes + ", nor a tensor file BLAScope reads: " + reason.what();
  }
}

}  // namespace

int run_scenarios(const std::vector<std::string>& args) {
  bool json = false;
  for (const auto& arg : args) {
    if (arg != "--json") {
      std::cerr << "error: scenarios: unknown argument '" << arg << "'\nusage: blasscope-cli scenarios [--json]\n";
      return kExitUsage;
    }
    json = true;
  }
  const auto& scenarios = core::builtin_scenarios();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& w : scenarios) {
      const auto& s = *w.scenario;
      out.push_back({{"id", s.id},
                     {"title", s.title},
                     {"story", s.story},
                     {"seed", s.seed.empty() ? nlohmann::json() : nlohmann::json(s.seed)},
                     {"expected", s.expected}});
    }
    std::cout << out.dump(2) << '\n';
    return kExitOk;
  }
  std::ostringstream text;
  std::vector<std::vector<std::string>> rows{{"ID", "TITLE", "EXPECTED DIAGNOSES"}};
  for (const auto& w : scenarios) {
    std::string expected;
    for (const auto& id : w.scenario->expected) expected += (expected.empty() ? "" : ", ") + id;
    rows.push_back({w.scenario->id, w.scenario->title, expected.empty() ? "(none)" : expected});
  }
  core::append_table(text, rows);
  std::cout << text.str() << "Run one with: blasscope-cli run ID\n";
  return kExitOk;
}

int run_explain(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].starts_with("-")) {
    std::cerr << "usage: blasscope-cli explain ID\nids:";
    for (const auto& id : core::diagnosis_ids()) std::cerr << ' ' << id;
    std::cerr << '\n';
    return kExitUsage;
  }
  const core::Explanation* e = core::find_explanation(args[0]);
  if (!e) {
    std::cerr << "error: explain: no diagnosis '" << args[0] << "'; known ids:";
    for (const auto& id : core::diagnosis_ids()) std::cerr << ' ' << id;
    std::cerr << '\n';
    return kExitUsage;
  }
  std::cout << "# " << e->title << " (" << e->id << ", " << core::name(e->severity) << ")\n\n## Cause\n"
            << e->cause << "\n\n## Fix\n"
            << e->fix << "\n\n## Seen as\n";
  for (const auto& s : e->seen_as) std::cout << "- " << s << '\n';
  return kExitOk;
}

namespace {

void write_report(const std::string& text, const std::string& output) {
  if (output.empty()) {
    core::write_printable_utf8(std::cout, text);
  } else {
    // A folder named in --output is made, as `record --output` makes one.
    std::error_code ignored;
    const std::filesystem::path folder = std::filesystem::path(output).parent_path();
    if (!folder.empty()) std::filesystem::create_directories(folder, ignored);
    core::write_text_file(output, text);
  }
}

}  // namespace

int run_report(const std::vector<std::string>& args) {
  std::string session, format = "md", output;
  constexpr const char* kUsage = "usage: blasscope-cli report SESSION [--format md|html|json] [--output FILE]\n";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string refused;  // what is wrong with this argument, said as the other commands say it
    if (arg == "--format" || arg == "--output") {
      if (i + 1 < args.size()) {
        (arg == "--format" ? format : output) = args[++i];
      } else {
        refused = arg + " needs a value";
      }
    } else if (arg.starts_with("-") && arg != "-") {
      refused = "unknown option '" + arg + "'";
    } else if (!session.empty()) {
      refused = "one session at a time ('" + session + "', then '" + arg + "')";
    } else {
      session = arg;
    }
    if (!refused.empty()) {
      std::cerr << "error: report: " << refused << "\n" << kUsage;
      return kExitUsage;
    }
  }
  if (format != "md" && format != "html" && format != "json") {
    std::cerr << "error: report: --format is md, html or json, not '" << format << "'\n" << kUsage;
    return kExitUsage;
  }
  if (session.empty()) {
    std::cerr << "error: report: which session? (a file saved by `record` or `run --session`)\n" << kUsage;
    return kExitUsage;
  }
  std::error_code missing;
  if (!std::filesystem::exists(session, missing)) {
    // open_document would take the name for a built-in scenario: a report needs a saved session.
    std::cerr << "error: " << session << ": no such session file\n";
    return kExitRejected;
  }
  try {
    const core::Document document = core::open_document(session);
    std::string text;
    if (document.kind == core::DocumentKind::Recording) {
      const auto diagnoses = core::diagnose_recording(*document.recording);
      text = format == "json"   ? core::recording_report_json_text(*document.recording, diagnoses)
             : format == "html" ? core::recording_html(*document.recording, diagnoses)
                                : core::recording_markdown(*document.recording, diagnoses);
      write_report(text, output);
      return kExitOk;
    }
    if (document.kind != core::DocumentKind::Session) {
      throw core::InputError(core::InputError::Kind::Malformed, not_a_session(document, session));
    }
    const core::RunResult& result = *document.run;
    const auto diagnoses = core::diagnose_run(result);
    if (format == "json") {
      nlohmann::json report = core::to_json(result);
      report["kind"] = "run";
      report["diagnoses"] = nlohmann::json::array();
      for (const auto& d : diagnoses) report["diagnoses"].push_back(core::to_json(d));
      text = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } else {
      text = format == "html" ? core::html_report(result, diagnoses) : core::markdown_report(result, diagnoses);
    }
    write_report(text, output);
  } catch (const core::InputError& error) {
    // A JSON file that is no session is read as a workload: its error says so.
    const std::string what = error.what();
    std::cerr << "error: " << session << ": "
              << (what.starts_with("workload: ")
                      ? "not a BLAScope session (read as a workload: " + what.substr(10) + ")"
                      : what)
              << '\n';
    return kExitRejected;
  }
  return kExitOk;
}

}  // namespace blasscope::app
