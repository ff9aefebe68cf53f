#pragma once

#include <QAbstractTableModel>

#include "diagnose/diagnosis.h"
#include "results/run_result.h"

namespace blasscope::ui {

// The ops of a run, one row per op and device: status, kernel, shape, time, throughput and
// the most severe diagnosis about the op.
class OpsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Index, Op, Device, Kernel, DType, Shape, Status, Time, Throughput, TopDiagnosis, ColumnCount };

  explicit OpsModel(QObject* parent = nullptr);
  void setRun(const core::RunResult* result, const std::vector<core::Diagnosis>* diagnoses);
  const core::KernelRecord* recordAt(int row) const;
  int rowOfOp(std::size_t op) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QString topDiagnosis(std::size_t op) const;

  const core::RunResult* m_result = nullptr;
  const std::vector<core::Diagnosis>* m_diagnoses = nullptr;
};

}  // namespace blasscope::ui
