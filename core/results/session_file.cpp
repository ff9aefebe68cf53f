#include "results/session_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/input_error.h"
#include "io/strict_json.h"
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
  return parse_session(read_text_file(path), path);
}

namespace {

// A session nests five levels deep (events, a record, its operands, an index list); anything
// far deeper is not one, and refusing it while parsing keeps a hostile file from building a
// deep tree.
constexpr int kMaxSessionDepth = 32;
// Far above any run's session (one op writes a few KiB, a GPU op's CUPTI records some MiB):
// a bigger file is refused before its JSON tree (about ten times its size) is built.
constexpr std::size_t kMaxSessionBytes = std::size_t{1} << 30;

// nlohmann's "[json.exception.type_error.302] " prefix tells a user nothing.
std::string json_reason(const json::exception& error) {
  const std::string what = error.what();
  const auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

std::string event_label(const json& event, std::size_t index) {
  std::string label = "event " + std::to_string(index + 1);
  if (event.is_object() && event.contains("event") && event["event"].is_string()) {
    label += " (\"" + event["event"].get<std::string>() + "\")";
  }
  return label;
}

}  // namespace

SessionFile parse_session(const std::string& text, const std::string& path) {
  if (text.size() > kMaxSessionBytes) {
    fail_malformed("a session of " + std::to_string(text.size() >> 20) + " MiB is larger than any run writes (" +
                   std::to_string(kMaxSessionBytes >> 20) + " MiB limit)");
  }
  const json session = parse_strict_json(text, "not a session file", kMaxSessionDepth);
  const auto field = [&session](const char* key) { return session.contains(key) ? session[key] : json(); };
  if (!session.is_object() || field("format") != json("blasscope-session")) {
    fail_malformed("not a BLAScope session file (no \"format\": \"blasscope-session\")");
  }
  const json version = field("version");
  if (!version.is_number_integer()) fail_malformed("a session's \"version\" must be an integer, not " + version.dump());
  if (version < json(1) || version > json(kSessionFormatVersion)) {  // 2^64 - 1 compares too
    fail_unsupported("session format version " + version.dump() + " is not one this BLAScope reads (1 to " +
                     std::to_string(kSessionFormatVersion) + ")");
  }
  const json workload_file = field("workload_file");
  if (!workload_file.is_null() && !workload_file.is_string()) {
    fail_malformed("a session's \"workload_file\" must be a string, not " + std::string(workload_file.type_name()));
  }
  if (!session.contains("events") || !session["events"].is_array())
    fail_malformed("a session needs an \"events\" array");
  SessionFile file;
  RunCollector collector;
  const json& events = session["events"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    RunEvent event;
    json_detail::t_refused_value = nullptr;
    try {
      event = decode_event(events[i]);
    } catch (const UnknownEvent&) {
      collector.skipped_event();  // written by a newer BLAScope: the rest still opens
      continue;
    } catch (const json::exception& error) {
      const std::string field = refused_json_path(events[i]);
      fail_malformed(event_label(events[i], i) + (field.empty() ? "" : ", field \"" + field + "\"") + ": " +
                     json_reason(error));
    }
    collector.publish(event);
  }
  if (workload_file.is_string()) file.workload_file = workload_file.get<std::string>();
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
