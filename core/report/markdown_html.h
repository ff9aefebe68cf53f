#pragma once

// The Markdown the explanation pages are written in (paragraphs, "- " lists, pipe tables,
// `code` and **bold**), as HTML for the reports: left as text, a browser ran a table and a list
// into one paragraph. Everything else is escaped text; no raw HTML passes through.
#include <string>

namespace blasscope::core {

std::string markdown_to_html(const std::string& markdown);

}  // namespace blasscope::core
