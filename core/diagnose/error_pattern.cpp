#include "diagnose/error_pattern.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>

namespace blasscope::core {
namespace {

using Kind = TextToken::Kind;
using Part = ErrorPattern::Part;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_word_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// [-]digits[.digits][e[+-]digits] from i; returns the end (i when there is no number).
std::size_t number_end(std::string_view s, std::size_t i) {
  std::size_t j = i;
  if (j < s.size() && s[j] == '-') ++j;
  const std::size_t digits = j;
  while (j < s.size() && is_digit(s[j])) ++j;
  if (j == digits) return i;
  if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
    j += 2;
    while (j < s.size() && is_digit(s[j])) ++j;
  }
  if (j + 1 < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    std::size_t k = j + 1;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    if (k < s.size() && is_digit(s[k])) {
      while (k < s.size() && is_digit(s[k])) ++k;
      j = k;
    }
  }
  return j;
}

// "(2, 3)", "[10000,10000]", "(5,)": two numbers or more, or one with a trailing comma.
std::size_t shape_end(std::string_view s, std::size_t i) {
  const char close = s[i] == '(' ? ')' : ']';
  std::size_t j = i + 1, count = 0;
  bool trailing_comma = false;
  auto skip_spaces = [&] {
    while (j < s.size() && s[j] == ' ') ++j;
  };
  while (true) {
    skip_spaces();
    const std::size_t end = number_end(s, j);
    if (end == j || s.find('.', j) < end) return i;  // integers only
    ++count, j = end, trailing_comma = false;
    skip_spaces();
    if (j < s.size() && s[j] == ',') {
      ++j, trailing_comma = true;
      skip_spaces();
    }
    if (j < s.size() && s[j] == close) return count >= 2 || trailing_comma ? j + 1 : i;
    if (!trailing_comma) return i;
  }
}

const std::unordered_set<std::string>& dtype_names() {
  static const std::unordered_set<std::string> kNames = {
      "float",  "double",  "half",    "int",          "long",          "short",    "bool",          "byte",
      "char",   "float16", "float32", "float64",      "float128",      "bfloat16", "int8",          "int16",
      "int32",  "int64",   "uint8",   "uint16",       "uint32",        "uint64",   "complex64",     "complex128",
      "cfloat", "cdouble", "chalf",   "complexfloat", "complexdouble", "longlong", "float8_e4m3fn", "float8_e5m2"};
  return kNames;
}

bool is_unit(const std::string& w) {
  static const std::unordered_set<std::string> kUnits = {"b",   "kb",  "mb",  "gb",    "tb",   "kib",
                                                         "mib", "gib", "tib", "bytes", "byte", "pib"};
  return kUnits.contains(w);
}

// BLAS/LAPACK routine bases. The short ones and plain English words count only with a
// precision letter ("dcopy"), so prose never reads as a routine name.
const std::unordered_set<std::string>& routine_bases() {
  static const std::unordered_set<std::string> kBases = {
      "gemm", "gemv", "ger", "geru", "gerc", "syrk", "syr2k", "herk", "her2k", "trsm", "trmm", "trsv", "trmv", "symm",
      "symv", "hemm", "hemv", "axpy", "scal", "copy", "swap", "dot", "dotu", "dotc", "nrm2", "asum", "rot", "rotg",
      "gesdd", "gesvd", "gesvdx", "gejsv", "gelsd", "gelsy", "gelss", "gels", "gesv", "getrf", "getrs", "getri",
      "getf2", "potrf", "potrs", "potri", "potf2", "syev", "syevd", "syevr", "syevx", "heev", "heevd", "heevr", "heevx",
      "geev", "geevx", "geqrf", "geqp3", "gerqf", "orgqr", "ungqr", "ormqr", "unmqr", "lascl", "lange", "lansy",
      "trtrs", "trtri", "gebrd", "bdsqr", "bdsdc", "sytrf", "sytrs", "hetrf", "posv", "sysv", "hesv", "gbsv", "gtsv",
      "ggev", "gges", "sygv", "hegv", "larfg", "lartg",
      // what the recorded drivers call inside, and SciPy's other wrappers: their XERBLA lines
      "sygvd", "hegvd", "sygvx", "hegvx", "gehrd", "gebal", "gebak", "hseqr", "orghr", "unghr", "tgsen", "trsen",
      "gees", "geesx", "ggesx", "ggevx", "hgeqz", "gghrd", "tgevc", "trevc", "trsyl", "gecon", "pocon", "sycon",
      "stedc", "steqr", "sterf", "stemr", "sytrd", "hetrd", "orgtr", "ungtr", "ormtr", "unmtr", "gelqf", "orglq",
      "unglq", "gerqf", "orgrq", "laswp", "larfb", "larft", "lacpy", "laset", "gesvj", "pstrf", "sytrs", "hetrs"};
  return kBases;
}

}  // namespace

