#pragma once

#include <QAbstractListModel>

#include "diagnose/diagnosis.h"

namespace blasscope::ui {

// Diagnoses, most severe first: "severity [id] title" with a severity icon.
class DiagnosesModel : public QAbstractListModel {
  Q_OBJECT

 public:
  explicit DiagnosesModel(QObject* parent = nullptr);
  void setDiagnoses(std::vector<core::Diagnosis> diagnoses);
  const core::Diagnosis* diagnosisAt(int row) const;
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  std::vector<core::Diagnosis> m_diagnoses;
};

}  // namespace blasscope::ui
