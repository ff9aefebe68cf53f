#pragma once

#include "document_view.h"

class QStandardItemModel;
class QTreeView;
class QGraphicsScene;
class QGraphicsView;

namespace blasscope::ui {

// Per op and device: seconds, GFLOP/s or GB/s, share of the device's peak, CPU against GPU;
// CUPTI kernels under their op; and a timeline of the run.
class TimingsView : public DocumentView {
  Q_OBJECT

 public:
  explicit TimingsView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  void selectOp(std::size_t op) override;
  QWidget* exportWidget() override;
  QStandardItemModel* model() const { return m_model; }
  int timelineBars() const { return m_bars; }

 private:
  QStandardItemModel* m_model;
  QTreeView* m_tree;
  QGraphicsScene* m_scene;
  QGraphicsView* m_timeline;
  int m_bars = 0;
};

}  // namespace blasscope::ui
