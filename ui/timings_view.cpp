#include "timings_view.h"

#include <QHeaderView>
#include <QPainter>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTreeView>
#include <algorithm>
#include <map>

#include "report/inspect_text.h"

namespace blasscope::ui {
namespace {

QString ms(std::optional<double> s) {
  return s ? QStringLiteral("%1 ms").arg(*s * 1e3, 0, 'f', 3) : QStringLiteral("–");
}

QString throughput(const core::KernelRecord& r) {
  if (r.gflops) return QStringLiteral("%1 GFLOP/s").arg(*r.gflops, 0, 'f', 1);
  if (r.gbytes_per_second) return QStringLiteral("%1 GB/s").arg(*r.gbytes_per_second, 0, 'f', 1);
  return QStringLiteral("–");
}

QString share_of_peak(const core::KernelRecord& r, const core::RunEnvironment& env) {
  if (!r.gflops) return QStringLiteral("–");
  const bool gpu = r.device == core::Device::Gpu;
  const bool fp64 = r.dtype == core::DType::Float64 || r.dtype == core::DType::Complex128;
  double peak = 0;
  if (gpu && env.gpu.device) {
    peak = fp64 ? env.gpu.device->peak_gflops_fp64 : env.gpu.device->peak_gflops_fp32;
  } else if (!gpu && env.cpu) {
    peak = fp64 ? env.cpu->peak_gflops_fp64 : env.cpu->peak_gflops_fp32;
  }
  return peak > 0 ? QStringLiteral("%1%").arg(100 * *r.gflops / peak, 0, 'f', 1) : QStringLiteral("–");
}

// "3 gemm (cblas_dgemm)", or "3 gemm — no kernel ran" for an op refused before its kernel
// (no GPU, a shape or dtype mismatch): the reason is the row below it (kWhyRole).
QString op_label(const core::KernelRecord& r) {
  const QString op = QStringLiteral("%1 %2").arg(r.op).arg(QString::fromStdString(core::text(r.op_kind)));
  if (!r.kernel.empty()) return QStringLiteral("%1 (%2)").arg(op, QString::fromStdString(r.kernel));
  return QObject::tr("%1 — no kernel ran").arg(op);
}

constexpr int kWhyRole = Qt::UserRole + 1;

}  // namespace

// The run as bars on a time axis, one lane per device, scaled to the widget's width.
class TimelineWidget : public QWidget {
 public:
  struct Bar {
    double start, end;
    bool gpu;
    QString label;
  };

  void setBars(std::vector<Bar> bars, double end) {
    m_bars = std::move(bars);
    m_end = end;
    setMinimumHeight(120);
    update();
  }
  int bars() const { return static_cast<int>(m_bars.size()); }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    constexpr int kLabel = 44, kLane = 34;
    p.drawText(QRect(4, 10, kLabel, kLane - 10), Qt::AlignVCenter, tr("CPU"));
    p.drawText(QRect(4, 10 + kLane, kLabel, kLane - 10), Qt::AlignVCenter, tr("GPU"));
    const double width = std::max(10, this->width() - kLabel - 10);
    const double scale = m_end > 0 ? width / m_end : 0;
    for (const Bar& b : m_bars) {
      const QRectF r(kLabel + b.start * scale, 10 + (b.gpu ? kLane : 0), std::max(2.0, (b.end - b.start) * scale),
                     kLane - 10);
      p.fillRect(r, b.gpu ? QColor(0x2e, 0x7d, 0x32) : QColor(0x15, 0x65, 0xc0));
      if (r.width() > 60) {
        p.setPen(Qt::white);
        p.drawText(r.adjusted(4, 0, 0, 0), Qt::AlignVCenter, b.label);
      }
    }
    p.setPen(palette().text().color());
    p.drawText(QRect(kLabel, 10 + 2 * kLane, this->width() - kLabel - 4, 40), Qt::AlignLeft | Qt::TextWordWrap,
               tr("0 to %1 ms: the whole run, from the worker's start").arg(m_end * 1e3, 0, 'f', 1));
  }

 private:
  std::vector<Bar> m_bars;
  double m_end = 0;
};

int TimingsView::timelineBars() const {
  return m_timeline->bars();
}

TimingsView::TimingsView(QWidget* parent)
    : DocumentView(parent),
      m_model(new QStandardItemModel(this)),
      m_tree(new QTreeView),
      m_timeline(new TimelineWidget) {
  m_tree->setModel(m_model);
  m_tree->setAlternatingRowColors(true);
  m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // cuBLAS kernel names run to 150 characters: the first column keeps a readable width (set
  // in setDocument) and elides them in the middle (the full name is the row's tooltip), so the
  // other columns stay in view.
  m_tree->setTextElideMode(Qt::ElideMiddle);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_tree);
  split->addWidget(m_timeline);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  setContent(split);
  connect(m_tree->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
    const QModelIndex top = index.parent().isValid() ? index.parent() : index;
    const QVariant op = m_model->index(top.row(), 0).data(Qt::UserRole);
    if (op.isValid()) emit opSelected(op.toULongLong());
  });
  showEmpty(tr("Run a workload to see per-op timings; run on both devices (Ctrl+B) to compare CPU and GPU."));
}

QWidget* TimingsView::exportWidget() {
  return m_timeline;
}

