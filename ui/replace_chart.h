#pragma once

#include <QChart>
#include <QChartView>

namespace blasscope::ui {

// Shows `chart` in `view` and deletes the chart it showed before: QChartView::setChart hands the
// old chart back to the caller rather than deleting it, so views that build a new chart on every
// update leaked one each time (found by LeakSanitizer). `view` owns `chart` afterwards.
inline void replaceChart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  if (old != chart) delete old;
}

}  // namespace blasscope::ui
