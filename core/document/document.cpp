#include "document/document.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/input_error.h"
#include "results/session_file.h"
#include "workload/scenarios.h"
#include "workload/workload_parser.h"

namespace blasscope::core {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(InputError::Kind::Unreadable, "cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether JSON text is a session: its top-level "format" is "blasscope-session" (a workload
// has none). Only top-level values are kept while parsing, so a long event list costs no
// memory here.
bool is_session_json(const std::string& text) {
  const nlohmann::json top = nlohmann::json::parse(
      text,
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
        return depth < 1 || (depth == 1 && event != nlohmann::json::parse_event_t::object_start &&
                             event != nlohmann::json::parse_event_t::array_start);
      },
      false);
  return top.is_object() && top.value("format", std::string()) == "blasscope-session";
}

void attach_plan(Document& doc) {
  if (doc.workload) doc.plan = plan_workload(*doc.workload);
  if (doc.title.empty() && doc.workload) {
    doc.title = doc.workload->scenario ? doc.workload->scenario->title : doc.workload->name;
  }
}

void restore_session_workload(Document& doc) {
  // The file it was run from first; then a built-in scenario of the run's name.
  std::string why;
  if (!doc.workload_file.empty()) {
    try {
      doc.workload = load_workload(doc.workload_file);
      return;
    } catch (const InputError& error) {
      why = doc.workload_file + ": " + error.what();
    }
  }
  if (const Workload* scenario = find_scenario(doc.run->workload)) {
    doc.workload = *scenario;
    return;
  }
  doc.note = "the session's workload could not be reopened" + (why.empty() ? std::string() : " (" + why + ")") +
             ": its tensors and graph are not shown";
}

}  // namespace

DocumentKind recognise_document(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(InputError::Kind::Unreadable, "cannot open " + path + ": " + std::strerror(errno));
  char head[64] = {};
  in.read(head, sizeof head);
  const auto got = static_cast<std::size_t>(in.gcount());
  for (std::size_t i = 0; i < got; ++i) {
    if (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r') continue;
    if (head[i] != '{') return DocumentKind::TensorFile;  // npy, npz and safetensors start with binary
    // JSON: a session or a workload, told apart when it is read.
    return is_session_json(read_all(path)) ? DocumentKind::Session : DocumentKind::Workload;
  }
  return DocumentKind::TensorFile;  // empty or blank: the readers say what is wrong with it
}

Document open_document(const std::string& source) {
  Document doc;
  doc.source = source;
  std::error_code error;
  if (!std::filesystem::exists(source, error)) {
    doc.workload = load_workload(source);  // a scenario id, or a clear error
    attach_plan(doc);
    return doc;
  }
  const std::string text = [&] {
    std::ifstream in(source, std::ios::binary);
    char first = 0;
    while (in.get(first) && std::isspace(static_cast<unsigned char>(first))) {
    }
    if (first != '{') {
      throw InputError(InputError::Kind::Malformed,
                       "a tensor file, not a workload or a session (inspect reads it; the GUI opens it)");
    }
    return read_all(source);
  }();
  if (is_session_json(text)) {
    SessionFile session = parse_session(text, source);
    doc.kind = DocumentKind::Session;
    doc.run = std::move(session.run);
    doc.workload_file = std::move(session.workload_file);
    doc.title = doc.run->workload;
    restore_session_workload(doc);
  } else {
    doc.workload = parse_workload_file(source);
  }
  attach_plan(doc);
  return doc;
}

}  // namespace blasscope::core
