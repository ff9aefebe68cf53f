#include "report/html_page.h"

#include <map>

#include "report/markdown_html.h"
#include "text/format.h"

namespace blasscope::core {

void html_page_start(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escape_html(title)
      << "</title>\n<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;"
      << "line-height:1.4}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
      << ".error{color:#b00020}.warning{color:#9a6700}.info{color:#0b57d0}code,pre{background:#f4f4f4}</style>"
      << "</head><body>\n<h1>" << escape_html(title) << "</h1>\n";
}

void html_page_end(std::ostream& out) {
  out << "</body></html>\n";
}

void html_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  out << "<table>";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out << "<tr>";
    for (const auto& cell : rows[i]) out << (i ? "<td>" : "<th>") << escape_html(cell) << (i ? "</td>" : "</th>");
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void html_diagnoses(std::ostream& out, const std::vector<Diagnosis>& diagnoses) {
  out << "<h2>Diagnoses</h2>\n";
  if (diagnoses.empty()) out << "<p>None: nothing to report.</p>\n";
  // A cause and fix told once: later diagnoses with the same link to the first.
  std::map<std::pair<std::string, std::string>, std::size_t> explained;
  for (std::size_t i = 0; i < diagnoses.size(); ++i) {
    const Diagnosis& d = diagnoses[i];
    const std::string severity(name(d.severity));
    out << "<h3 class=\"" << severity << "\" id=\"d" << i + 1 << "\">" << i + 1 << ". " << severity << ": "
        << escape_html(d.title) << " (<code>" << escape_html(d.id) << "</code>)</h3>\n<h4>Evidence</h4><ul>";
    for (const auto& e : d.evidence) out << "<li>" << escape_html(e) << "</li>";
    out << "</ul>\n";
    std::string seen;
    for (const auto& s : d.seen_as) seen += s + '\n';
    const auto [first, added] = explained.emplace(std::make_pair(d.cause, d.fix + '\n' + seen), i + 1);
    if (!added) {
      out << "<p>Cause, fix and how it is seen: as for <a href=\"#d" << first->second << "\">" << first->second
          << "</a> above.</p>\n";
      continue;
    }
    out << "<h4>Cause</h4>\n"
        << markdown_to_html(d.cause) << "<h4>Fix</h4>\n"
        << markdown_to_html(d.fix) << "<h4>Seen as</h4><ul>";
    for (const auto& s : d.seen_as) out << "<li><code>" << escape_html(s) << "</code></li>";
    out << "</ul>\n";
  }
}

}  // namespace blasscope::core