std::string routine_base(std::string_view word) {
  std::string w = lower(word);
  bool cublas = false;
  for (const char* prefix : {"cublaslt", "cublas", "cusolverdn"}) {
    if (w.starts_with(prefix)) {
      w.erase(0, std::string_view(prefix).size());
      cublas = true;
      break;
    }
  }
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const char* suffix : {"_v2", "_64", "stridedbatched", "batched", "ex"}) {
      const std::string_view s(suffix);
      if (w.size() > s.size() + 3 && w.ends_with(s)) w.resize(w.size() - s.size()), stripped = true;
    }
  }
  static const std::unordered_set<std::string> kNeedLetter = {"ger", "geru", "gerc", "axpy", "scal", "copy", "swap",
                                                              "dot", "dotu", "dotc", "nrm2", "asum", "rot",  "rotg"};
  const auto& bases = routine_bases();
  if (bases.contains(w) && (cublas || !kNeedLetter.contains(w))) return w;
  const std::string_view letters = cublas ? "sdczh" : "sdcz";
  if (w.size() > 3 && letters.find(w[0]) != std::string_view::npos && bases.contains(w.substr(1))) return w.substr(1);
  return {};
}

namespace {

// "CUBLAS_STATUS" for CUBLAS_STATUS_EXECUTION_FAILED, "cudaError" for cudaErrorIllegalAddress, or "".
std::string status_family(std::string_view w) {
  if (w.starts_with("cudaError") && w.size() > 9) return "cudaError";
  for (const std::string_view marker : {"_STATUS_", "_ERROR_"}) {
    const auto at = w.find(marker);
    if (at == std::string_view::npos || at == 0 || at + marker.size() >= w.size()) continue;
    const bool upper = std::all_of(w.begin(), w.end(), [](char c) { return !(c >= 'a' && c <= 'z'); });
    if (upper) return std::string(w.substr(0, at + marker.size() - 1));
  }
  return {};
}

bool is_exception_name(std::string_view word) {
  const std::string w = lower(word);
  if (w == "error") return true;
  for (const char* end : {"error", "exception", "warning", "interrupt"}) {
    if (w.size() > std::string_view(end).size() && w.ends_with(end)) return true;
  }
  return false;
}

// Words that name the number after them; anything else leaves a number unreported.
bool names_a_value(const std::string& w) {
  static const std::unordered_set<std::string> kNames = {
      "parameter", "argument", "arg",    "operand", "dimension", "dim",   "size", "code",  "info",
      "order",     "element",  "lda",    "ldb",     "ldc",       "lwork", "m",    "n",     "k",
      "rank",      "device",   "output", "input",   "minor",     "index", "axis", "batch", "signal"};
  return kNames.contains(w);
}

bool is_linking_word(const std::string& w) {
  static const std::unordered_set<std::string> kWords = {"from", "than", "to", "is", "was", "and", "but", "got", "vs"};
  return kWords.contains(w);
}

double literal_weight(const ErrorPattern::Element& e) {
  if (!is_word_char(e.text.front())) return 0.15;
  return e.text.size() >= 8 ? 1.5 : 1.0;
}

bool is_word_literal(const ErrorPattern::Element& e) {
  return e.part == Part::Literal && is_alpha(e.text.front() == '_' && e.text.size() > 1 ? e.text[1] : e.text.front());
}

// The name of the dotted exception ending at tokens[end - 1] ("numpy.linalg.LinAlgError"), and
// where it begins; nullopt when tokens[..end) does not end in one.
std::optional<std::pair<std::size_t, std::string>> exception_before(const std::vector<TextToken>& tokens,
                                                                    std::size_t end) {
  if (end == 0 || tokens[end - 1].kind != Kind::Word || !is_exception_name(tokens[end - 1].text)) return std::nullopt;
  std::size_t begin = end - 1;
  while (begin >= 2 && tokens[begin - 1].text == "." && tokens[begin - 2].kind == Kind::Word) begin -= 2;
  const char* first = tokens[begin].text.data();
  const char* last = tokens[end - 1].text.data() + tokens[end - 1].text.size();
  return std::pair{begin, std::string(first, static_cast<std::size_t>(last - first))};
}

std::string exception_key(std::string_view name) {
  std::string w = lower(name.substr(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1));
  while (!w.empty() && w.front() == '_') w.erase(0, 1);
  return w;
}

std::string shape_digits(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (is_digit(c))
      out += c;
    else if (!out.empty() && out.back() != ',')
      out += ',';
  }
  while (!out.empty() && out.back() == ',') out.pop_back();
  return out;
}

}  // namespace

