#pragma once

#include "document_view.h"

class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace blasscope::ui {

class OpsModel;

// The workload as a list of ops: status, kernel, shape, time and the top diagnosis. A recording
// is summed up instead (what the recorder printed: routines, diagnoses, captures), with the
// way to its Profile.
class OverviewView : public DocumentView {
  Q_OBJECT

 public:
  explicit OverviewView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  void selectOp(std::size_t op) override;
  OpsModel* model() const { return m_model; }
  // The recording's summary, as shown ("" for a workload).
  QString summaryText() const;

 signals:
  void profileRequested();

 private:
  OpsModel* m_model;
  QTableView* m_table;
  QLabel* m_header;
  QPlainTextEdit* m_summary;
  QPushButton* m_toProfile;

  void showRecording(const RunDocument& doc);
};

}  // namespace blasscope::ui
