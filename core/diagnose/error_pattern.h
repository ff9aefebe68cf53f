#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blasscope::core {

// One token of a line of text. Words, numbers and punctuation are split apart; quotes and
// backticks are dropped (messages quote names differently from one version to the next).
struct TextToken {
  enum class Kind { Word, Number, Ordinal, Shape, Address, Punct };
  Kind kind = Kind::Word;
  std::string_view text;  // as written ("4th", "(2, 3)", "0x7f00"); Ordinal: its digits
};

// Splits one line (no newline) into tokens; views into `line`. ANSI colour codes are skipped;
// bytes outside printable ASCII separate tokens.
std::vector<TextToken> tokenize_line(std::string_view line);

// An error text from a page's `## Seen as` list, compiled so that its variable parts match any
// value of their kind: numbers, ordinals ("4th"), shapes ("(2,3)", "[2,3]", "2x3"), BLAS/LAPACK
// routine names with any precision letter, cuBLAS/CUDA status names, dtype names, sizes with a
// unit and addresses. Everything else must be there, in order, ignoring case and spacing.
struct ErrorPattern {
  enum class Part { Literal, Number, Ordinal, Unit, Shape, Routine, Status, Dtype, Address, Gap };
  struct Element {
    Part part = Part::Literal;
    std::string text;  // Literal: lower case; a slot: the example's value
    std::string name;  // a slot's value name in a match ("routine", "parameter", ...); "" = unreported
  };
  std::string example;            // the Seen-as text it was made from
  std::string exception;          // "valueerror" for "ValueError: ...": optional before the rest
  std::vector<Element> elements;  // what must match, after the exception name
  bool whole_line = false;        // too short to be told apart from prose: must be the whole line
  double specificity = 0;         // what a match scores before its values are compared
  int anchor = -1;                // the element looked up first (a literal word or a slot)
};

// Compiles an example; nullopt when it holds nothing to match (empty, or only punctuation).
std::optional<ErrorPattern> compile_error_pattern(std::string_view example);

// The normalised form two examples share when they are the same text apart from an optional
// exception name, spacing, case and quoting: used to tell texts listed on several pages.
std::string pattern_key(const ErrorPattern& pattern);

struct PatternMatch {
  double score = 0;                // specificity, plus a bonus for every value equal to the example's
  std::size_t begin = 0, end = 0;  // the tokens it covers, the exception name included
  std::size_t other_routines = 0;  // routine slots that took a routine of another base
  std::vector<std::pair<std::string, std::string>> values;  // name, value as written
};

// Tries the pattern with its anchor element on tokens[at]; nullopt when it does not match there.
std::optional<PatternMatch> match_error_pattern(const ErrorPattern& pattern, const std::vector<TextToken>& tokens,
                                                std::size_t at);

// The BLAS/LAPACK routine a word names, without precision letter or cuBLAS decoration ("gesdd"
// for "SGESDD", "gemm" for "cublasSgemm_v2"); "" for any other word.
std::string routine_base(std::string_view word);

// The lookup keys of a line token: its lower-case text, and "<routine>", "<status:FAMILY>",
// "<dtype>", "<number>" ... for what a slot of that kind accepts.
std::vector<std::string> token_keys(const TextToken& token);
// The key of a pattern's anchor element (one of token_keys of any token it matches).
std::string anchor_key(const ErrorPattern& pattern);

}  // namespace blasscope::core