std::vector<TextToken> tokenize_line(std::string_view s) {
  std::vector<TextToken> tokens;
  std::size_t i = 0;
  auto push = [&](Kind kind, std::size_t begin, std::size_t end) {
    tokens.push_back({kind, s.substr(begin, end - begin)});
  };
  while (i < s.size()) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '\x1b') {  // ANSI escape: ESC [ parameters final-byte
      i += 2;
      if (i - 1 < s.size() && s[i - 1] == '[') {
        while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
        ++i;
      }
    } else if (u <= ' ' || u >= 0x7f || c == '\'' || c == '"' || c == '`') {
      ++i;
    } else if (c == '0' && i + 2 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X') && is_hex(s[i + 2])) {
      std::size_t j = i + 2;
      while (j < s.size() && is_hex(s[j])) ++j;
      push(Kind::Address, i, j);
      i = j;
    } else if (is_digit(c) || (c == '-' && i + 1 < s.size() && is_digit(s[i + 1]) &&
                               (i == 0 || !(is_word_char(s[i - 1]) || s[i - 1] == ')')))) {
      std::size_t j = number_end(s, i);
      if (j + 1 < s.size() && s[j] == '.' && s[j + 1] == ' ') {  // NumPy's "512. MiB"
        std::size_t w = j + 2;
        while (w < s.size() && is_alpha(s[w])) ++w;
        if (is_unit(lower(s.substr(j + 2, w - j - 2)))) ++j;
      }
      std::size_t k = j;
      while (k < s.size() && is_word_char(s[k])) ++k;
      const std::string tail = lower(s.substr(j, k - j));
      if (k == j) {
        push(Kind::Number, i, j);
      } else if (c != '-' && (tail == "st" || tail == "nd" || tail == "rd" || tail == "th")) {
        push(Kind::Ordinal, i, j);
      } else if (c != '-' && tail.size() >= 2 && tail[0] == 'x' &&
                 std::all_of(tail.begin() + 1, tail.end(), [](char d) { return is_digit(d) || d == 'x'; })) {
        push(Kind::Shape, i, k);  // 2x3, 4x5x6
      } else {
        push(Kind::Word, i, k);
      }
      i = k;
    } else if (is_word_char(c)) {
      std::size_t j = i;
      while (j < s.size() && is_word_char(s[j])) ++j;
      push(Kind::Word, i, j);
      i = j;
    } else if ((c == '(' || c == '[') && shape_end(s, i) != i) {
      const std::size_t j = shape_end(s, i);
      push(Kind::Shape, i, j);
      i = j;
    } else {
      push(Kind::Punct, i, i + 1);
      ++i;
    }
  }
  return tokens;
}

