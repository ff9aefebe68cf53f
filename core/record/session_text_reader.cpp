// Reading a session's text: the fast reader for sessions as BLAScope writes them (on every
// core), and the SAX reader for any other JSON, both streaming the calls straight into records.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "record/call_builder.h"
#include "record/recording_json.h"
#include "record/session_writer.h"
#include "record/usable_cores.h"

namespace blasscope::record {

using nlohmann::json;
using namespace call_reading;

namespace {

// Everything but the top-level "calls" array goes to nlohmann's own tree builder; the calls
// (thousands to millions of small objects) become records directly.
class SessionSax {
 public:
  using dom = nlohmann::detail::json_sax_dom_parser<json>;
  explicit SessionSax(json& root) : m_dom(root) {}
  std::vector<CallRecord> calls;
  std::size_t error_position = 0;  // where a syntax error was found (1 past the end: the text ended)

  bool null() {
    if (!value_in_calls()) return m_dom.null();
    m_builder.check_value();
    return true;
  }
  bool boolean(bool v) { return value_in_calls() ? (m_builder.boolean(v), true) : m_dom.boolean(v); }
  bool number_integer(json::number_integer_t v) {
    return value_in_calls() ? (m_builder.number(v), true) : m_dom.number_integer(v);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return value_in_calls() ? (m_builder.number(v), true) : m_dom.number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const std::string& s) {
    return value_in_calls() ? (m_builder.number(v), true) : m_dom.number_float(v, s);
  }
  bool string(std::string& v) { return value_in_calls() ? (m_builder.text(v), true) : m_dom.string(v); }
  bool binary(json::binary_t&) { throw std::invalid_argument("binary values are not part of a session"); }
  bool start_object(std::size_t n) {
    if (m_pending_calls) throw std::invalid_argument("\"calls\" must be an array");
    if (m_calls_depth) {
      if (++m_calls_depth == 2) m_builder.begin();
      if (m_calls_depth == 3) m_builder.begin_nested();
      if (m_calls_depth > 3) throw std::invalid_argument("a call nests too deep");
      return true;
    }
    nest();
    return m_dom.start_object(n);
  }
  bool key(std::string& k) {
    if (m_calls_depth) {
      m_builder.key(k);
      return true;
    }
    if (m_depth == 1 && k == "calls") m_pending_calls = true;
    return m_dom.key(k);
  }
  bool end_object() {
    if (m_calls_depth) {
      if (m_calls_depth == 2) calls.push_back(m_builder.finish(0));
      if (m_calls_depth == 3) m_builder.end_nested();
      --m_calls_depth;
      return true;
    }
    --m_depth;
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) {
    if (m_calls_depth) throw std::invalid_argument("a call holds an array");
    if (m_pending_calls) {
      m_pending_calls = false;
      m_calls_depth = 1;
      // The tree gets an empty "calls"; the records hold them.
      return m_dom.start_array(0) && m_dom.end_array();
    }
    nest();
    return m_dom.start_array(n);
  }
  bool end_array() {
    if (m_calls_depth == 1) {
      m_calls_depth = 0;
      return true;
    }
    --m_depth;
    return m_dom.end_array();
  }
  bool parse_error(std::size_t position, const std::string& last, const nlohmann::detail::exception& e) {
    error_position = position;  // the DOM parser rethrows `e` as a plain json::exception
    return m_dom.parse_error(position, last, e);
  }

 private:
  // A value event inside "calls": a call's field (a call itself must be an object).
  bool value_in_calls() {
    if (m_pending_calls) throw std::invalid_argument("\"calls\" must be an array");
    if (m_calls_depth == 1) throw std::invalid_argument("a call must be an object");
    return m_calls_depth > 0;
  }
  // Sessions are shallow; a deep document is damage (and would be copied recursively later).
  void nest() {
    if (++m_depth > 64) throw std::invalid_argument("the session nests deeper than 64 levels");
  }

  dom m_dom;
  CallBuilder m_builder;
  int m_depth = 0;        // nesting outside the calls
  int m_calls_depth = 0;  // 1 inside "calls", 2 inside a call, 3 inside its xerbla
  bool m_pending_calls = false;
};

// How a calls array read by FastCallReader ended: with its ']', with the text (cut inside the
// calls), or with something BLAScope does not write there.
enum class CallsEnd { kClosed, kCut, kOther };

// The calls as session_text writes them: flat objects of numbers, plain strings and `true`,
// with one nested "xerbla" object. Anything else (escapes, nulls, other shapes) ends the read
// (kOther), and the caller reads the whole file with the JSON parser instead.
class FastCallReader {
 public:
  FastCallReader(const char* p, const char* end) : m_p(p), m_end(end) {}

