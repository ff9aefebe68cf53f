#include "diagnose/triage.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "text/format.h"
#include "workload/scenarios.h"

namespace blasscope::core {
namespace {

// A line longer than a window is read in windows that overlap by more than any error text
// is long, so a text cut by one window is whole in the next.
constexpr std::size_t kWindow = 8192;
constexpr std::size_t kOverlap = 1024;
constexpr std::size_t kShownAround = 120;  // bytes of a long line shown either side of the match

struct PagePattern {
  ErrorPattern pattern;
  std::size_t page = 0;  // index in explanation_catalogue()
  // Where several pages list the same shape of text ("On entry to ROUTINE parameter number N")
  // and a line matches none of their examples' values exactly, the page that lists that shape
  // most often is its general home: a hundredth of a point per listing breaks the tie.
  double home_bonus = 0;
  // Whether the routine is part of what the page is about: it lists this wording at least twice,
  // always with the same routine (DLASCL). A line naming another routine then scores a point less.
  bool routine_is_identity = false;
};

struct PatternIndex {
  std::vector<PagePattern> patterns;
  std::unordered_map<std::string, std::vector<std::size_t>> by_anchor;
};

std::string shape_of(const ErrorPattern& p) {
  std::string key;
  for (const auto& e : p.elements) {
    if (e.part == ErrorPattern::Part::Literal)
      key.append(e.text);
    else
      key.append("<").append(std::to_string(static_cast<int>(e.part))).append(">");
    key += ' ';
  }
  return key;
}

// The status family a pattern names ("<status:CUBLAS_STATUS>"), or "": a status no page lists
// belongs to the page that lists most statuses of its family (cublas-error for cuBLAS).
std::string status_of(const ErrorPattern& p) {
  for (const auto& e : p.elements) {
    if (e.part == ErrorPattern::Part::Status)
      return std::string("<status:").append(e.text.substr(0, e.text.find("_STATUS_"))).append(">");
  }
  return {};
}

// The words either side of a pattern's first routine name ("to|parameter"), or "" when it has none.
std::string routine_context(const ErrorPattern& p) {
  for (std::size_t i = 0; i < p.elements.size(); ++i) {
    if (p.elements[i].part != ErrorPattern::Part::Routine) continue;
    const auto literal = [&](std::size_t j, const char* none) {
      return j < p.elements.size() && p.elements[j].part == ErrorPattern::Part::Literal ? p.elements[j].text
                                                                                        : std::string(none);
    };
    return literal(i - 1, "^") + "|" + literal(i + 1, "$");
  }
  return {};
}

const PatternIndex& pattern_index() {
  static const PatternIndex kIndex = [] {
    PatternIndex index;
    const auto& pages = explanation_catalogue();
    std::map<std::pair<std::size_t, std::string>, int> listings;
    for (std::size_t page = 0; page < pages.size(); ++page) {
      for (const auto& text : seen_as_error_texts(pages[page])) {
        if (auto pattern = compile_error_pattern(text)) {
          ++listings[{page, shape_of(*pattern)}];
          if (const auto family = status_of(*pattern); !family.empty()) ++listings[{page, family}];
          index.patterns.push_back({std::move(*pattern), page, 0});
        }
      }
    }
    std::map<std::pair<std::size_t, std::string>, std::vector<std::string>> routines;
    for (const auto& p : index.patterns) {
      if (const auto context = routine_context(p.pattern); !context.empty()) {
        for (const auto& e : p.pattern.elements) {
          if (e.part == ErrorPattern::Part::Routine) {
            routines[{p.page, context}].push_back(routine_base(e.text));
            break;
          }
        }
      }
    }
    for (std::size_t i = 0; i < index.patterns.size(); ++i) {
      auto& p = index.patterns[i];
      if (const auto context = routine_context(p.pattern); !context.empty()) {
        const auto& seen = routines[{p.page, context}];
        p.routine_is_identity =
            seen.size() >= 2 && std::all_of(seen.begin(), seen.end(), [&](const auto& r) { return r == seen[0]; });
      }
      int home = listings[{p.page, shape_of(p.pattern)}];
      if (const auto family = status_of(p.pattern); !family.empty()) home = std::max(home, listings[{p.page, family}]);
      p.home_bonus = 0.01 * home;
      index.by_anchor[anchor_key(p.pattern)].push_back(i);
    }
    return index;
  }();
  return kIndex;
}

std::size_t catalogue_rank(const std::string& id) {
  const auto& ids = diagnosis_ids();
  return static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
}

// The part of `line` around bytes [from, to), printable and trimmed.
std::string shown_line(std::string_view line, std::size_t from, std::size_t to) {
  std::size_t begin = from > kShownAround ? from - kShownAround : 0;
  std::size_t end = std::min(line.size(), to + kShownAround);
  auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80; };
  while (begin > 0 && begin < line.size() && continuation(begin)) ++begin;
  while (end < line.size() && end > begin && continuation(end)) --end;
  std::string text(line.substr(begin, end - begin));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < ' ' || c == '\x7f') c = ' ';
  }
  const auto first = text.find_first_not_of(' ');
  text = first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
  return (begin > 0 ? "..." : "") + printable_utf8(text) + (end < line.size() ? "..." : "");
}