void TimingsView::setDocument(const RunDocument* doc) {
  m_model->clear();
  m_timeline->setBars({}, 0);
  if (!doc || !doc->run || doc->run->ops.empty()) {
    showEmpty(doc && doc->kind == RunDocument::Kind::Workload
                  ? tr("Not run yet: timings come from the run (CPU wall clock, CUDA events and CUPTI on the GPU).")
                  : tr("Run a workload to see per-op timings; run on both devices (Ctrl+B) to compare CPU and GPU."));
    return;
  }
  const core::RunResult& run = *doc->run;
  m_model->setHorizontalHeaderLabels(
      {tr("Op / kernel"), tr("Device"), tr("Status"), tr("Time"), tr("Throughput"), tr("Of peak"), tr("CPU ÷ GPU")});
  std::map<std::size_t, double> speedup;
  for (const auto& c : run.comparisons) {
    if (c.speedup) speedup[c.op] = *c.speedup;
  }
  bool cupti_said = false;
  for (const auto& r : run.ops) {
    QList<QStandardItem*> row{
        new QStandardItem(op_label(r)),
        new QStandardItem(QString::fromStdString(core::text(r.device))),
        new QStandardItem(QString::fromStdString(core::text(r.status))),
        new QStandardItem(ms(r.device == core::Device::Gpu && r.device_seconds ? r.device_seconds : r.seconds)),
        new QStandardItem(throughput(r)),
        new QStandardItem(share_of_peak(r, run.environment)),
        new QStandardItem(speedup.count(r.op) && r.device == core::Device::Gpu
                              ? QStringLiteral("%1×").arg(speedup[r.op], 0, 'f', 1)
                              : QStringLiteral("–"))};
    row[0]->setData(static_cast<qulonglong>(r.op), Qt::UserRole);
    if (r.kernel.empty()) {
      auto* why = new QStandardItem(QString::fromStdString(r.error.value_or("refused before its kernel was chosen")));
      why->setToolTip(why->text());
      why->setData(true, kWhyRole);
      why->setEditable(false);
      row[0]->appendRow(why);
    }
    // Kernels and copies one by one; allocations and CUPTI's overhead records as one row each.
    std::map<std::string, std::pair<int, double>> summarised;  // kind -> count, µs
    for (const auto& e : r.device_events) {
      const double us = static_cast<double>(e.end_ns - e.start_ns) / 1e3;
      if (e.kind == "memory" || e.kind == "overhead") {
        summarised[e.kind].first += 1;
        summarised[e.kind].second += us;
        continue;
      }
      auto* name_item = new QStandardItem(QString::fromStdString(e.name));
      name_item->setToolTip(name_item->text());
      row[0]->appendRow({name_item, new QStandardItem(QString::fromStdString(e.family)),
                         new QStandardItem(QString::fromStdString(e.kind)),
                         new QStandardItem(QStringLiteral("%1 µs").arg(us, 0, 'f', 1)),
                         new QStandardItem(e.bytes ? QString::fromStdString(core::format_bytes(e.bytes)) : QString())});
    }
    for (const auto& [kind, total] : summarised) {
      row[0]->appendRow(
          {new QStandardItem(kind == "memory" ? tr("%1 device allocations and frees").arg(total.first)
                                              : tr("%1 CUPTI overhead records").arg(total.first)),
           new QStandardItem(QString::fromStdString(kind)), new QStandardItem(QString::fromStdString(kind)),
           new QStandardItem(kind == "memory" ? QString() : QStringLiteral("%1 µs").arg(total.second, 0, 'f', 1)),
           new QStandardItem()});
    }
    if (r.device == core::Device::Gpu && run.environment.gpu.device && !r.kernel.empty() && !cupti_said) {
      // What CUPTI saw depends on what it traced (BLASSCOPE_CUPTI): said once, under the first
      // GPU op that ran.
      cupti_said = true;
      const std::string& cupti = run.environment.gpu.device->cupti;
      QString note = tr("CUPTI: %1").arg(QString::fromStdString(cupti));
      if (cupti == "tracing kernels" || cupti.rfind("tracing kernels (", 0) == 0) {
        note += tr(" (BLASSCOPE_CUPTI=all adds copies, memsets, allocations)");
      }
      auto* item = new QStandardItem(note);
      item->setToolTip(note);
      item->setData(true, kWhyRole);
      item->setEditable(false);
      row[0]->appendRow(item);
    }
    for (auto* item : row) item->setEditable(false);
    m_model->appendRow(row);
  }
  m_tree->expandAll();
  for (int top = 0; top < m_model->rowCount(); ++top) {  // a reason reads across every column
    const QModelIndex parent = m_model->index(top, 0);
    for (int child = 0; child < m_model->rowCount(parent); ++child) {
      if (m_model->index(child, 0, parent).data(kWhyRole).toBool()) m_tree->setFirstColumnSpanned(child, parent, true);
    }
  }
  m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);  // the model has its columns now
  m_tree->resizeColumnToContents(0);
  m_tree->setColumnWidth(0, std::min(m_tree->columnWidth(0), std::max(240, m_tree->viewport()->width() * 2 / 5)));
  // Timeline: one bar per kernel, a lane per device.
  std::vector<TimelineWidget::Bar> bars;
  for (const auto& span : run.timeline.kernels) {
    bars.push_back({span.start, span.end, span.device == core::Device::Gpu,
                    QStringLiteral("%1 %2").arg(span.op).arg(QString::fromStdString(span.kernel))});
  }
  const double end_t = run.timeline.last_t;
  m_timeline->setBars(std::move(bars), end_t);
  showContent();
}

void TimingsView::selectOp(std::size_t op) {
  for (int row = 0; row < m_model->rowCount(); ++row) {
    if (m_model->index(row, 0).data(Qt::UserRole).toULongLong() == op) {
      if (m_tree->currentIndex().row() != row || m_tree->currentIndex().parent().isValid()) {
        m_tree->setCurrentIndex(m_model->index(row, 0));
      }
      return;
    }
  }
}

}  // namespace blasscope::ui