  // The calls up to the end of the array, or of the text where that ends inside them (a session
  // whose writer was killed): every complete call is read either way.
  CallsEnd read(std::vector<CallRecord>& out) {
    skip();
    if (peek() == ']') return ++m_p, CallsEnd::kClosed;
    while (true) {
      skip();
      if (m_p >= m_end) return CallsEnd::kCut;
      m_builder.begin();
      if (!object(false)) return m_p >= m_end ? CallsEnd::kCut : CallsEnd::kOther;
      out.push_back(m_builder.finish(0));
      skip();
      if (m_p >= m_end) return CallsEnd::kCut;
      if (*m_p == ']') return ++m_p, CallsEnd::kClosed;
      if (*m_p++ != ',') return CallsEnd::kOther;
    }
  }
  const char* position() const { return m_p; }

  // The calls from here to `stop`, where another reader starts (read_calls): true where they
  // end with the comma before it, so that `stop` is where a call begins.
  bool read_until(const char* stop, std::vector<CallRecord>& out) {
    skip();
    while (m_p < stop) {
      m_builder.begin();
      if (!object(false)) return false;
      out.push_back(m_builder.finish(0));
      skip();
      if (peek() != ',') return false;
      ++m_p;
      skip();
    }
    return m_p == stop;
  }

 private:
  char peek() const { return m_p < m_end ? *m_p : '\0'; }
  void skip() {
    while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t')) ++m_p;
  }
  // A string without escapes, as the text holds it (valid as long as the text).
  bool string(std::string_view& out) {
    if (peek() != '"') return false;
    const char* start = ++m_p;
    while (m_p < m_end && *m_p != '"') {
      if (*m_p == '\\' || static_cast<unsigned char>(*m_p) < 0x20) return false;
      ++m_p;
    }
    if (m_p >= m_end) return false;
    out = std::string_view(start, static_cast<std::size_t>(m_p++ - start));
    return true;
  }
  bool object(bool nested) {
    if (peek() != '{') return false;
    ++m_p;
    skip();
    if (peek() == '}') return ++m_p, true;
    std::string_view key, text;
    while (true) {
      skip();
      if (!string(key)) return false;
      skip();
      if (peek() != ':') return false;
      ++m_p;
      skip();
      m_builder.key_in_place(key);
      const char c = peek();
      if (c == '"') {
        if (!string(text)) return false;
        m_text.assign(text);
        m_builder.text(m_text);
      } else if (c == '{') {
        if (nested) return false;
        m_builder.begin_nested();
        if (!object(true)) return false;
        m_builder.end_nested();
      } else if (c == 't' && m_end - m_p >= 4 && std::string_view(m_p, 4) == "true") {
        m_p += 4;
        m_builder.boolean(true);
      } else if (c == 'f' && m_end - m_p >= 5 && std::string_view(m_p, 5) == "false") {
        m_p += 5;
        m_builder.boolean(false);
      } else if (!number()) {
        return false;
      }
      skip();
      if (peek() == ',') {
        ++m_p;
        continue;
      }
      if (peek() != '}') return false;
      ++m_p;
      return true;
    }
  }
  bool number() {
    const char* start = m_p;
    bool integral = true;
    while (m_p < m_end && (std::isdigit(static_cast<unsigned char>(*m_p)) || *m_p == '-' || *m_p == '+' ||
                           *m_p == '.' || *m_p == 'e' || *m_p == 'E')) {
      if (*m_p == '.' || *m_p == 'e' || *m_p == 'E') integral = false;
      ++m_p;
    }
    if (m_p == start) return false;
    if (integral && *start != '-') {
      std::uint64_t v = 0;
      const auto [end, error] = std::from_chars(start, m_p, v);
      if (error != std::errc() || end != m_p) return false;
      m_builder.number(v);
    } else if (integral) {
      std::int64_t v = 0;
      const auto [end, error] = std::from_chars(start, m_p, v);
      if (error != std::errc() || end != m_p) return false;
      m_builder.number(v);
    } else {
      double v = 0;
      const auto [end, error] = std::from_chars(start, m_p, v);
      if (error != std::errc() || end != m_p) return false;
      m_builder.number(v);
    }
    return true;
  }

  const char* m_p;
  const char* m_end;
  CallBuilder m_builder;
  std::string m_text;  // a text value (its buffer reused from call to call)
};

// Where the top-level "calls":[ begins, found by scanning the header before it (the calls come
// first in sessions this BLAScope writes, last in older ones); npos for a document of another
// shape: nested too deep, or "calls" not a key of the top-level object.
constexpr std::string_view kCallsKey = "\"calls\":[";

std::size_t top_level_calls(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  char last = '\0';  // the last character outside strings that is not white space
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      if (depth == 1 && (last == '{' || last == ',') && text.substr(i, kCallsKey.size()) == kCallsKey) {
        return i;
      }
      in_string = true;
    } else if ((c == '{' || c == '[') && ++depth > 64) {
      return std::string::npos;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) last = c;
  }
  return std::string::npos;
}

