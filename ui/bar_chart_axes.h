#pragma once

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QChart>
#include <QStringList>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace blasscope::ui {

// Bar charts in the views share one axis arrangement: named categories on one edge, values on another.
// Returns the value axis.
inline QValueAxis* attachBarAxes(QChart* chart, QAbstractBarSeries* series, const QStringList& categories,
                                 Qt::Alignment category_edge, Qt::Alignment value_edge, const QString& value_format) {
  auto* category_axis = new QBarCategoryAxis;
  category_axis->append(categories);
  category_axis->setTruncateLabels(false);  // names must stay whole; the plot gives way to them
  auto* value_axis = new QValueAxis;
  value_axis->setLabelFormat(value_format);
  chart->addAxis(category_axis, category_edge);
  chart->addAxis(value_axis, value_edge);
  series->attachAxis(category_axis);
  series->attachAxis(value_axis);
  return value_axis;
}

// Ticks on a 1-2-5 step from zero to the first multiple of the step at or above `highest`, so
// labels read as round numbers; `whole_numbers` keeps the step at 1 or more (for counts).
inline void useRoundTicks(QValueAxis* axis, double highest, bool whole_numbers) {
  const double top_wanted = highest > 0 ? highest : 1.0;
  double scale = std::pow(10.0, std::floor(std::log10(top_wanted / 5)));
  if (whole_numbers) scale = std::max(scale, 1.0);
  double step = scale;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * scale;
    if (step * 5 >= top_wanted) break;
  }
  const double top = std::ceil(top_wanted / step - 1e-9) * step;
  axis->setRange(0, top);
  axis->setTickType(QValueAxis::TicksFixed);
  axis->setTickCount(static_cast<int>(std::lround(top / step)) + 1);
  axis->setLabelFormat(whole_numbers ? QStringLiteral("%.0f") : QStringLiteral("%.4g"));
}

}  // namespace blasscope::ui
