#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "record/recording.h"
#include "text/json.h"

namespace blasscope::record {

// A recording as a BLAScope session file ("format": "blasscope-session", "kind": "recording").
// Zero and default fields of a call are left out, so a million calls stay a manageable file.
nlohmann::json to_json(const Recording& recording);
nlohmann::json to_json(const Recording& recording, bool with_calls);
nlohmann::json call_to_json(const CallRecord& call, std::uint64_t seq, std::uint64_t start_ns);
// A call that never returned (running when the program ended or was stopped): no `seconds` or
// `info` (a 0 would read as "0 s, succeeded"), but `ran_seconds`, how long it had run.
nlohmann::json running_call_to_json(const Recording& recording, const CallRecord& call);
// Per-routine totals as the session and the JSON report list them.
nlohmann::json routines_to_json(std::span<const RoutineTotal> totals);
// Throws std::invalid_argument naming the field that is wrong.
Recording recording_from_json(const nlohmann::json& session);

// A session file's text read as a recording, the calls streamed straight into records (a
// million-call session in about a second, not the many seconds a JSON tree of it takes).
// Throws nlohmann::json::exception for text that is not JSON, std::invalid_argument for a
// field that is wrong.
Recording parse_recording_text(std::string_view text);

// The fast path of parse_recording_text, for sessions as BLAScope writes them: the calls read
// directly, everything around them parsed as JSON. nullopt for a text of another shape (which
// parse_recording_text then reads with the JSON parser).
std::optional<Recording> read_written_session(std::string_view text);

// A session whose writer was killed before it finished (it ends inside its calls, or with
// `cut_after_calls` anywhere after them): the calls it holds, with totals summed from them and a
// `problem` that says so; nullopt for any other text.
std::optional<Recording> read_unfinished_session(std::string_view text, bool cut_after_calls);

// Whether a parsed session file holds a recording (rather than a run).
bool is_recording_session(const nlohmann::json& session);

}  // namespace blasscope::record
