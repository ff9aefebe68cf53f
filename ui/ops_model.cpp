#include "ops_model.h"

#include <QApplication>
#include <QStyle>

namespace blasscope::ui {
namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString shapeText(const core::KernelRecord& r) {
  if (!r.m) return QStringLiteral("–");
  QString text = QStringLiteral("%1 × %2").arg(*r.m).arg(r.n.value_or(1));
  if (r.k) text += QStringLiteral(" × %1").arg(*r.k);
  return text;
}

}  // namespace

OpsModel::OpsModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpsModel::setRun(const core::RunResult* result, const std::vector<core::Diagnosis>* diagnoses) {
  beginResetModel();
  m_result = result;
  m_diagnoses = diagnoses;
  endResetModel();
}

const core::KernelRecord* OpsModel::recordAt(int row) const {
  if (!m_result || row < 0 || row >= rowCount()) return nullptr;
  return &m_result->ops[static_cast<std::size_t>(row)];
}

int OpsModel::rowOfOp(std::size_t op) const {
  for (int row = 0; row < rowCount(); ++row) {
    if (recordAt(row)->op == op) return row;
  }
  return -1;
}

int OpsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->ops.size());
}

int OpsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString OpsModel::topDiagnosis(std::size_t op) const {
  if (!m_diagnoses) return {};
  const core::Diagnosis* best = nullptr;
  for (const auto& d : *m_diagnoses) {
    if (d.op == op && (!best || d.severity < best->severity)) best = &d;
  }
  return best ? QStringLiteral("%1: %2").arg(qs(best->id), qs(best->title)) : QString();
}

QVariant OpsModel::data(const QModelIndex& index, int role) const {
  const core::KernelRecord* r = index.isValid() ? recordAt(index.row()) : nullptr;
  if (!r || index.column() >= ColumnCount) return {};
  const int column = index.column();
  if (role == Qt::DecorationRole && column == Status) {
    const QStyle* style = QApplication::style();
    if (r->status == core::OpStatus::Ok) return style->standardIcon(QStyle::SP_DialogApplyButton);
    if (r->status == core::OpStatus::Skipped) return style->standardIcon(QStyle::SP_MessageBoxWarning);
    return style->standardIcon(QStyle::SP_MessageBoxCritical);
  }
  if (role == Qt::ToolTipRole) return r->error ? qs(*r->error) : QVariant();
  if (role == Qt::UserRole) return static_cast<qulonglong>(r->op);
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case Index: return static_cast<qulonglong>(r->op);
    case Op: return qs(core::text(r->op_kind));
    case Device: return qs(core::text(r->device));
    case Kernel: return r->kernel.empty() ? QStringLiteral("–") : qs(r->kernel);
    case DType: return !r->dtype ? QStringLiteral("–") : qs(core::text(r->dtype));
    case Shape: return shapeText(*r);
    case Status: return qs(core::text(r->status));
    case Time: return r->seconds ? QStringLiteral("%1 ms").arg(*r->seconds * 1e3, 0, 'f', 3) : QStringLiteral("–");
    case Throughput:
      if (r->gflops) return QStringLiteral("%1 GFLOP/s").arg(*r->gflops, 0, 'f', 1);
      if (r->gbytes_per_second) return QStringLiteral("%1 GB/s").arg(*r->gbytes_per_second, 0, 'f', 1);
      return QStringLiteral("–");
    case TopDiagnosis: return topDiagnosis(r->op);
    default: return {};
  }
}

QVariant OpsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kTitles[ColumnCount] = {
      QT_TR_NOOP("#"),          QT_TR_NOOP("Op"),           QT_TR_NOOP("Device"), QT_TR_NOOP("Kernel"),
      QT_TR_NOOP("DType"),      QT_TR_NOOP("m × n × k"),    QT_TR_NOOP("Status"), QT_TR_NOOP("Time"),
      QT_TR_NOOP("Throughput"), QT_TR_NOOP("Top diagnosis")};
  return section >= 0 && section < ColumnCount ? tr(kTitles[section]) : QVariant();
}

}  // namespace blasscope::ui
