#include "memory_view.h"

#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalBarSeries>
#include <QLineSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

#include "bar_chart_axes.h"
#include "replace_chart.h"
#include "report/inspect_text.h"

namespace blasscope::ui {
namespace {

QString bytes(std::uint64_t n) {
  return QString::fromStdString(core::format_bytes(n));
}

// The unit the charts count in, chosen from the largest value so the axes read naturally.
std::pair<double, QString> unit_for(double largest) {
  if (largest >= 1024.0 * 1024 * 1024) return {1024.0 * 1024 * 1024, QStringLiteral("GiB")};
  if (largest >= 1024.0 * 1024) return {1024.0 * 1024, QStringLiteral("MiB")};
  return {1024.0, QStringLiteral("KiB")};
}

}  // namespace

MemoryView::MemoryView(QWidget* parent)
    : DocumentView(parent),
      m_split(new QSplitter(Qt::Horizontal)),
      m_timeline(new QChartView),
      m_tensors(new QChartView),
      m_summary(new QLabel) {
  m_timeline->setRenderHint(QPainter::Antialiasing);
  m_tensors->setRenderHint(QPainter::Antialiasing);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_split->addWidget(m_timeline);
  m_split->addWidget(m_tensors);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->addWidget(m_summary);
  layout->addWidget(m_split, 1);
  setContent(content);
  showEmpty(tr("Run a workload to see its memory: tensors, workspaces, the peak and the budget."));
}

void MemoryView::resizeEvent(QResizeEvent* event) {
  DocumentView::resizeEvent(event);
  m_split->setOrientation(width() < 760 ? Qt::Vertical : Qt::Horizontal);
}

QWidget* MemoryView::exportWidget() {
  return m_timeline;
}

int MemoryView::timelinePoints() const {
  const auto series = m_timeline->chart() ? m_timeline->chart()->series() : QList<QAbstractSeries*>();
  return series.isEmpty() ? 0 : static_cast<int>(static_cast<QLineSeries*>(series.front())->count());
}

int MemoryView::tensorBars() const {
  const auto series = m_tensors->chart() ? m_tensors->chart()->series() : QList<QAbstractSeries*>();
  if (series.isEmpty()) return 0;
  const auto sets = static_cast<QHorizontalBarSeries*>(series.front())->barSets();
  return sets.isEmpty() ? 0 : static_cast<int>(sets.front()->count());
}

void MemoryView::setDocument(const RunDocument* doc) {
  if (!doc || !doc->run) {
    showEmpty(doc && doc->kind == RunDocument::Kind::Workload
                  ? tr("Not run yet: memory over time comes from the run's allocation events.")
                  : tr("Run a workload to see its memory: tensors, workspaces, the peak and the budget."));
    return;
  }
  const core::RunResult& run = *doc->run;
  const core::RunTimeline& events = run.timeline;
  const std::uint64_t limit = events.memory_limit, predicted = events.predicted_peak_bytes;
  const double end_t = events.last_t;
  double start_t = events.first_t;
  std::vector<std::pair<double, double>> points, device_points;
  for (const auto& sample : events.host_memory) points.emplace_back(sample.t, static_cast<double>(sample.bytes));
  std::uint64_t device_peak = 0;
  for (const auto& sample : events.device_memory) {
    device_points.emplace_back(sample.t, static_cast<double>(sample.bytes));
    device_peak = std::max(device_peak, sample.bytes);
  }
  std::vector<std::pair<std::string, std::uint64_t>> tensors;
  std::uint64_t largest_tensor = 0;
  for (const auto& a : events.allocations) {
    const std::string op = a.op ? "op" + std::to_string(*a.op) + " " : "";
    switch (a.kind) {
      case core::Allocation::Kind::Tensor: tensors.emplace_back(a.name, a.bytes); break;
      case core::Allocation::Kind::Workspace: tensors.emplace_back(op + a.name, a.bytes); break;
      case core::Allocation::Kind::DeviceBuffer:
        tensors.emplace_back(op + (a.name.size() > 12 ? std::string("cuBLAS") : a.name) + " (GPU)", a.bytes);
        break;
    }
    largest_tensor = std::max(largest_tensor, a.bytes);
  }
  QStringList oom;
  for (const auto& message : events.out_of_memory) oom << QString::fromStdString(message);
  const auto [scale, unit] = unit_for(std::max(
      {static_cast<double>(run.peak_host_bytes), static_cast<double>(predicted), static_cast<double>(device_peak)}));
  start_t = std::max(start_t, 0.0);
  // Short runs read better in microseconds than as 0.000x ms.
  const bool in_us = (end_t - start_t) < 1e-3;
  const double time_scale = in_us ? 1e6 : 1e3;
  const double span = std::max((end_t - start_t) * time_scale, 0.001);
  // Steps, not slopes: memory changes at the events and holds in between.
  auto step_series = [&](const QString& name, const std::vector<std::pair<double, double>>& samples) {
    auto* series = new QLineSeries;
    series->setName(name);
    double previous = 0;
    for (const auto& [t, b] : samples) {
      const double x_at = std::max(t - start_t, 0.0) * time_scale;
      if (series->count() > 0) series->append(x_at, previous);
      series->append(x_at, b / scale);
      previous = b / scale;
    }
    if (series->count() > 0) series->append(span, previous);
    return series;
  };
  auto* line = step_series(tr("host memory in use"), points);
  auto* timeline = new QChart;
  timeline->addSeries(line);
  QLineSeries* device_line = nullptr;
  if (!device_points.empty()) {
    device_line = step_series(tr("GPU memory in use (BLAScope's buffers)"), device_points);
    device_line->setPen(QPen(QColor(0x2e, 0x7d, 0x32), 2));
    timeline->addSeries(device_line);
  }
  timeline->setTitle(device_line ? tr("Host and GPU memory in use") : tr("Host memory in use"));
  auto* x = new QValueAxis;
  x->setTitleText(in_us ? tr("µs") : tr("ms"));
  auto* y = new QValueAxis;
  y->setTitleText(unit);
  y->setLabelFormat(QStringLiteral("%.3g"));
  const double top = std::max({static_cast<double>(run.peak_host_bytes), static_cast<double>(predicted),
                               static_cast<double>(device_peak)}) /
                     scale;
  double y_top = std::max(top * 1.05, 1.0);
  timeline->addAxis(x, Qt::AlignBottom);
  timeline->addAxis(y, Qt::AlignLeft);
  for (auto* series : {line, device_line}) {
    if (!series) continue;
    series->attachAxis(x);
    series->attachAxis(y);
  }
  if (limit > 0 && static_cast<double>(limit) / scale < top * 4) {
    auto* budget = new QLineSeries;
    budget->setName(tr("budget"));
    budget->append(0, static_cast<double>(limit) / scale);
    budget->append(span, static_cast<double>(limit) / scale);
    budget->setPen(QPen(QColor(0xc6, 0x28, 0x28), 2, Qt::DashLine));
    timeline->addSeries(budget);
    budget->attachAxis(x);
    budget->attachAxis(y);
    y_top = std::max(top, static_cast<double>(limit) / scale) * 1.05;
  }
  useRoundTicks(x, span, false);
  useRoundTicks(y, y_top, false);
  replaceChart(m_timeline, timeline);

  std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (tensors.size() > 12) tensors.resize(12);
  const auto [tensor_scale, tensor_unit] = unit_for(static_cast<double>(largest_tensor));
  auto* set = new QBarSet(tr("bytes"));
  QStringList names;
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
    *set << static_cast<double>(it->second) / tensor_scale;
    names << QString::fromStdString(it->first);
  }
  auto* bars = new QHorizontalBarSeries;
  bars->append(set);
  auto* tensorChart = new QChart;
  tensorChart->addSeries(bars);
  tensorChart->setTitle(tensors.empty() ? tr("No tensor was allocated")
                                        : tr("Largest tensors and workspaces (%1)").arg(tensor_unit));
  tensorChart->legend()->hide();
  auto* size_axis = attachBarAxes(tensorChart, bars, names, Qt::AlignLeft, Qt::AlignBottom, QStringLiteral("%.3g"));
  useRoundTicks(size_axis, static_cast<double>(largest_tensor) / tensor_scale, false);
  replaceChart(m_tensors, tensorChart);

