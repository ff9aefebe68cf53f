#pragma once

#include <QAbstractTableModel>

#include "analysis/inspect_report.h"

namespace blasscope::ui {

// Adapts the tensors of an InspectReport to a table: one row per tensor. Rows appear when
// the headers are read; value columns fill in as each tensor's scan finishes.
class TensorTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Name,
    DType,
    Shape,
    Order,
    Bytes,
    Offset,
    Alignment,
    Shard,  // the shard file of a sharded checkpoint (empty otherwise)
    NaN,
    PosInf,
    NegInf,
    Zero,
    Subnormal,
    Min,
    Max,
    ColumnCount
  };

  explicit TensorTableModel(QObject* parent = nullptr);

  void setTensors(std::vector<core::TensorReport> tensors);
  void updateTensor(int row, const core::TensorReport& tensor);
  void clear();
  const core::TensorReport* tensorAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant displayText(const core::TensorReport& tensor, int column) const;
  QVariant sortValue(const core::TensorReport& tensor, int column) const;

  std::vector<core::TensorReport> m_tensors;
};

}  // namespace blasscope::ui
