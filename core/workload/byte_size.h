#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace blasscope::core {

// Parses sizes such as "4GiB", "512 MiB", "1.5GB", "100000" (bytes). Binary (KiB, MiB,
// GiB, TiB) and decimal (KB, MB, GB, TB) units; empty on anything else or on overflow.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace blasscope::core