  const auto& cpu = run.environment.cpu;
  QString summary = tr("Peak: <b>%1</b> · predicted for the whole workload: %2 · budget: %3 · host available: %4")
                        .arg(bytes(run.peak_host_bytes), bytes(predicted), bytes(limit),
                             cpu ? bytes(cpu->memory_available) : tr("unknown"));
  if (const auto& gpu = run.environment.gpu.device) {
    summary += tr(" · GPU: %1 free of %2").arg(bytes(gpu->memory_free), bytes(gpu->memory_total));
  }
  std::uint64_t device_predicted = 0, device_measured = 0;
  for (const auto& r : run.ops) {
    device_predicted = std::max(device_predicted, r.device_memory_predicted.value_or(0));
    device_measured = std::max(device_measured, r.device_memory_measured.value_or(0));
  }
  if (device_peak > 0 || device_predicted > 0) {
    summary += tr("<br>GPU peak of BLAScope's buffers: <b>%1</b> · largest op predicted %2, measured with "
                  "cudaMemGetInfo %3")
                   .arg(bytes(device_peak), bytes(device_predicted), bytes(device_measured));
  }
  if (!oom.isEmpty()) {
    summary += tr("<br><span style='color:#c62828'><b>Out of memory:</b> %1</span>")
                   .arg(oom.join(QStringLiteral("; ")).toHtmlEscaped());
  } else if (limit > 0 && predicted > limit) {
    summary += tr("<br><span style='color:#c62828'>The workload is predicted to need more than its budget.</span>");
  }
  m_summary->setText(summary);
  showContent();
}

}  // namespace blasscope::ui
