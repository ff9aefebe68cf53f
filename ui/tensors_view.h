#pragma once

#include <map>
#include <memory>

#include "document_view.h"

class QTableView;
class QTableWidget;
class QSortFilterProxyModel;
class QChartView;
class QChart;

namespace blasscope::ui {

class TensorTableModel;

// The tensors: dtype, shape, order, bytes, alignment, NaN/Inf/zero/subnormal counts, min/max;
// the selected one's histogram and where its NaN/Inf values are; the file's metadata.
class TensorsView : public DocumentView {
  Q_OBJECT

 public:
  explicit TensorsView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  QWidget* exportWidget() override;
  TensorTableModel* model() const { return m_model; }
  int histogramBins() const;
  void selectTensor(int row);
  // One row's scan ended: the row is updated in place (a checkpoint has hundreds).
  void updateTensor(int row, const core::TensorReport& tensor);
  void selectTensorNamed(const QString& name) override;
  QString currentTensorName() const;

 private:
  void showHistogram(int row);
  void showMetadata(const std::vector<std::pair<std::string, std::string>>& metadata);

  const RunDocument* m_doc = nullptr;
  TensorTableModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_table;
  QLabel* m_shards;          // a sharded checkpoint's files; hidden for other documents
  QTableWidget* m_metadata;  // the file's metadata (safetensors, PyTorch values, HDF5 attributes)
  QChartView* m_chart;
  QLabel* m_positions;
};

}  // namespace blasscope::ui
