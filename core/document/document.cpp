#include "document/document.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/input_error.h"
#include "io/mapped_file.h"
#include "record/recording_json.h"
#include "results/session_file.h"
#include "workload/scenarios.h"
#include "workload/workload_parser.h"

namespace blasscope::core {
namespace {

// Whether JSON text is a session: its top-level "format" is "blasscope-session" (a workload
// has none). Only top-level values are kept while parsing, so a long event list costs no
// memory here.
// Reads the top-level "format" and "kind" of a JSON document, and stops as soon as the
// first big array ("calls" of a recording, written after them) or both values are seen.
class SessionHeaderSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string format, kind;
  bool weight_map = false;  // a sharded checkpoint's index (model.safetensors.index.json)
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t& v) override {
    if (m_depth == 1 && m_key == "format") format = v;
    if (m_depth == 1 && m_key == "kind") kind = v;
    return value() && !(!format.empty() && !kind.empty());
  }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return ++m_depth, true; }
  bool key(string_t& k) override {
    if (m_depth == 1) m_key = k;
    if (m_depth == 1 && k == "weight_map") weight_map = true;
    return true;
  }
  bool end_object() override { return --m_depth, true; }
  bool start_array(std::size_t) override {
    ++m_depth;
    // The calls are skipped only when format and kind came first (as BLAScope writes them);
    // another writer may have put them anywhere, and then the whole file is read.
    return !(m_depth == 2 && m_key == "calls" && !format.empty() && !kind.empty());
  }
  bool end_array() override { return --m_depth, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool value() { return true; }
  int m_depth = 0;
  std::string m_key;
};

// "run" for a session of a run, "recording" for one of a recorded program, "index" for a
// sharded checkpoint's index (a top-level "weight_map"), "" for none of them.
std::string session_kind(std::string_view text) {
  SessionHeaderSax header;
  nlohmann::json::sax_parse(text, &header, nlohmann::json::input_format_t::json, false);
  if (header.format != "blasscope-session") return header.weight_map ? "index" : "";
  return header.kind == "recording" ? "recording" : "run";
}

record::Recording parse_recording(std::string_view text) {
  try {
    return record::parse_recording_text(text);
  } catch (const nlohmann::json::exception& error) {
    throw InputError(InputError::Kind::Malformed, std::string("not a readable recording: ") + error.what());
  } catch (const std::invalid_argument& error) {
    throw InputError(InputError::Kind::Malformed, std::string("damaged recording: ") + error.what());
  }
}

void attach_plan(Document& doc) {
  if (doc.workload) doc.plan = plan_workload(*doc.workload);
  if (doc.title.empty() && doc.workload) {
    doc.title = doc.workload->scenario ? doc.workload->scenario->title : doc.workload->name;
  }
}

void restore_session_workload(Document& doc) {
  // The file it was run from; a built-in scenario only when that is what it was run from
  // (a user's workload that shares a scenario's name must not come back as the scenario).
  const std::string& file = doc.workload_file;
  const bool scenario = file.empty() || file.starts_with("scenario:");
  try {
    if (!scenario) {
      doc.workload = load_workload(file);
      doc.rerun_source = file;
      return;
    }
    const std::string id = file.empty() ? doc.run->workload : file.substr(9);
    if (const Workload* w = find_scenario(id)) {
      doc.workload = *w;
      doc.rerun_source = "scenario:" + id;
      return;
    }
    doc.note = "the session's workload '" + doc.run->workload + "' is no built-in scenario";
  } catch (const InputError& error) {
    doc.note = "the session's workload " + file + " could not be reopened (" + error.what() + ")";
  }
  doc.note += ": its tensors and graph are not shown, and it cannot be run again from here";
}

}  // namespace

Document open_document(const std::string& source) {
  Document doc;
  doc.source = source;
  std::error_code error;
  if (std::filesystem::is_directory(source, error)) {
    doc.kind = DocumentKind::TensorFile;  // a sharded checkpoint's folder (io/sharded_reader.h)
    return doc;
  }
  if (!std::filesystem::exists(source, error)) {
    doc.workload = load_workload(source);  // a scenario id, or a clear error
    doc.rerun_source = source.starts_with("scenario:") ? source : "scenario:" + source;
    attach_plan(doc);
    return doc;
  }
  // A FIFO or device would block the read below (or never end): only regular files are inputs.
  if (!std::filesystem::is_regular_file(source, error)) {
    throw InputError(InputError::Kind::Unreadable, source + ": not a regular file");
  }
  // JSON starts with '{'; npy, npz and safetensors with binary headers. A tensor file is only
  // recognised here: its readers map it (inspect, the GUI's loader).
  {
    std::ifstream in(source, std::ios::binary);
    if (!in) throw InputError(InputError::Kind::Unreadable, "cannot open " + source + ": " + std::strerror(errno));
    char first = 0;
    bool any = false;
    while (in.get(first)) {
      any = true;
      if (!std::isspace(static_cast<unsigned char>(first))) break;
    }
    if (!any || std::isspace(static_cast<unsigned char>(first))) {
      throw InputError(InputError::Kind::Malformed, any ? "the file holds only white space" : "the file is empty");
    }
    if (first != '{') {
      doc.kind = DocumentKind::TensorFile;
      return doc;
    }
  }
  // Mapped, not read: a million-call recording is 200 MB, and a copy of it (zeroed first) and
  // its page faults took a fifth of opening it.
  const MappedFile file(source);
  const std::string_view text(reinterpret_cast<const char*>(file.bytes().data()), file.bytes().size());
  const std::string kind = session_kind(text);
  if (kind == "index") {
    doc.kind = DocumentKind::TensorFile;
    return doc;
  }
  if (kind == "recording") {
    doc.kind = DocumentKind::Recording;
    doc.recording = parse_recording(text);
    doc.title = doc.recording->command.empty() ? source : doc.recording->command.front();
    return doc;
  }
  if (kind == "run") {
    SessionFile session = parse_session(std::string(text), source);
    doc.kind = DocumentKind::Session;
    doc.run = std::move(session.run);
    doc.workload_file = std::move(session.workload_file);
    doc.title = doc.run->workload;
    restore_session_workload(doc);
  } else {
    doc.workload = parse_workload_file(source);
    doc.rerun_source = source;
  }
  attach_plan(doc);
  return doc;
}

}  // namespace blasscope::core
