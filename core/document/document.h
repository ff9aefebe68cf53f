#pragma once

#include <optional>
#include <string>

#include "plan/workload_plan.h"
#include "record/recording.h"
#include "results/run_result.h"
#include "workload/workload.h"

namespace blasscope::core {

// What a path holds: a tensor file (.npy, .npz, safetensors: binary headers; a sharded
// checkpoint's folder or index JSON) or JSON (a workload, or a saved session).
enum class DocumentKind { TensorFile, Workload, Session, Recording };

// A document opened for the CLI and the GUI alike. A tensor file is only recognised (kind
// TensorFile, nothing else filled): its readers map it in the background.
struct Document {
  DocumentKind kind = DocumentKind::Workload;
  std::string source;  // the path, or "scenario:ID"
  std::string title;   // a scenario's title, else the workload's name
  std::optional<Workload> workload;
  std::optional<WorkloadPlan> plan;
  std::optional<RunResult> run;                // sessions
  std::optional<record::Recording> recording;  // recordings of a program (blasscope-cli record)
  std::string workload_file;                   // sessions: the workload they were run from
  std::string rerun_source;                    // what a new run of this document runs ("" when nothing can)
  std::string note;                            // what could not be restored, in words (empty when all was)
};

// A workload file, a built-in scenario ("scenario:ID" or its id) or a session; a session
// reopens with its workload file when that can still be read (else the scenario of its
// name), so views that need the workload's tensors and graph have them. The file is read
// once. Throws InputError for an unreadable or malformed file or an unknown scenario.
Document open_document(const std::string& source);

}  // namespace blasscope::core
