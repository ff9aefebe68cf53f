#pragma once

#include "document_view.h"

class QChartView;
class QSplitter;

namespace blasscope::ui {

// Memory: host bytes over the run (from the allocation events) against the budget, the
// largest tensors, and what the host and the GPU have; an out-of-memory shows at a glance.
class MemoryView : public DocumentView {
  Q_OBJECT

 public:
  explicit MemoryView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  QWidget* exportWidget() override;
  int timelinePoints() const;
  int tensorBars() const;

 protected:
  // The two charts sit side by side, or stacked when the view is too narrow for both.
  void resizeEvent(QResizeEvent* event) override;

 private:
  QSplitter* m_split;
  QChartView* m_timeline;
  QChartView* m_tensors;
  QLabel* m_summary;
};

}  // namespace blasscope::ui
