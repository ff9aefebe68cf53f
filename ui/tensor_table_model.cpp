#include "tensor_table_model.h"

#include <QBrush>
#include <QColor>

#include "report/inspect_text.h"

namespace blasscope::ui {
namespace {

bool streamed(const core::TensorReport& t) {
  return t.info.storage.kind == core::TensorStorage::Kind::Streamed;
}

QString toQString(const std::string& text) {
  return QString::fromStdString(text);
}
QString toQString(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::optional<std::uint64_t> statCount(const core::TensorStats& s, int column) {
  switch (column) {
    case TensorTableModel::NaN: return s.nan;
    case TensorTableModel::PosInf: return s.posinf;
    case TensorTableModel::NegInf: return s.neginf;
    case TensorTableModel::Zero: return s.zero;
    case TensorTableModel::Subnormal: return s.subnormal;
    default: return std::nullopt;
  }
}

}  // namespace

TensorTableModel::TensorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TensorTableModel::setTensors(std::vector<core::TensorReport> tensors) {
  beginResetModel();
  m_tensors = std::move(tensors);
  endResetModel();
}

void TensorTableModel::updateTensor(int row, const core::TensorReport& tensor) {
  if (row < 0 || row >= rowCount()) return;
  m_tensors[static_cast<std::size_t>(row)] = tensor;
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void TensorTableModel::clear() {
  setTensors({});
}

const core::TensorReport* TensorTableModel::tensorAt(int row) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  return &m_tensors[static_cast<std::size_t>(row)];
}

int TensorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_tensors.size());
}

int TensorTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TensorTableModel::displayText(const core::TensorReport& t, int column) const {
  switch (column) {
    case Name: return toQString(t.info.name);
    case DType: return toQString(t.info.dtype_name());
    case Shape: return toQString(core::format_shape(t.info.shape));
    case Order: return toQString(core::name(t.info.order));
    case Bytes: return toQString(core::format_bytes(t.info.nbytes));
    // Data libhdf5 delivers has no single offset in the file (the tooltip says so).
    case Offset: return streamed(t) ? QStringLiteral("libhdf5") : QString::number(t.info.data_offset);
    case Alignment: return streamed(t) ? QStringLiteral("—") : QString::number(t.layout.file_alignment);
    case Shard: return toQString(t.info.shard);
    default: break;
  }
  if (!t.scanned) return tr("scanning…");
  if (!t.stats) return QStringLiteral("–");
  if (const auto count = statCount(*t.stats, column)) return QString::number(*count);
  const auto& extreme = column == Min ? t.stats->min : t.stats->max;
  return extreme ? toQString(core::format_scalar(*extreme)) : QStringLiteral("–");
}

QVariant TensorTableModel::sortValue(const core::TensorReport& t, int column) const {
  switch (column) {
    case Bytes: return QVariant::fromValue<qulonglong>(t.info.nbytes);
    case Offset: return QVariant::fromValue<qulonglong>(t.info.data_offset);
    case Alignment: return QVariant::fromValue<qulonglong>(t.layout.file_alignment);
    default: break;
  }
  if (t.stats) {
    if (const auto count = statCount(*t.stats, column)) return QVariant::fromValue<qulonglong>(*count);
    const auto& extreme = column == Min ? t.stats->min : t.stats->max;
    if ((column == Min || column == Max) && extreme) return extreme->as_double();
  }
  return displayText(t, column);
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const core::TensorReport& t = m_tensors[static_cast<std::size_t>(index.row())];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole: return displayText(t, column);
    case Qt::UserRole: return sortValue(t, column);
    case Qt::TextAlignmentRole:
      return column >= Bytes && column != Shard ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::BackgroundRole:
      if (t.stats && t.stats->nonfinite() > 0) return QBrush(QColor(255, 228, 225));
      if (t.stats && t.stats->subnormal > 0) return QBrush(QColor(255, 248, 220));
      return {};
    case Qt::ToolTipRole:
      if (t.info.storage.kind == core::TensorStorage::Kind::Deflated && column == Offset) {
        return tr("Offset inside the compressed .npz member (the data is deflated in the file).");
      }
      if (streamed(t) && (column == Offset || column == Alignment)) {
        return tr(
            "Read through libhdf5 (chunked, filtered, never written, or in a deflated .keras member): no single offset "
            "in the file.");
      }
      if (t.stats && t.stats->nonfinite() > 0) {
        return tr("%1 NaN, %2 +Inf, %3 -Inf: BLAS spreads them; LAPACK SVD/least squares fail on them.")
            .arg(t.stats->nan)
            .arg(t.stats->posinf)
            .arg(t.stats->neginf);
      }
      return {};
    default: return {};
  }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kTitles[ColumnCount] = {
      QT_TR_NOOP("Name"),   QT_TR_NOOP("DType"), QT_TR_NOOP("Shape"),     QT_TR_NOOP("Order"), QT_TR_NOOP("Bytes"),
      QT_TR_NOOP("Offset"), QT_TR_NOOP("Align"), QT_TR_NOOP("Shard"),     QT_TR_NOOP("NaN"),   QT_TR_NOOP("+Inf"),
      QT_TR_NOOP("−Inf"),   QT_TR_NOOP("Zero"),  QT_TR_NOOP("Subnormal"), QT_TR_NOOP("Min"),   QT_TR_NOOP("Max")};
  if (section < 0 || section >= ColumnCount) return {};
  return tr(kTitles[section]);
}

}  // namespace blasscope::ui