// Reads the calls array from `begin` (after its '[') into `calls`, and sets `after` past its
// ']' where it has one. A big one is read on every core, in parts starting where a line starts a
// call (BLAScope writes a call a line); a part must end right where the next begins, else (a
// session written otherwise, or a part that is not what BLAScope writes) the whole is read again
// in one go, as reading in one go is what decides. A session cut inside its calls (its recorder
// was killed) is read in parts too: it opens as fast as a finished one.
CallsEnd read_calls(const char* begin, const char* end, std::vector<CallRecord>& calls, const char*& after) {
  constexpr std::size_t kLeastPart = std::size_t{8} << 20;  // 40,000 calls: below, one thread is as quick
  const std::size_t size = static_cast<std::size_t>(end - begin);
  const std::size_t parts = std::min<std::size_t>({usable_cores(), 8, size / kLeastPart});
  if (parts > 1) {
    const std::string_view text(begin, size);
    std::vector<const char*> starts = {begin};
    for (std::size_t k = 1; k < parts; ++k) {
      const std::size_t at = text.find("\n{", std::max<std::size_t>(k * size / parts, starts.back() - begin + 1));
      if (at == std::string_view::npos) break;
      starts.push_back(begin + at + 1);
    }
    std::vector<std::vector<CallRecord>> read(starts.size());
    std::vector<char> whole(starts.size(), 0), threw(starts.size(), 0);
    CallsEnd last = CallsEnd::kOther;
    const char* last_end = nullptr;
    const auto read_part = [&](std::size_t k) noexcept {
      try {
        read[k].reserve(static_cast<std::size_t>((k + 1 < starts.size() ? starts[k + 1] : end) - starts[k]) / 128);
        FastCallReader reader(starts[k], end);
        if (k + 1 < starts.size()) {
          whole[k] = reader.read_until(starts[k + 1], read[k]);
        } else {
          last = reader.read(read[k]);
          last_end = reader.position();
        }
      } catch (const std::exception&) {  // read again in one go, which says what was wrong
        threw[k] = 1;
      }
    };
    std::vector<std::thread> threads;
    try {
      threads.reserve(starts.size());
      for (std::size_t k = 1; k < starts.size(); ++k) threads.emplace_back(read_part, k);
    } catch (const std::exception&) {  // no thread (or no memory) for the rest: read in one go below
    }
    read_part(0);
    for (std::thread& t : threads) t.join();
    // Every part whole, each thread's own (a part no thread was started for is not).
    const bool all_read = threads.size() + 1 == starts.size();
    const bool before_last = std::all_of(whole.begin(), whole.end() - 1, [](char w) { return w; });
    if (all_read && before_last && !threw.back()) {
      // The last not as BLAScope writes calls: read in one go, it would end just there too.
      if (last == CallsEnd::kOther) return last;
      std::size_t count = 0;
      for (const auto& part : read) count += part.size();
      calls = std::move(read[0]);
      calls.reserve(count);
      for (std::size_t k = 1; k < read.size(); ++k) calls.insert(calls.end(), read[k].begin(), read[k].end());
      after = last_end;
      return last;
    }
  }
  // Room for as many calls as the text can hold at the size BLAScope writes them (about 190
  // bytes; reserved, not touched): a vector doubling its way to a million calls copied 0.2 GB.
  calls.clear();
  try {
    calls.reserve(size / 128);
  } catch (const std::bad_alloc&) {  // then it grows as it goes
  }
  FastCallReader reader(begin, end);
  const CallsEnd how = reader.read(calls);
  after = reader.position();
  return how;
}

// A session whose writer stopped inside its calls, from the calls it wrote.
Recording unfinished_recording(std::vector<CallRecord> calls) {
  Recording r;
  r.calls = std::move(calls);
  r.calls_total = r.calls.size();
  r.exit_status = -1;
  r.routines = totals_of(r.calls);
  name_single_dtypes(r);
  for (const CallRecord& c : r.calls) {
    r.calls_unlisted += c.unlisted;
    if (std::none_of(r.processes.begin(), r.processes.end(), [&c](const ProcessInfo& p) { return p.pid == c.pid; })) {
      ProcessInfo& process = r.processes.emplace_back();
      process.pid = c.pid;
      process.blas_found = true;
      process.end_known = false;  // an unfinished session does not say
    }
    const double end = static_cast<double>(c.start_ns + c.duration_ns) * 1e-9;
    r.wall_seconds = std::max(r.wall_seconds, end);
  }
  // Which process was the program's is in the part never written: only a lone one is surely it.
  if (r.processes.size() == 1) r.pid = r.processes.front().pid;
  r.problem =
      "this session was never finished, or its end was cut off (its recorder was killed before it wrote "
      "the rest, e.g. by SIGKILL or when memory ran out; or the file was truncated): " +
      (r.calls.size() == 1 ? std::string("the 1 call written before is shown")
                           : "the " + std::to_string(r.calls.size()) + " calls written before are shown") +
      ", with totals summed from them; the command, the exit status and what was running are unknown";
  return r;
}

