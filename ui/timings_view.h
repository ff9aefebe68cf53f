#pragma once

#include "document_view.h"

class QStandardItemModel;
class QTreeView;

namespace blasscope::ui {

class TimelineWidget;

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
  int timelineBars() const;

 private:
  QStandardItemModel* m_model;
  QTreeView* m_tree;
  TimelineWidget* m_timeline;
};

}  // namespace blasscope::ui