std::set<std::string> words_of(const std::string& text) {
  static const std::set<std::string> kCommon = {
      "the", "and",  "with", "was",   "for",   "its",   "are",   "that",  "this",   "had",          "has",       "not",
      "but", "from", "into", "error", "value", "numpy", "scipy", "torch", "linalg", "runtimeerror", "valueerror"};
  std::set<std::string> words;
  std::string word;
  for (const char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      if (word.size() >= 3 && !kCommon.contains(word) && !std::isdigit(static_cast<unsigned char>(word[0])))
        words.insert(word);
      word.clear();
    }
  }
  return words;
}

}  // namespace

std::vector<std::string> seen_as_error_texts(const Explanation& explanation) {
  std::vector<std::string> texts;
  std::istringstream in(explanation.text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) {
      inside = line == "## Seen as";
      continue;
    }
    if (!inside || !line.starts_with("- `")) continue;
    const auto close = line.find('`', 3);
    if (close == std::string::npos || close == 3) continue;
    std::string text = line.substr(3, close - 3);
    if (text.front() == '(' && text.back() == ')') continue;  // a note, not a printed text
    texts.push_back(std::move(text));
  }
  return texts;
}

Triage::Triage() : m_best(explanation_catalogue().size()), m_where(m_best.size()) {
  pattern_index();
}

void Triage::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const auto stop = chunk.find_first_of("\r\n");
    const std::string_view piece = chunk.substr(0, stop);
    if (!piece.empty()) m_open_line = true;
    // Append at most up to a window, scanning full windows as they fill.
    std::size_t taken = 0;
    while (taken < piece.size()) {
      const std::size_t room = kWindow - m_line.size();
      const std::size_t n = std::min(room, piece.size() - taken);
      m_line.append(piece.substr(taken, n));
      taken += n;
      if (m_line.size() == kWindow) {
        scan(m_line);
        m_line.erase(0, kWindow - kOverlap);
      }
    }
    if (stop == std::string_view::npos) return;
    scan(m_line);
    m_line.clear();
    if (chunk[stop] == '\n') ++m_line_number, m_open_line = false;
    chunk.remove_prefix(stop + 1);
  }
}

void Triage::scan(std::string_view text) {
  if (text.empty()) return;
  const auto& index = pattern_index();
  const auto& pages = explanation_catalogue();
  const std::vector<TextToken> tokens = tokenize_line(text);
  ++m_windows;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    for (const auto& key : token_keys(tokens[i])) {
      const auto found = index.by_anchor.find(key);
      if (found == index.by_anchor.end()) continue;
      for (const std::size_t p : found->second) {
        const PagePattern& candidate = index.patterns[p];
        const auto match = match_error_pattern(candidate.pattern, tokens, i);
        if (!match) continue;
        TriageMatch& best = m_best[candidate.page];
        const double score = match->score + candidate.home_bonus -
                             (candidate.routine_is_identity && match->other_routines > 0 ? 1.0 : 0.0);
        // A later line wins a tie: the last line of a traceback is the error itself.
        if (score < best.score) continue;
        const auto offset = [&](std::size_t t) {
          return static_cast<std::size_t>(tokens[t].text.data() - text.data());
        };
        const std::size_t last = match->end - 1;
        best.id = pages[candidate.page].id;
        best.title = pages[candidate.page].title;
        best.severity = pages[candidate.page].severity;
        best.line = shown_line(text, offset(match->begin), offset(last) + tokens[last].text.size());
        best.line_number = m_line_number;
        best.values = match->values;
        best.example = candidate.pattern.example;
        best.score = score;
        m_where[candidate.page] = {m_windows, shape_of(candidate.pattern)};
      }
    }
  }
}

