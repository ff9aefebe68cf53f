#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

// The bottom layer: formatting that every other layer may use, and that depends on nothing.
namespace blasscope::core {

// "1.5 GiB", "512 B".
std::string format_bytes(std::uint64_t bytes);
// A measured value in evidence text: 4 significant digits ("0.0123", "1.5e+09", "nan").
std::string format_number(double value);
// A duration in the unit that keeps it between 1 and 1000 (ns, us, ms, s), 4 significant digits:
// "12.73 ms", never "1.273e+04 us".
std::string format_duration(double seconds);
// Text made safe inside HTML: <, >, & and " escaped.
std::string escape_html(const std::string& text);
// NumPy's tuple notation: "(3, 4)", "(5,)", "()".
std::string format_shape(const std::vector<std::uint64_t>& shape);
// Replaces bytes that are not valid UTF-8 (names and messages from a malformed file) by
// \xNN escapes, so what reaches a terminal or log is always valid text.
std::string printable_utf8(std::string_view text);
// The same, written to `out` a piece of at most `piece` bytes at a time (never inside a UTF-8
// sequence): a report of a million calls is 240 MB, and a copy of it as much again.
void write_printable_utf8(std::ostream& out, std::string_view text, std::size_t piece = std::size_t{1} << 20);
// One line of text: control characters from a file (a tensor named "a\nfindings: none") are
// written as \n, \r, \t or \xNN, so a name or value cannot fake lines of a report.
std::string one_line(std::string_view text);
// One argument as a shell needs it to read it back (bare where safe, else quoted), and a
// command's arguments so joined: what a user can paste into a terminal.
std::string shell_quoted(const std::string& arg);
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace blasscope::core
