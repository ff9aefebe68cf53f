#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace blasscope::core {

// Appends rows as left-aligned columns separated by two spaces, indented by two.
void append_table(std::ostringstream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace blasscope::core
