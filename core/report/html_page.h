#pragma once

// The parts both HTML reports (a run's and a recording's) share: a standalone page (no scripts,
// no external resources), tables, and the diagnoses with their evidence, cause, fix and texts.
#include <ostream>
#include <string>
#include <vector>

#include "diagnose/diagnosis.h"

namespace blasscope::core {

// <!DOCTYPE html> ... <body><h1>TITLE</h1>, escaped; close with html_page_end.
void html_page_start(std::ostream& out, const std::string& title);
void html_page_end(std::ostream& out);
// A table whose first row is the header; cells escaped.
void html_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows);
// "Diagnoses" and each one in full; "None" when there are none.
void html_diagnoses(std::ostream& out, const std::vector<Diagnosis>& diagnoses);

}  // namespace blasscope::core
