#include "results/session_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/input_error.h"
#include "io/text_file.h"

namespace blasscope::core {

using nlohmann::json;

void write_session(const std::string& path, const std::string& workload_file, const RunResult& result) {
  const json session = {{"format", "blasscope-session"},
                        {"version", kSessionFormatVersion},
                        {"workload", result.workload},
                        {"workload_file", workload_file},
                        {"events", result.events}};
  write_text_file(path, session.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}

RunResult read_session(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(InputError::Kind::Unreadable, "cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  json session;
  try {
    session = json::parse(text.str());
  } catch (const json::exception& error) {
    fail_malformed(std::string("not a session file: ") + error.what());
  }
  if (!session.is_object() || session.value("format", "") != "blasscope-session") {
    fail_malformed("not a BLAScope session file (no \"format\": \"blasscope-session\")");
  }
  const int version = session.value("version", 0);
  if (version < 1 || version > kSessionFormatVersion) {
    fail_unsupported("session format version " + std::to_string(version) + " is newer than this BLAScope reads (" +
                     std::to_string(kSessionFormatVersion) + ")");
  }
  RunCollector collector;
  try {
    for (const json& event : session.at("events")) collector.publish(event);
  } catch (const json::exception& error) {
    fail_malformed(std::string("damaged session events: ") + error.what());
  }
  return collector.finish();
}

}  // namespace blasscope::core
