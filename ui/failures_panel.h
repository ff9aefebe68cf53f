#pragma once

#include <QWidget>

#include "diagnose/diagnosis.h"

class QListView;
class QTextBrowser;
class QLabel;

namespace blasscope::ui {

class DiagnosesModel;

// The diagnoses, most severe first; the selected one's evidence, cause, fix (copyable) and
// the error texts it shows up as. Selecting one asks every view to show its op.
class FailuresPanel : public QWidget {
  Q_OBJECT

 public:
  explicit FailuresPanel(QWidget* parent = nullptr);
  void setDiagnoses(std::vector<core::Diagnosis> diagnoses, const QString& emptyText);
  DiagnosesModel* model() const { return m_model; }
  QString detailText() const;

 signals:
  void opSelected(std::size_t op);
  void tensorSelected(const QString& name);
  // A recording's diagnosis: the call it is about (its id).
  void callSelected(quint64 id);

 private:
  void showDetails();

  DiagnosesModel* m_model;
  QListView* m_list;
  QTextBrowser* m_details;
  QLabel* m_summary;
};

}  // namespace blasscope::ui