std::optional<ErrorPattern> compile_error_pattern(std::string_view example) {
  ErrorPattern p;
  p.example = std::string(example);
  std::vector<TextToken> tokens = tokenize_line(example);
  // An optional exception name first ("numpy.linalg.LinAlgError:").
  std::size_t first = 0;
  for (std::size_t i = 0; i + 1 < tokens.size() && i < 12; ++i) {
    if (tokens[i + 1].text != ":") continue;
    const auto name = exception_before(tokens, i + 1);
    if (name && name->first == 0) p.exception = exception_key(name->second), first = i + 2;
    break;
  }
  std::vector<ErrorPattern::Element> elements;
  auto build = [&](std::size_t from) {
    elements.clear();
    for (std::size_t i = from; i < tokens.size(); ++i) {
      const TextToken& t = tokens[i];
      ErrorPattern::Element e{Part::Literal, lower(t.text), {}};
      if (t.text == "." && i + 2 < tokens.size() && tokens[i + 1].text == "." && tokens[i + 2].text == ".") {
        e.part = Part::Gap, i += 2;
      } else if (t.kind == Kind::Number) {
        e.part = Part::Number, e.text = t.text;
      } else if (t.kind == Kind::Ordinal) {
        e.part = Part::Ordinal, e.text = t.text;
      } else if (t.kind == Kind::Shape) {
        e.part = Part::Shape, e.text = t.text, e.name = "shape";
      } else if (t.kind == Kind::Address) {
        e.part = Part::Address, e.text = t.text, e.name = "address";
      } else if (t.kind == Kind::Word) {
        if (!status_family(t.text).empty())
          e.part = Part::Status, e.text = t.text, e.name = "status";
        else if (!routine_base(t.text).empty())
          e.part = Part::Routine, e.text = t.text, e.name = "routine";
        else if (dtype_names().contains(e.text))
          e.part = Part::Dtype, e.text = t.text, e.name = "dtype";
        else if (is_unit(e.text) && !elements.empty() && elements.back().part == Part::Number)
          e.part = Part::Unit, e.text = t.text;
      }
      elements.push_back(std::move(e));
    }
    // Leading and trailing punctuation (" ** ", a final ".") and gaps say nothing.
    auto edge = [](const ErrorPattern::Element& e) {
      return e.part == Part::Gap || (e.part == Part::Literal && !is_word_char(e.text.front()));
    };
    while (!elements.empty() && edge(elements.back())) elements.pop_back();
    const auto lead = std::find_if_not(elements.begin(), elements.end(), edge);
    elements.erase(elements.begin(), lead);
  };
  auto strong = [&] {
    const auto words = std::count_if(elements.begin(), elements.end(), is_word_literal);
    const bool names_call = std::any_of(elements.begin(), elements.end(), [](const auto& e) {
      return e.part == Part::Status || e.part == Part::Routine;
    });
    return words >= 3 || names_call;
  };
  build(first);
  if (!p.exception.empty() && !strong()) {  // too short without its exception name: keep it
    p.exception.clear();
    build(0);
  }
  if (elements.empty()) return std::nullopt;
  p.whole_line = !strong();

  // Value names: a number is named by the word before it ("parameter number 12", "INFO = -4",
  // "size 3 is different from 4" -> size, size_2); an ordinal by the word after ("4th argument").
  std::map<std::string, int> uses;
  std::string last_number_name;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    auto& e = elements[i];
    if (e.part == Part::Number) {
      std::size_t j = i;
      if (j > 0 && (elements[j - 1].text == ":" || elements[j - 1].text == "=" || elements[j - 1].text == "#")) --j;
      if (j > 1 && (elements[j - 1].text == "number" || elements[j - 1].text == "no")) --j;
      const std::string before = j > 0 && elements[j - 1].part == Part::Literal ? elements[j - 1].text : "";
      if (names_a_value(before))
        e.name = before;
      else if (is_linking_word(before))
        e.name = last_number_name;
      if (e.name.empty() && i + 1 < elements.size() && elements[i + 1].part == Part::Unit) e.name = "size";
      if (!e.name.empty()) last_number_name = e.name;
    } else if (e.part == Part::Ordinal && i + 1 < elements.size() && names_a_value(elements[i + 1].text)) {
      e.name = elements[i + 1].text;
    }
  }
  for (auto& e : elements) {
    if (e.name.empty()) continue;
    const int n = ++uses[e.name];
    if (n > 1) e.name += "_" + std::to_string(n);
  }

  // Specificity: what must be there, literally; the anchor: the longest word before any gap.
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto& e = elements[i];
    p.specificity += e.part == Part::Literal ? literal_weight(e) : e.part == Part::Gap ? 0.0 : 0.6;
  }
  const auto gap = std::find_if(elements.begin(), elements.end(), [](const auto& e) { return e.part == Part::Gap; });
  auto rank = [](const ErrorPattern::Element& e) -> std::size_t {
    if (is_word_literal(e)) return 100 + e.text.size();
    if (e.part == Part::Status) return 90;
    if (e.part == Part::Routine) return 80;
    if (e.part == Part::Gap) return 0;
    return e.part == Part::Literal ? 1 : 10;
  };
  std::size_t best = 0;
  for (auto it = elements.begin(); it != gap; ++it) {
    if (rank(*it) > best) best = rank(*it), p.anchor = static_cast<int>(it - elements.begin());
  }
  p.elements = std::move(elements);
  if (p.anchor < 0) return std::nullopt;
  return p;
}

