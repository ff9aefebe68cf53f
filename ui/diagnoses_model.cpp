#include "diagnoses_model.h"

#include <QApplication>
#include <QStyle>
#include <algorithm>

namespace blasscope::ui {

DiagnosesModel::DiagnosesModel(QObject* parent) : QAbstractListModel(parent) {}

void DiagnosesModel::setDiagnoses(std::vector<core::Diagnosis> diagnoses) {
  beginResetModel();
  m_diagnoses = std::move(diagnoses);
  std::stable_sort(m_diagnoses.begin(), m_diagnoses.end(),
                   [](const core::Diagnosis& a, const core::Diagnosis& b) { return a.severity < b.severity; });
  endResetModel();
}

const core::Diagnosis* DiagnosesModel::diagnosisAt(int row) const {
  return row >= 0 && row < rowCount() ? &m_diagnoses[static_cast<std::size_t>(row)] : nullptr;
}

int DiagnosesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_diagnoses.size());
}

QVariant DiagnosesModel::data(const QModelIndex& index, int role) const {
  const core::Diagnosis* d = index.isValid() ? diagnosisAt(index.row()) : nullptr;
  if (!d) return {};
  switch (role) {
    case Qt::DisplayRole:
      return QStringLiteral("[%1] %2").arg(QString::fromStdString(d->id), QString::fromStdString(d->title));
    case Qt::ToolTipRole: return d->evidence.empty() ? QVariant() : QString::fromStdString(d->evidence.front());
    case Qt::DecorationRole: {
      const QStyle* style = QApplication::style();
      switch (d->severity) {
        case core::Severity::Error: return style->standardIcon(QStyle::SP_MessageBoxCritical);
        case core::Severity::Warning: return style->standardIcon(QStyle::SP_MessageBoxWarning);
        case core::Severity::Info: return style->standardIcon(QStyle::SP_MessageBoxInformation);
      }
      return {};
    }
    case Qt::UserRole: return d->op ? QVariant(static_cast<qulonglong>(*d->op)) : QVariant();
    default: return {};
  }
}

}  // namespace blasscope::ui
