#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blasscope::core {

struct PyDictEntry;

// The subset of Python literals NumPy writes in a .npy header: dicts, tuples, lists,
// strings, integers, True/False/None. Parsed without evaluating anything.
struct PyValue {
  enum class Type { None, Bool, Int, String, Tuple, List, Dict };
  Type type = Type::None;
  bool boolean = false;
  std::int64_t integer = 0;
  bool integer_overflow = false;  // literal did not fit in int64
  std::string text;
  std::vector<PyValue> items;
  // A named struct rather than std::pair<PyValue, PyValue>: pair needs PyValue complete
  // here, which clang with libstdc++ refuses while PyValue is still being defined.
  std::vector<PyDictEntry> entries;  // Dict

  std::string_view type_name() const;
};

struct PyDictEntry {
  PyValue key;
  PyValue value;
};

struct PyLiteralOptions {
  // Python 2 wrote long integers as `2L`. NumPy (format.py, _filter_header) drops an `L`
  // token that follows a number in version 1.0 and 2.0 headers; only uppercase, and
  // spaces or tabs may separate it from the digits. Off: `2L` is an error.
  bool python2_long_suffix = false;
};

// Throws InputError(Malformed) with `context` and the position of the problem.
PyValue parse_python_literal(std::string_view text, const std::string& context, PyLiteralOptions options = {});

}  // namespace blasscope::core
