#include "tensors_view.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <numeric>

#include "analysis/tensor_findings.h"
#include "analysis/tensor_layout.h"
#include "analysis/value_histogram.h"
#include "bar_chart_axes.h"
#include "replace_chart.h"
#include "report/inspect_text.h"
#include "tensor_table_model.h"

namespace blasscope::ui {
namespace {

// Rows for a workload's input tensors: what the plan knows, and the values when small
// enough to make again here.
std::vector<core::TensorReport> workload_rows(const RunDocument& doc) {
  std::vector<core::TensorReport> rows;
  if (!doc.workload || !doc.plan) return rows;
  for (const auto& spec : doc.workload->tensors) {
    const auto it = doc.plan->tensors.find(spec.name);
    if (it == doc.plan->tensors.end() || !it->second.known) continue;
    const core::TensorMeta& meta = it->second;
    core::TensorReport row;
    row.info.name = spec.name;
    row.info.dtype = meta.dtype;
    row.info.shape = meta.shape;
    row.info.order = meta.order;
    row.info.nbytes = meta.bytes;
    // Statistics come with the values computed in the background (none while they are).
    row.scanned = doc.values != nullptr;
    if (doc.values) {
      const auto stats = doc.values->stats.find(spec.name);
      if (stats != doc.values->stats.end()) row.stats = stats->second;
      const auto alignment = doc.values->alignment.find(spec.name);
      if (alignment != doc.values->alignment.end()) row.layout.file_alignment = alignment->second;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// "3 shards (model.safetensors.index.json)" and one line per shard file.
QString shardsSummary(const core::InspectReport& report) {
  QString index;
  for (const auto& [key, value] : report.metadata) {
    if (key == "index") index = QString::fromStdString(value);
  }
  const auto count = static_cast<int>(report.shards.size());
  QString html = (count == 1 ? QObject::tr("<b>Sharded checkpoint</b>: 1 shard, index: %2")
                             : QObject::tr("<b>Sharded checkpoint</b>: %1 shards, index: %2"))
                     .arg(count)
                     .arg(index.toHtmlEscaped());
  html += QStringLiteral(
              "<table cellspacing='0' cellpadding='1'><tr><th align='left'>%1</th><th align='left'>&nbsp;&nbsp;%2</th>"
              "<th align='right'>&nbsp;&nbsp;%3</th><th align='right'>&nbsp;&nbsp;%4</th><th "
              "align='right'>&nbsp;&nbsp;%5</th></tr>")
              .arg(QObject::tr("Shard"), QObject::tr("Format"), QObject::tr("Size"), QObject::tr("Tensors"),
                   QObject::tr("Tensor bytes"));
  for (const core::ShardSummary& shard : report.shards) {
    html +=
        QStringLiteral(
            "<tr><td>%1</td><td>&nbsp;&nbsp;%2</td><td align='right'>%3</td><td align='right'>%4</td>"
            "<td align='right'>%5</td></tr>")
            .arg(QString::fromStdString(shard.name).toHtmlEscaped(), QString::fromUtf8(core::name(shard.format).data()),
                 QString::fromStdString(core::format_bytes(shard.file_size)))
            .arg(shard.tensor_count)
            .arg(QString::fromStdString(core::format_bytes(shard.tensor_bytes)));
  }
  return html + QStringLiteral("</table>");
}

}  // namespace

TensorsView::TensorsView(QWidget* parent)
    : DocumentView(parent),
      m_model(new TensorTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView),
      m_shards(new QLabel),
      m_metadata(new QTableWidget(0, 2)),
      m_chart(new QChartView),
      m_positions(new QLabel) {
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(Qt::UserRole);
  m_table->setObjectName(QStringLiteral("tensors"));
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(-1, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_chart->setRenderHint(QPainter::Antialiasing);
  m_chart->setMinimumHeight(160);
  m_positions->setWordWrap(true);
  m_positions->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_metadata->setObjectName(QStringLiteral("metadata"));
  m_metadata->setHorizontalHeaderLabels({tr("Metadata"), tr("Value")});
  m_metadata->verticalHeader()->hide();
  m_metadata->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_metadata->horizontalHeader()->setStretchLastSection(true);
  m_metadata->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_metadata->setWordWrap(false);
  m_metadata->hide();
  auto* lower = new QWidget;
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  lowerLayout->addWidget(m_chart, 1);
  lowerLayout->addWidget(m_positions);
  m_shards->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_shards->hide();
  auto* upper = new QWidget;
  auto* upperLayout = new QVBoxLayout(upper);
  upperLayout->setContentsMargins(0, 0, 0, 0);
  upperLayout->addWidget(m_shards);
  upperLayout->addWidget(m_table, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(upper);
  split->addWidget(m_metadata);
  split->addWidget(lower);
  split->setStretchFactor(2, 1);
  setContent(split);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& index) { showHistogram(m_proxy->mapToSource(index).row()); });
  showEmpty(tr("Open a tensor file (.npy, .npz, .safetensors, .pt, .h5, .keras) or a workload to see its tensors."));
}

void TensorsView::setDocument(const RunDocument* doc) {
  m_doc = doc;
  std::vector<core::TensorReport> rows;
  if (doc && doc->kind == RunDocument::Kind::TensorFile && doc->inspect) rows = doc->inspect->tensors;
  if (doc && doc->kind == RunDocument::Kind::Workload) rows = workload_rows(*doc);
  m_model->setTensors(std::move(rows));
  const bool sharded =
      doc && doc->kind == RunDocument::Kind::TensorFile && doc->inspect && !doc->inspect->shards.empty();
  m_table->setColumnHidden(TensorTableModel::Shard, !sharded);
  m_shards->setVisible(sharded);
  if (sharded) m_shards->setText(shardsSummary(*doc->inspect));
  showMetadata(doc && doc->kind == RunDocument::Kind::TensorFile && doc->inspect
                   ? doc->inspect->metadata
                   : std::vector<std::pair<std::string, std::string>>{});
  if (m_model->rowCount() == 0) {
    showEmpty(
        doc && doc->kind != RunDocument::Kind::Empty
            ? tr("This document has no tensors BLAScope can read.")
            : tr("Open a tensor file (.npy, .npz, .safetensors, .pt, .h5, .keras) or a workload to see its tensors."));
    return;
  }
  showContent();
  selectTensor(0);
}

void TensorsView::updateTensor(int row, const core::TensorReport& tensor) {
  m_model->updateTensor(row, tensor);
  if (m_proxy->mapToSource(m_table->currentIndex()).row() == row) showHistogram(row);
}

void TensorsView::showMetadata(const std::vector<std::pair<std::string, std::string>>& metadata) {
  // Long values (a Keras model_config) show their start in the cell and more in the tooltip.
  constexpr int kCellChars = 300, kTipChars = 4000;
  m_metadata->setRowCount(static_cast<int>(metadata.size()));
  for (int row = 0; row < m_metadata->rowCount(); ++row) {
    const auto& [key, value] = metadata[static_cast<std::size_t>(row)];
    const QString text = QString::fromStdString(value);
    auto* item = new QTableWidgetItem(text.size() > kCellChars ? text.left(kCellChars) + QStringLiteral("…") : text);
    item->setToolTip(text.size() > kTipChars ? text.left(kTipChars) + QStringLiteral("…") : text);
    m_metadata->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(key)));
    m_metadata->setItem(row, 1, item);
  }
  m_metadata->setVisible(!metadata.empty());
}

void TensorsView::selectTensor(int row) {
  m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
}

void TensorsView::selectTensorNamed(const QString& name) {
  for (int row = 0; row < m_model->rowCount(); ++row) {
    if (QString::fromStdString(m_model->tensorAt(row)->info.name) == name) return selectTensor(row);
  }
}

QString TensorsView::currentTensorName() const {
  const core::TensorReport* t = m_model->tensorAt(m_proxy->mapToSource(m_table->currentIndex()).row());
  return t ? QString::fromStdString(t->info.name) : QString();
}

int TensorsView::histogramBins() const {
  const auto series = m_chart->chart()->series();
  if (series.isEmpty()) return 0;
  const auto sets = static_cast<QBarSeries*>(series.front())->barSets();
  return sets.isEmpty() ? 0 : static_cast<int>(sets.front()->count());
}

QWidget* TensorsView::exportWidget() {
  return m_chart;
}

void TensorsView::showHistogram(int row) {
  const core::TensorReport* t = m_model->tensorAt(row);
  auto* chart = new QChart;
  chart->legend()->hide();
  m_positions->clear();
  if (!t || !m_doc) {
    replaceChart(m_chart, chart);
    return;
  }
  // The values were read off the GUI thread (TensorValuesJob); until they arrive, say so.
  if (!m_doc->values) {
    chart->setTitle(tr("Reading the values of '%1'…").arg(QString::fromStdString(t->info.name)));
    replaceChart(m_chart, chart);
    return;
  }
  const auto found = m_doc->values->histograms.find(t->info.name);
  if (found == m_doc->values->histograms.end()) {
    const auto why = m_doc->values->why_not.find(t->info.name);
    chart->setTitle(why != m_doc->values->why_not.end() ? why->second : tr("No values to show."));
    replaceChart(m_chart, chart);
    return;
  }
  core::ValueHistogram h = found->second;
  auto* set = new QBarSet(QString::fromStdString(t->info.name));
  QStringList labels;
  std::uint64_t highest = 0;
  if (h.high <= h.low && !h.counts.empty()) {
    h.counts = {std::accumulate(h.counts.begin(), h.counts.end(), std::uint64_t{0})};
  }
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    *set << static_cast<double>(h.counts[i]);
    labels << QString::number(i);
    highest = std::max(highest, h.counts[i]);
  }
  auto* series = new QBarSeries;
  series->append(set);
  series->setBarWidth(1.0);
  chart->addSeries(series);
  auto* counts_axis = attachBarAxes(chart, series, labels, Qt::AlignBottom, Qt::AlignLeft, QStringLiteral("%.0f"));
  useRoundTicks(counts_axis, static_cast<double>(highest), true);
  // One category per bin is too narrow for a label, so the bins' hidden axis gives way to one over the values.
  chart->axes(Qt::Horizontal).front()->setVisible(false);
  auto* values_axis = new QValueAxis;
  // All-equal values fill one bar over a range centred on them.
  const double pad = h.high > h.low ? 0.0 : (h.low != 0 ? std::abs(h.low) * 0.01 : 1.0);
  values_axis->setRange(h.low - pad, h.high + pad);
  values_axis->setTickCount(3);  // low, middle, high: room for whole labels in a narrow window
  values_axis->setTruncateLabels(false);
  values_axis->setLabelFormat(QStringLiteral("%.3g"));
  values_axis->setTitleText(tr("value"));
  chart->addAxis(values_axis, Qt::AlignBottom);
  // A short title survives a narrow window; the whole description is the tooltip.
  chart->setTitle(tr("'%1': %2 finite values").arg(QString::fromStdString(t->info.name)).arg(h.sampled));
  m_chart->setToolTip(tr("Finite values of '%1': %2 sampled, from %3 to %4")
                          .arg(QString::fromStdString(t->info.name))
                          .arg(h.sampled)
                          .arg(h.low, 0, 'g', 4)
                          .arg(h.high, 0, 'g', 4));
  replaceChart(m_chart, chart);
  // The full scan, when there was one, counts every value; the histogram only samples.
  if (t->stats && t->stats->nonfinite() > 0 && h.nonfinite == 0) {
    m_positions->setText(tr("%1 NaN/Inf values in the whole tensor, the first at %2; none among the %3 values "
                            "sampled for the histogram.")
                             .arg(t->stats->nonfinite())
                             .arg(t->stats->first_nonfinite
                                      ? QString::fromStdString(core::index_tuple(t->info, *t->stats->first_nonfinite))
                                      : tr("an unknown index"))
                             .arg(h.sampled));
  } else if (h.nonfinite == 0) {
    m_positions->setText(tr("No NaN or Inf among the sampled values."));
  } else {
    QStringList where;
    for (const auto& p : h.nonfinite_positions) where << QString::fromStdString(core::format_shape(p));
    m_positions->setText(
        tr("%1 NaN/Inf values; the first at %2").arg(h.nonfinite).arg(where.join(QStringLiteral(", "))));
  }
}

}  // namespace blasscope::ui
