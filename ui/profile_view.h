#pragma once

#include "document_view.h"

class QComboBox;
class QLabel;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace blasscope::ui {

class CallsModel;
class CallTimeline;

// A recorded program as a profiler shows it: the run's outcome, a table of routines (calls,
// total and self time, mean, GFLOP/s, share, failures) and every call, filterable by routine
// and status. Picking a routine in the first table filters the second.
class ProfileView : public DocumentView {
  Q_OBJECT

 public:
  explicit ProfileView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  // Selects the call in the calls table (every call shown, where a filter hid it).
  void selectCall(quint64 id) override;

 signals:
  // "Replay in worker" on a captured call: its workload file.
  void replayRequested(const QString& workload);

 private:
  void applyFilter();
  void updateReplay();
  QString captureOfSelectedCall() const;

  const RunDocument* m_doc = nullptr;
  QLabel* m_summary;
  QStandardItemModel* m_routines;
  QTableView* m_routinesTable;
  CallsModel* m_calls;
  CallTimeline* m_timeline;
  QTableView* m_callsTable;
  QComboBox* m_routineFilter;
  QComboBox* m_statusFilter;
  QPushButton* m_replay;
};

}  // namespace blasscope::ui
