#include "results/session_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/input_error.h"
#include "io/text_file.h"
#include "results/event_codec.h"

namespace blasscope::core {

using nlohmann::json;

namespace {

std::string absolute_workload_file(const std::string& workload_file) {
  if (workload_file.empty() || workload_file.starts_with("scenario:")) return workload_file;
  std::error_code error;
  const auto absolute = std::filesystem::absolute(workload_file, error);
  return error ? workload_file : absolute.lexically_normal().string();
}

}  // namespace

void write_session(const std::string& path, const std::string& workload_file, const RunResult& result) {
  json events = json::array();
  for (const RunEvent& event : result.events) events.push_back(encode_event(event));
  const json session = {{"format", "blasscope-session"},
                        {"version", kSessionFormatVersion},
                        {"workload", result.workload},
                        {"workload_file", absolute_workload_file(workload_file)},
                        {"events", std::move(events)}};
  write_text_file(path, session.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}

SessionFile read_session_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(InputError::Kind::Unreadable, "cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_session(text.str(), path);
}

SessionFile parse_session(const std::string& text, const std::string& path) {
  json session;
  try {
    session = json::parse(text);
  } catch (const json::exception& error) {
    fail_malformed(std::string("not a session file: ") + error.what());
  }
  const auto field = [&session](const char* key) { return session.contains(key) ? session[key] : json(); };
  if (!session.is_object() || field("format") != json("blasscope-session")) {
    fail_malformed("not a BLAScope session file (no \"format\": \"blasscope-session\")");
  }
  if (!field("version").is_number_integer()) fail_malformed("a session's \"version\" must be an integer");
  const int version = field("version").get<int>();
  if (version < 1 || version > kSessionFormatVersion) {
    fail_unsupported("session format version " + std::to_string(version) + " is newer than this BLAScope reads (" +
                     std::to_string(kSessionFormatVersion) + ")");
  }
  SessionFile file;
  RunCollector collector;
  try {
    if (!session.contains("events") || !session["events"].is_array())
      fail_malformed("a session needs an \"events\" array");
    for (const json& event : session["events"]) {
      // An unreadable event is left out (and counted) so the rest of the session still opens.
      try {
        collector.publish(decode_event(event));
      } catch (const json::exception&) {
        collector.skipped_event();
      }
    }
    const json& workload_file = session.contains("workload_file") ? session["workload_file"] : json();
    if (workload_file.is_string()) file.workload_file = workload_file.get<std::string>();
  } catch (const json::exception& error) {
    fail_malformed(std::string("damaged session events: ") + error.what());
  }
  file.run = collector.finish();
  // Sessions written before paths were stored absolute: relative to the session's folder.
  if (!file.workload_file.empty() && !file.workload_file.starts_with("scenario:") &&
      std::filesystem::path(file.workload_file).is_relative()) {
    file.workload_file = (std::filesystem::path(path).parent_path() / file.workload_file).lexically_normal().string();
  }
  return file;
}

RunResult read_session(const std::string& path) {
  return read_session_file(path).run;
}

}  // namespace blasscope::core
