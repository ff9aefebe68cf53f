#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <memory>
#include <stop_token>
#include <string>

#include "analysis/tensor_stats.h"
#include "analysis/value_histogram.h"
#include "background_task.h"

namespace blasscope::ui {

struct RunDocument;

// The values behind the Tensors view, per tensor name: a histogram (sampled), the full
// statistics of a workload's synthetic tensors (a file's come from the loader's scan), or
// why there are none. Computed off the GUI thread: files are mapped and synthetic tensors
// made there, once per document.
struct TensorValues {
  std::map<std::string, core::ValueHistogram> histograms;
  std::map<std::string, core::TensorStats> stats;
  std::map<std::string, std::uint64_t> alignment;  // synthetic tensors: as BLAScope allocates them
  std::map<std::string, QString> why_not;
};

// The computation itself (it reads files: never call it on the GUI thread in the window).
TensorValues compute_tensor_values(const RunDocument& doc, const std::stop_token& stop = {});

// Computes a document's TensorValues on a background thread and hands them over on the GUI
// thread; a new document's start() drops the old one's.
class TensorValuesJob : public QObject {
  Q_OBJECT

 public:
  explicit TensorValuesJob(QObject* parent = nullptr);
  ~TensorValuesJob() override;
  void start(const RunDocument& doc);
  void cancel();
  bool isBusy() const { return m_busy; }
  // Whether it is reading this document's values now (a new copy of it needs no new job).
  bool isReading(const QString& source) const { return m_busy && m_source == source; }

 signals:
  void ready(std::shared_ptr<const blasscope::ui::TensorValues> values);

 private:
  BackgroundTask m_task;
  bool m_busy = false;
  QString m_source;
};

}  // namespace blasscope::ui
