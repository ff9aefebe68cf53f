#include "report/markdown_html.h"

#include <sstream>
#include <string_view>
#include <vector>

#include "text/format.h"

namespace blasscope::core {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// `code` and **bold**, the rest escaped. A marker without its closing one is text.
std::string inline_html(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '`') {
      const std::size_t end = text.find('`', i + 1);
      if (end != std::string_view::npos) {
        out += "<code>" + escape_html(std::string(text.substr(i + 1, end - i - 1))) + "</code>";
        i = end + 1;
        continue;
      }
    } else if (text.substr(i, 2) == "**") {
      const std::size_t end = text.find("**", i + 2);
      if (end != std::string_view::npos && end > i + 2) {
        out += "<strong>" + inline_html(text.substr(i + 2, end - i - 2)) + "</strong>";
        i = end + 2;
        continue;
      }
    }
    out += escape_html(std::string(1, text[i]));
    ++i;
  }
  return out;
}

std::vector<std::string_view> table_cells(std::string_view row) {
  row = trimmed(row);
  if (!row.empty() && row.front() == '|') row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') row.remove_suffix(1);
  std::vector<std::string_view> cells;
  for (std::size_t at = 0;;) {
    const std::size_t bar = row.find('|', at);
    cells.push_back(trimmed(row.substr(at, bar == std::string_view::npos ? std::string_view::npos : bar - at)));
    if (bar == std::string_view::npos) return cells;
    at = bar + 1;
  }
}

bool is_separator_row(std::string_view row) {
  row = trimmed(row);
  return !row.empty() && row.find_first_not_of("|-: ") == std::string_view::npos && row.find('-') != row.npos;
}

void table_html(std::ostringstream& out, const std::vector<std::string_view>& rows) {
  out << "<table>";
  bool header = rows.size() > 1 && is_separator_row(rows[1]);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r == 1 && header) continue;
    const char* cell = header && r == 0 ? "th" : "td";
    out << "<tr>";
    for (const std::string_view c : table_cells(rows[r]))
      out << '<' << cell << '>' << inline_html(c) << "</" << cell << '>';
    out << "</tr>";
  }
  out << "</table>\n";
}

}  // namespace

std::string markdown_to_html(const std::string& markdown) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= markdown.size();) {
    const std::size_t end = std::min(markdown.find('\n', at), markdown.size());
    lines.push_back(std::string_view(markdown).substr(at, end - at));
    at = end + 1;
  }
  std::ostringstream out;
  for (std::size_t i = 0; i < lines.size();) {
    const std::string_view line = trimmed(lines[i]);
    if (line.empty()) {
      ++i;
    } else if (line.front() == '|') {
      std::vector<std::string_view> rows;
      while (i < lines.size() && !trimmed(lines[i]).empty() && trimmed(lines[i]).front() == '|')
        rows.push_back(lines[i++]);
      table_html(out, rows);
    } else if (line.starts_with("- ") || line.starts_with("* ")) {
      // An item runs on over indented lines until the next item or a blank line.
      out << "<ul>";
      while (i < lines.size() && (trimmed(lines[i]).starts_with("- ") || trimmed(lines[i]).starts_with("* "))) {
        std::string item(trimmed(lines[i++]).substr(2));
        while (i < lines.size() && !trimmed(lines[i]).empty() &&
               (lines[i].front() == ' ' || lines[i].front() == '\t') && !trimmed(lines[i]).starts_with("- ") &&
               !trimmed(lines[i]).starts_with("* ")) {
          item += ' ';
          item += trimmed(lines[i++]);
        }
        out << "<li>" << inline_html(item) << "</li>";
      }
      out << "</ul>\n";
    } else {
      std::string paragraph;
      while (i < lines.size() && !trimmed(lines[i]).empty() && trimmed(lines[i]).front() != '|' &&
             !trimmed(lines[i]).starts_with("- ") && !trimmed(lines[i]).starts_with("* ")) {
        if (!paragraph.empty()) paragraph += ' ';
        paragraph += trimmed(lines[i++]);
      }
      out << "<p>" << inline_html(paragraph) << "</p>\n";
    }
  }
  return out.str();
}

}  // namespace blasscope::core
