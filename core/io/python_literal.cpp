#include "io/python_literal.h"

#include <cctype>
#include <limits>

#include "io/input_error.h"

namespace blasscope::core {
namespace {

constexpr int kMaxDepth = 32;

class LiteralParser {
 public:
  LiteralParser(std::string_view text, const std::string& context, PyLiteralOptions options)
      : m_text(text), m_context(context), m_options(options) {}

  PyValue parse_document() {
    PyValue value = parse_value(0);
    skip_space();
    if (m_pos != m_text.size()) fail("unexpected text after the literal");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    fail_malformed(m_context + ": " + what + " at character " + std::to_string(m_pos));
  }

  void skip_space() {
    while (m_pos < m_text.size() &&
           (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\t' || m_text[m_pos] == '\r')) {
      ++m_pos;
    }
  }

  bool consume(char c) {
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
      ++m_pos;
      return true;
    }
    return false;
  }

  bool consume_word(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) != word) return false;
    const std::size_t end = m_pos + word.size();
    if (end < m_text.size() && is_identifier_char(m_text[end])) return false;
    m_pos = end;
    return true;
  }

  PyValue parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    skip_space();
    if (m_pos >= m_text.size()) fail("unexpected end of header");
    const char c = m_text[m_pos];
    if (c == '{') return parse_dict(depth);
    if (c == '(') return parse_sequence(depth, ')', PyValue::Type::Tuple);
    if (c == '[') return parse_sequence(depth, ']', PyValue::Type::List);
    if (c == '\'' || c == '"') return parse_string();
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return parse_int();
    PyValue value;
    if (consume_word("True")) {
      value.type = PyValue::Type::Bool;
      value.boolean = true;
    } else if (consume_word("False")) {
      value.type = PyValue::Type::Bool;
    } else if (!consume_word("None")) {
      fail(std::string("unexpected character '") + c + "'");
    }
    return value;
  }

  PyValue parse_dict(int depth) {
    ++m_pos;  // '{'
    PyValue dict;
    dict.type = PyValue::Type::Dict;
    while (!consume('}')) {
      PyValue key = parse_value(depth + 1);
      if (!consume(':')) fail("expected ':' after a dict key");
      PyValue value = parse_value(depth + 1);
      dict.entries.push_back({std::move(key), std::move(value)});
      if (!consume(',')) {
        if (!consume('}')) fail("expected ',' or '}' in a dict");
        break;
      }
    }
    return dict;
  }

  PyValue parse_sequence(int depth, char close, PyValue::Type type) {
    ++m_pos;  // '(' or '['
    PyValue seq;
    seq.type = type;
    bool trailing_comma = false;
    while (!consume(close)) {
      seq.items.push_back(parse_value(depth + 1));
      trailing_comma = consume(',');
      if (!trailing_comma) {
        if (!consume(close)) fail(std::string("expected ',' or '") + close + "'");
        break;
      }
    }
    // Python reads "(3)" as the integer 3, not a tuple.
    if (type == PyValue::Type::Tuple && seq.items.size() == 1 && !trailing_comma) {
      return std::move(seq.items.front());
    }
    return seq;
  }

  PyValue parse_string() {
    const char quote = m_text[m_pos++];
    PyValue value;
    value.type = PyValue::Type::String;
    while (true) {
      if (m_pos >= m_text.size()) fail("unterminated string");
      const char c = m_text[m_pos++];
      if (c == quote) break;
      if (c == '\n') fail("newline inside a string");
      if (c == '\\') {
        if (m_pos >= m_text.size()) fail("unterminated escape");
        const char e = m_text[m_pos++];
        switch (e) {
          case '\\':
          case '\'':
          case '"': value.text += e; break;
          case 'n': value.text += '\n'; break;
          case 't': value.text += '\t'; break;
          default: fail(std::string("unsupported escape '\\") + e + "'");
        }
        continue;
      }
      value.text += c;
    }
    return value;
  }

  PyValue parse_int() {
    PyValue value;
    value.type = PyValue::Type::Int;
    bool negative = false;
    if (m_text[m_pos] == '-' || m_text[m_pos] == '+') negative = m_text[m_pos++] == '-';
    const std::size_t start = m_pos;
    std::uint64_t magnitude = 0;
    while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
      const auto digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
      if (__builtin_mul_overflow(magnitude, 10u, &magnitude) || __builtin_add_overflow(magnitude, digit, &magnitude)) {
        value.integer_overflow = true;
      }
      ++m_pos;
    }
    if (m_pos == start) fail("expected digits");
    if (m_options.python2_long_suffix) consume_long_suffix();
    if (m_pos < m_text.size() && is_identifier_char(m_text[m_pos])) {
      const bool long_suffix = m_text[m_pos] == 'L' && !m_options.python2_long_suffix;
      fail(long_suffix ? "Python 2 long suffix 'L' outside a version 1.0 or 2.0 header" : "expected an integer");
    }
    if (m_pos < m_text.size() && m_text[m_pos] == '.') fail("expected an integer");
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (magnitude > limit + (negative ? 1 : 0)) value.integer_overflow = true;
    if (!value.integer_overflow) {
      if (!negative) {
        value.integer = static_cast<std::int64_t>(magnitude);
      } else if (magnitude != 0) {
        value.integer = -static_cast<std::int64_t>(magnitude - 1) - 1;  // reaches INT64_MIN
      }
    }
    return value;
  }

  static bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // Python's tokenizer sees `2L` and `2 L` as a number then the name L, which NumPy drops;
  // `2l`, `2LL` and `2L1` leave another name behind and fail, as they do in NumPy.
  void consume_long_suffix() {
    std::size_t at = m_pos;
    while (at < m_text.size() && (m_text[at] == ' ' || m_text[at] == '\t')) ++at;
    if (at < m_text.size() && m_text[at] == 'L' && (at + 1 == m_text.size() || !is_identifier_char(m_text[at + 1]))) {
      m_pos = at + 1;
    }
  }

  std::string_view m_text;
  const std::string& m_context;
  PyLiteralOptions m_options;
  std::size_t m_pos = 0;
};

}  // namespace

std::string_view PyValue::type_name() const {
  switch (type) {
    case Type::None: return "None";
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::String: return "str";
    case Type::Tuple: return "tuple";
    case Type::List: return "list";
    case Type::Dict: break;
  }
  return "dict";
}

PyValue parse_python_literal(std::string_view text, const std::string& context, PyLiteralOptions options) {
  return LiteralParser(text, context, options).parse_document();
}

}  // namespace blasscope::core