std::string pattern_key(const ErrorPattern& pattern) {
  std::string key = pattern.whole_line ? "^" : "";
  for (const auto& e : pattern.elements) {
    const bool slot = e.part != Part::Literal;
    key.append(slot ? "<" : "").append(slot ? lower(e.text) : e.text).append(slot ? "> " : " ");
  }
  return key;
}

std::vector<std::string> token_keys(const TextToken& token) {
  switch (token.kind) {
    case Kind::Number: return {"<number>"};
    case Kind::Ordinal: return {"<ordinal>"};
    case Kind::Shape: return {"<shape>"};
    case Kind::Address: return {"<address>"};
    case Kind::Punct: return {std::string(token.text)};
    case Kind::Word: break;
  }
  std::vector<std::string> keys{lower(token.text)};
  if (const auto family = status_family(token.text); !family.empty()) keys.push_back("<status:" + family + ">");
  if (!routine_base(token.text).empty()) keys.push_back("<routine>");
  if (dtype_names().contains(keys.front())) keys.push_back("<dtype>");
  if (is_unit(keys.front())) keys.push_back("<unit>");
  return keys;
}

std::string anchor_key(const ErrorPattern& pattern) {
  const auto& e = pattern.elements[static_cast<std::size_t>(pattern.anchor)];
  switch (e.part) {
    case Part::Literal: return e.text;
    case Part::Number: return "<number>";
    case Part::Ordinal: return "<ordinal>";
    case Part::Unit: return "<unit>";
    case Part::Shape: return "<shape>";
    case Part::Routine: return "<routine>";
    case Part::Status: return "<status:" + status_family(e.text) + ">";
    case Part::Dtype: return "<dtype>";
    case Part::Address: return "<address>";
    case Part::Gap: break;
  }
  return {};
}