std::vector<TriageMatch> Triage::finish() {
  scan(m_line);
  m_line.clear();
  // A page whose best is a looser reading of a line another page matched more closely, in the
  // same wording (DGEMM's page for a DLASCL parameter-4 line), adds nothing: leave it out.
  auto dominated = [&](std::size_t b) {
    for (std::size_t a = 0; a < m_best.size(); ++a) {
      if (m_where[a].window == m_where[b].window && m_where[a].shape == m_where[b].shape &&
          m_best[a].score > m_best[b].score + 1e-9)
        return true;
    }
    return false;
  };
  std::vector<TriageMatch> matches;
  for (std::size_t page = 0; page < m_best.size(); ++page) {
    auto& m = m_best[page];
    if (m.score <= 0 || dominated(page)) continue;
    for (auto& [name, value] : m.values) value = printable_utf8(value);
    m.scenario = reproducing_scenario(m.id, m.line);
    matches.push_back(std::move(m));
  }
  std::stable_sort(matches.begin(), matches.end(), [](const TriageMatch& a, const TriageMatch& b) {
    if (a.score != b.score) return a.score > b.score;
    return catalogue_rank(a.id) < catalogue_rank(b.id);
  });
  m_best.assign(explanation_catalogue().size(), {});
  m_where.assign(m_best.size(), {});
  return matches;
}

std::vector<TriageMatch> triage_text(std::string_view text) {
  Triage triage;
  triage.feed(text);
  return triage.finish();
}

bool looks_binary(std::string_view head) {
  head = head.substr(0, 65536);
  std::size_t control = 0;
  for (const char c : head) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0) return true;
    if (u < ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != '\x1b') ++control;
  }
  return control * 20 > head.size();
}

std::string reproducing_scenario(const std::string& id, const std::string& line) {
  // Among the scenarios that show `id`, the one whose title and story share most words with
  // the line ("least squares" -> nan-lstsq), then the one that shows fewest other diagnoses.
  // A line naming a routine is reproduced only by a scenario about that routine: DHSEQR's
  // parameter 4 is not the row-major GEMM's leading dimension.
  const std::set<std::string> words = words_of(line);
  std::set<std::string> routines;
  for (const auto& word : words) {
    if (std::string base = routine_base(word); !base.empty()) routines.insert(std::move(base));
  }
  const Workload* best = nullptr;
  std::tuple<std::size_t, std::size_t, std::size_t> best_rank{};
  for (const auto& w : builtin_scenarios()) {
    const auto& expected = w.scenario->expected;
    const auto at = std::find(expected.begin(), expected.end(), id);
    if (at == expected.end()) continue;
    std::string text = w.scenario->id + " " + w.scenario->title + " " + w.scenario->story;
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!routines.empty() && std::none_of(routines.begin(), routines.end(), [&text](const std::string& base) {
          return text.find(base) != std::string::npos;
        }))
      continue;
    std::size_t shared = 0;
    for (const auto& word : words_of(text)) shared += words.contains(word);
    const std::tuple<std::size_t, std::size_t, std::size_t> rank{shared, 100 - expected.size(),
                                                                 100 - static_cast<std::size_t>(at - expected.begin())};
    if (!best || rank > best_rank) best = &w, best_rank = rank;
  }
  return best ? best->scenario->id : std::string();
}

}  // namespace blasscope::core