// A session as BLAScope writes it, read the fast way: whole or, with `take_unfinished`, one that
// ends inside its calls; nullopt for a text of another shape.
std::optional<Recording> read_fast(std::string_view text, bool take_unfinished) {
  const std::size_t at = top_level_calls(text);
  if (at == std::string::npos) return std::nullopt;
  std::vector<CallRecord> calls;
  const char* calls_end = nullptr;
  const CallsEnd how = read_calls(text.data() + at + kCallsKey.size(), text.data() + text.size(), calls, calls_end);
  if (how == CallsEnd::kOther) return std::nullopt;
  if (how == CallsEnd::kCut) {
    // Only the head BLAScope writes, with every other field after the calls, is surely unfinished.
    const bool head = text.starts_with(session_head()) && at + kCallsKey.size() == session_head().size();
    if (!take_unfinished || !head) return std::nullopt;
    return unfinished_recording(std::move(calls));
  }
  // The header is what comes before and after the calls: `{...,` and `,...}` (calls in the
  // middle), `{` and `,...}` (first) or `{...,` and `}` (last, as older sessions have them).
  std::string before(text.substr(0, at));
  std::string after(calls_end, text.data() + text.size());
  while (!before.empty() && std::isspace(static_cast<unsigned char>(before.back()))) before.pop_back();
  const std::size_t next = after.find_first_not_of(" \t\r\n");
  if (next == std::string::npos || before.empty()) return std::nullopt;
  after.erase(0, next);
  // Exactly the separators JSON has there: `{` or `,` before the key, `,` or `}` after the calls.
  if ((before.back() != '{' && before.back() != ',') || (after.front() != ',' && after.front() != '}')) {
    return std::nullopt;
  }
  if (before.back() == ',') before.pop_back();
  if (after.front() == ',') after.erase(0, 1);
  if (before.empty() || after.empty()) return std::nullopt;
  if (before.back() != '{' && after.front() != '}') before += ',';
  json header = json::parse(before + after, nullptr, false);
  if (header.is_discarded() || !header.is_object() || header.contains("calls")) return std::nullopt;
  header["calls"] = json::array();
  Recording r = recording_from_json(header);
  r.calls = std::move(calls);
  for (CallRecord& c : r.calls) c.start_ns += r.start_ns;
  return r;
}

}  // namespace

std::optional<Recording> read_written_session(std::string_view text) {
  return read_fast(text, false);
}

std::optional<Recording> read_unfinished_session(std::string_view text, bool cut_after_calls) {
  if (!text.starts_with(session_head())) return std::nullopt;
  std::vector<CallRecord> calls;
  const char* after = nullptr;
  const CallsEnd how = read_calls(text.data() + session_head().size(), text.data() + text.size(), calls, after);
  if (how == CallsEnd::kCut || (how == CallsEnd::kClosed && cut_after_calls))
    return unfinished_recording(std::move(calls));
  return std::nullopt;
}

Recording parse_recording_text(std::string_view text) {
  // A session whose recorder was killed ends inside its calls: read so at once. The JSON parser
  // went through every call first only to fail at the end (16 s for 250 MB). One whose calls
  // ended (cut in its tail, or damaged) still goes through the parser, which tells the two apart.
  if (auto fast = read_fast(text, true)) return std::move(*fast);
  json root;
  SessionSax sax(root);
  try {
    json::sax_parse(text, &sax);
  } catch (const json::exception&) {
    // Not JSON: perhaps a session cut short, whose calls are still worth reading. Past its calls
    // only a cut (the parser stopped at the end of the text) is read so: damage there is refused,
    // not taken for a session whose end (its exit, its crash) is unknown.
    const bool cut = sax.error_position >= text.size();
    if (auto unfinished = read_unfinished_session(text, cut)) return std::move(*unfinished);
    throw;
  }
  Recording r = recording_from_json(root);
  r.calls = std::move(sax.calls);
  for (CallRecord& c : r.calls) c.start_ns += r.start_ns;
  return r;
}

}  // namespace blasscope::record
