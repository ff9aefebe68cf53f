#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace blasscope::core {

// Attribute values as metadata text, paid from one budget for the whole file so a file with
// millions of attributes cannot fill memory. Numbers and strings are shown (arrays as
// "[a, b, ...]", the first kMaxShownValues of them); a value longer than kMaxValueChars
// (a Keras model_config) is cut and ends with a marker saying how long it was.
class Hdf5AttributeReader {
 public:
  static constexpr std::size_t kMaxValueChars = 64 << 10;
  static constexpr std::size_t kMaxShownValues = 64;
  static constexpr std::uint64_t kBudgetChars = 16 << 20;

  // Appends "KEY_PREFIX@NAME" (just NAME for the root, KEY_PREFIX "") for each attribute of `object`.
  void read_all(hid_t object, const std::string& key_prefix, std::vector<std::pair<std::string, std::string>>& out);

 private:
  std::string value_text(hid_t attribute);
  std::uint64_t m_used = 0;
};

}  // namespace blasscope::core
