#pragma once

#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "record/recording.h"
#include "text/json.h"

namespace blasscope::core {

// `blasscope-cli report RECORDING --format json`: kind, command, exit_status, routines
// (exact per-routine aggregates), calls (seq, thread, routine, dtype, sizes, seconds, info,
// parent), diagnoses (each naming its call), captures, crash.
nlohmann::json recording_report_json(const record::Recording& recording, const std::vector<Diagnosis>& diagnoses,
                                     bool with_calls = true);
// The same report as indented JSON text, its calls written directly (one per line).
std::string recording_report_json_text(const record::Recording& recording, const std::vector<Diagnosis>& diagnoses);

// How the program ended: "exit status 0", "exit status 124 (stopped by --timeout after 5 s)";
// for a child process, how its preload saw it end ("stopped by the recorder with the program").
std::string recording_status_text(const record::Recording& recording);

// The per-routine table and the diagnoses, as the recorder prints them on stderr.
std::string recording_summary(const record::Recording& recording, const std::vector<Diagnosis>& diagnoses);

std::string recording_markdown(const record::Recording& recording, const std::vector<Diagnosis>& diagnoses);
std::string recording_html(const record::Recording& recording, const std::vector<Diagnosis>& diagnoses);

}  // namespace blasscope::core