namespace {

constexpr std::size_t kMaxGap = 40;  // tokens a "..." in an example may stand for

// How well token t fills element e: nullopt when it cannot; else the bonus for an equal value.
std::optional<double> fill(const ErrorPattern::Element& e, const TextToken& t) {
  switch (e.part) {
    case Part::Literal:
      return (t.kind == Kind::Word || t.kind == Kind::Punct) && lower(t.text) == e.text ? std::optional(0.0)
                                                                                        : std::nullopt;
    case Part::Number:
    case Part::Ordinal:
      if (t.kind != (e.part == Part::Number ? Kind::Number : Kind::Ordinal)) return std::nullopt;
      return t.text == e.text ? 0.4 : 0.0;
    case Part::Address: return t.kind == Kind::Address ? std::optional(0.0) : std::nullopt;
    case Part::Shape:
      if (t.kind != Kind::Shape) return std::nullopt;
      return shape_digits(t.text) == shape_digits(e.text) ? 0.4 : 0.0;
    case Part::Gap: return std::nullopt;
    default: break;
  }
  if (t.kind != Kind::Word) return std::nullopt;
  const std::string w = lower(t.text), example = lower(e.text);
  switch (e.part) {
    case Part::Unit: return is_unit(w) ? std::optional(w == example ? 0.2 : 0.0) : std::nullopt;
    case Part::Dtype: return dtype_names().contains(w) ? std::optional(w == example ? 0.4 : 0.0) : std::nullopt;
    case Part::Status:
      if (status_family(t.text) != status_family(e.text)) return std::nullopt;
      return w == example ? 1.5 : 0.0;
    case Part::Routine: {
      const std::string base = routine_base(t.text);
      if (base.empty()) return std::nullopt;
      return w == example ? 1.5 : base == routine_base(e.text) ? 1.0 : 0.0;
    }
    default: return std::nullopt;
  }
}

struct Walk {
  const ErrorPattern& p;
  const std::vector<TextToken>& tokens;
  std::vector<std::size_t> at;  // the token each element took (gaps: where the gap began)
  double bonus = 0;
  std::size_t other_routines = 0;  // routine slots filled with another routine than the example's

  // Matches elements[e..] from tokens[t..]; fills `at`; returns the end token.
  std::optional<std::size_t> from(std::size_t e, std::size_t t) {
    if (e == p.elements.size()) return t;
    const auto& element = p.elements[e];
    at[e] = t;
    if (element.part == Part::Gap) {
      for (std::size_t skip = 0; skip <= kMaxGap && t + skip <= tokens.size(); ++skip) {
        const double saved = bonus;
        const std::size_t saved_routines = other_routines;
        if (auto end = from(e + 1, t + skip)) return end;
        bonus = saved, other_routines = saved_routines;
      }
      return std::nullopt;
    }
    if (t >= tokens.size()) return std::nullopt;
    const auto filled = fill(element, tokens[t]);
    if (!filled) return std::nullopt;
    bonus += *filled;
    if (element.part == Part::Routine && *filled == 0.0) ++other_routines;
    return from(e + 1, t + 1);
  }
};

bool is_punct(const TextToken& t) {
  return t.kind == Kind::Punct;
}

}  // namespace

std::optional<PatternMatch> match_error_pattern(const ErrorPattern& p, const std::vector<TextToken>& tokens,
                                                std::size_t anchor_at) {
  const auto anchor = static_cast<std::size_t>(p.anchor);
  if (anchor_at < anchor) return std::nullopt;
  const std::size_t start = anchor_at - anchor;
  Walk walk{p, tokens, std::vector<std::size_t>(p.elements.size()), 0, 0};
  const auto end = walk.from(0, start);
  if (!end) return std::nullopt;
  PatternMatch m;
  m.score = p.specificity + walk.bonus;
  m.other_routines = walk.other_routines;
  std::size_t begin = start;
  if (const auto name =
          start >= 1 && tokens[start - 1].text == ":" ? exception_before(tokens, start - 1) : std::nullopt) {
    m.values.emplace_back("exception", name->second);
    if (!p.exception.empty() && exception_key(name->second) == p.exception) m.score += 1.0;
    begin = name->first;
  }
  m.begin = begin, m.end = *end;
  if (p.whole_line) {
    const auto first = std::find_if_not(tokens.begin(), tokens.end(), is_punct) - tokens.begin();
    const auto last = tokens.rend() - std::find_if_not(tokens.rbegin(), tokens.rend(), is_punct);
    if (static_cast<std::ptrdiff_t>(begin) != first || static_cast<std::ptrdiff_t>(*end) != last) return std::nullopt;
  }
  for (std::size_t e = 0; e < p.elements.size(); ++e) {
    const auto& element = p.elements[e];
    if (element.name.empty()) continue;
    std::string value(tokens[walk.at[e]].text);
    if (e + 1 < p.elements.size() && p.elements[e + 1].part == Part::Unit)
      value += " " + std::string(tokens[walk.at[e + 1]].text);
    m.values.emplace_back(element.name, std::move(value));
  }
  return m;
}

}  // namespace blasscope::core
