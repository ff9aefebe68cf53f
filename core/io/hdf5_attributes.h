#pragma once

#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/hdf5_object_header.h"

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

  // `vlen_problem` is asked (once) before the first variable-length string is read: a reason
  // not to let libhdf5 decode the file's global heap (io/hdf5_global_heap.h), or nullopt.
  explicit Hdf5AttributeReader(std::function<std::optional<std::string>()> vlen_problem)
      : m_vlen_problem(std::move(vlen_problem)) {}

  // Appends "KEY_PREFIX@NAME" (just NAME for the root, KEY_PREFIX "") for each attribute of
  // `object`, in name order. `header` is its checked object header (io/hdf5_object_header.h).
  void read_all(hid_t object, const Hdf5ObjectHeader& header, const std::string& key_prefix,
                std::vector<std::pair<std::string, std::string>>& out);

 private:
  void read_one(const std::string& name, std::string value, const std::string& key_prefix,
                std::vector<std::pair<std::string, std::string>>& out);
  std::string value_text(hid_t attribute);
  const std::optional<std::string>& vlen_problem();
  std::uint64_t m_used = 0;
  std::function<std::optional<std::string>()> m_vlen_problem;
  std::optional<std::optional<std::string>> m_vlen_checked;
};

}  // namespace blasscope::core
