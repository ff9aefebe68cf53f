#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "record/recording.h"

namespace blasscope::ui {

// The calls of a recording, one row each, then the calls still running when it ended, filtered
// by routine and status without copying them (a million rows stay cheap: the model keeps row
// indices only).
class CallsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Seq, Process, Thread, Routine, DType, Sizes, Alignment, Start, Time, Info, Problem, ColumnCount };
  enum class StatusFilter { All, Failed, NonFinite };

  explicit CallsModel(QObject* parent = nullptr);
  void setRecording(const record::Recording* recording);
  // Empty routine: every routine.
  void setFilter(const QString& routine, StatusFilter status);
  const record::CallRecord* callAt(int row) const;
  int rowOfCall(std::uint64_t id) const;  // -1 when filtered out
  // A call's sizes as the Sizes column shows them ("64 × 64 × 64", "20 MiB" for cudaMalloc).
  static QString sizesText(const record::CallRecord& c);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  // By a column's values (a million rows sort in a fraction of a second); column -1: the order
  // the calls started in.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

 private:
  void rebuild();
  void sortRows();
  const record::CallRecord& at(std::uint32_t index) const;
  bool isRunning(std::uint32_t index) const;

  const record::Recording* m_recording = nullptr;
  QString m_routine;
  StatusFilter m_status = StatusFilter::All;
  std::vector<std::uint32_t> m_rows;  // indices into m_recording->calls, then ->running
  int m_sortColumn = -1;
  Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

}  // namespace blasscope::ui
