#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blasscope::core {

// The subset of Python literals NumPy writes in a .npy header: dicts, tuples, lists,
// strings, integers, True/False/None. Parsed without evaluating anything.
struct PyValue {
  enum class Type { None, Bool, Int, String, Tuple, List, Dict };
  Type type = Type::None;
  bool boolean = false;
  std::int64_t integer = 0;
  bool integer_overflow = false;  // literal did not fit in int64
  std::string text;
  std::vector<PyValue> items;                        // Tuple, List
  std::vector<std::pair<PyValue, PyValue>> entries;  // Dict

  std::string_view type_name() const;
};

// Throws InputError(Malformed) with `context` and the position of the problem.
PyValue parse_python_literal(std::string_view text, const std::string& context);

}  // namespace blasscope::core
