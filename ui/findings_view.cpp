#include "findings_view.h"

#include <QHeaderView>
#include <QStyle>

namespace blasscope::ui {
namespace {

QIcon severityIcon(const QStyle* style, core::Severity severity) {
  switch (severity) {
    case core::Severity::Error: return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case core::Severity::Warning: return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case core::Severity::Info: break;
  }
  return style->standardIcon(QStyle::SP_MessageBoxInformation);
}

QString fromUtf8(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

}  // namespace

FindingsView::FindingsView(QWidget* parent) : QTreeWidget(parent) {
  setHeaderLabels({tr("Severity"), tr("Finding"), tr("Tensor"), tr("Evidence")});
  setRootIsDecorated(false);
  setWordWrap(true);
  setAlternatingRowColors(true);
  header()->setStretchLastSection(true);
  setColumnWidth(0, 110);
  setColumnWidth(1, 160);
  setColumnWidth(2, 120);
}

void FindingsView::showFindings(const std::vector<core::Finding>& findings) {
  clear();
  for (const core::Finding& f : findings) {
    auto* item = new QTreeWidgetItem(this, {fromUtf8(core::name(f.severity)), fromUtf8(f.id), fromUtf8(f.tensor),
                                            fromUtf8(f.message)});
    item->setIcon(0, severityIcon(style(), f.severity));
    item->setToolTip(3, fromUtf8(f.message));
  }
  if (findings.empty()) showMessage(tr("No findings: every value is finite and normal."));
}

void FindingsView::showError(const QString& message) {
  clear();
  auto* item = new QTreeWidgetItem(this, {tr("error"), tr("unreadable-file"), QString(), message});
  item->setIcon(0, severityIcon(style(), core::Severity::Error));
  item->setToolTip(3, message);
}

void FindingsView::showMessage(const QString& message) {
  clear();
  auto* item = new QTreeWidgetItem(this, {QString(), QString(), QString(), message});
  item->setFlags(Qt::ItemIsEnabled);
}

}  // namespace blasscope::ui
