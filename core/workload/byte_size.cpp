#include "workload/byte_size.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace blasscope::core {

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !(value >= 0)) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  constexpr std::array<std::pair<std::string_view, double>, 11> kUnits{{{"", 1.0},
                                                                        {"B", 1.0},
                                                                        {"KiB", 1024.0},
                                                                        {"MiB", 1048576.0},
                                                                        {"GiB", 1073741824.0},
                                                                        {"TiB", 1099511627776.0},
                                                                        {"KB", 1e3},
                                                                        {"MB", 1e6},
                                                                        {"GB", 1e9},
                                                                        {"TB", 1e12},
                                                                        {"kB", 1e3}}};
  for (const auto& [suffix, scale] : kUnits) {
    if (unit == suffix) {
      const double bytes = std::floor(value * scale);
      if (bytes >= 18446744073709551615.0) return std::nullopt;
      return static_cast<std::uint64_t>(bytes);
    }
  }
  return std::nullopt;
}

}  // namespace blasscope::core
