#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/detection.h"
#include "diagnose/error_pattern.h"
#include "diagnose/explanation_catalogue.h"

namespace blasscope::core {

// Triage: which diagnoses a pasted log or traceback shows, from the error texts each
// explanation page lists under `## Seen as` (the one source of truth), generalised over
// their variable parts (see ErrorPattern).

// A page's Seen-as entries that are error texts: a backticked text, or the first backticked
// text of an entry that goes on in prose. Entries without one, and notes such as
// "(no error message: only slower)", are not texts a program prints.
std::vector<std::string> seen_as_error_texts(const Explanation& explanation);

struct TriageMatch {
  std::string id;
  std::string title;
  Severity severity = Severity::Info;
  std::string line;               // the matched line, printable, cut around the match when long
  std::uint64_t line_number = 0;  // 1-based
  std::vector<std::pair<std::string, std::string>> values;  // routine, parameter, shape, dtype, status...
  std::string example;                                      // the Seen-as text it matched
  std::string scenario;                                     // a built-in scenario that reproduces it; "" when none does
  double score = 0;  // specificity: literal text matched, plus values equal to the example's
};

// Reads text in pieces of any size, line by line, in bounded memory: a line longer than a
// window is read in overlapping windows, so a 100 MB line costs time, not memory.
class Triage {
 public:
  Triage();
  void feed(std::string_view chunk);
  // The best match of every diagnosis id, most specific first (ties: catalogue order).
  std::vector<TriageMatch> finish();
  // Lines read so far (a last line without a newline counts).
  std::uint64_t lines() const { return m_line_number - 1 + (m_open_line ? 1 : 0); }

 private:
  void scan(std::string_view text);

  std::string m_line;
  std::uint64_t m_line_number = 1;
  bool m_open_line = false;  // bytes read since the last newline
  struct Where {
    std::uint64_t window = 0;  // which scan() read the line
    std::string shape;         // the matched text's wording, values left out
  };
  std::vector<TriageMatch> m_best;  // one per catalogue page, score 0 until it matches
  std::vector<Where> m_where;       // beside m_best
  std::uint64_t m_windows = 0;
};

std::vector<TriageMatch> triage_text(std::string_view text);

// Whether the start of an input is binary data rather than text (NUL bytes, or many control
// bytes): triage refuses it instead of reporting garbage.
bool looks_binary(std::string_view head);

// The built-in scenario that best reproduces `id` for this matched line ("" when none shows it).
std::string reproducing_scenario(const std::string& id, const std::string& line);

}  // namespace blasscope::core
