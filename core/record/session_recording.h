#pragma once

// Recording a program straight into session files: the program's session, and one per child
// process that made a recorded call (named by host and pid, listed in the program's). Calls
// are written as the recorder drains them, so when the program ends only the totals are left
// to write. The CLI's `record` and the GUI's Record dialog both record this way.
#include <string>
#include <vector>

#include "record/recording.h"

namespace blasscope::record {

struct SessionOptions {
  std::string output;  // the session file; "" : FOLDER/blasscope-record-HOST-PID.json
  std::string folder;  // for a session without a name ("" : the recorder's working directory)
};

struct SavedRecording {
  Recording recording;                    // children lists the child sessions written
  std::string session;                    // the program's session file, "" when not written
  std::string error;                      // why it was not written
  std::vector<std::string> child_errors;  // child sessions that could not be written, and why
};

// Runs record_program with `options` (its on_calls still called) and writes the sessions, with
// what the recorder found of the machine once the program ended (OpenBLAS's kernels, the peak:
// measured then, not while the program runs, so as not to take a core from it). No session is
// written for a command that never started (recording.pid == 0).
SavedRecording record_to_session(RecordOptions options, const SessionOptions& session);

}  // namespace blasscope::record
