#pragma once

#include <QString>
#include <map>
#include <memory>
#include <optional>

#include "analysis/inspect_report.h"
#include "diagnose/diagnosis.h"
#include "plan/workload_plan.h"
#include "record/recording.h"
#include "results/run_result.h"
#include "tensor/host_tensor.h"
#include "tensor_values.h"
#include "workload/workload.h"

namespace blasscope::ui {

// What the window shows: a tensor file (inspected), or a workload with its last run (or a
// saved session). Views read it; none of them owns it.
struct RunDocument {
  enum class Kind { Empty, TensorFile, Workload, Recording };
  Kind kind = Kind::Empty;
  QString title;
  QString source;  // file path or "scenario:ID"
  std::optional<core::Workload> workload;
  std::optional<core::WorkloadPlan> plan;
  std::optional<core::RunResult> run;  // empty until run (or loaded from a session)
  std::optional<core::InspectReport> inspect;
  std::optional<record::Recording> recording;  // a recorded program (blasscope-cli record)
  std::vector<core::Diagnosis> diagnoses;
  std::shared_ptr<const TensorValues> values;  // histograms etc., computed in the background

  bool hasRun() const { return run.has_value(); }
};

// Values of a document's input tensor: a tensor file's data, or a synthetic tensor made again
// in this process, when small enough. Empty with `why` set otherwise. It reads files and
// makes tensors, so only TensorValuesJob calls it, off the GUI thread.
std::shared_ptr<core::HostTensor> document_tensor_values(const RunDocument& doc, const std::string& name, QString& why);
// The same for one tensor of a file already open (no second open, no second inflation).
std::shared_ptr<core::HostTensor> file_tensor_values(const core::TensorFile& file, const core::TensorInfo& info,
                                                     QString& why);

}  // namespace blasscope::ui
