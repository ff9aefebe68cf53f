#include "findings_view.h"

#include <QHeaderView>
#include <QStyle>
#include <QTextBrowser>
#include <QTreeWidget>

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

QString fromUtf8(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace

FindingsView::FindingsView(QWidget* parent)
    : QSplitter(Qt::Horizontal, parent), m_list(new QTreeWidget), m_details(new QTextBrowser) {
  m_list->setHeaderLabels({tr("Severity"), tr("Finding"), tr("Tensor"), tr("Evidence")});
  m_list->setRootIsDecorated(false);
  m_list->setAlternatingRowColors(true);
  m_list->header()->setStretchLastSection(true);
  m_list->setColumnWidth(0, 100);
  m_list->setColumnWidth(1, 150);
  m_list->setColumnWidth(2, 110);
  m_details->setOpenExternalLinks(false);
  m_details->setPlaceholderText(tr("Select a finding to read all of its evidence."));
  addWidget(m_list);
  addWidget(m_details);
  setStretchFactor(0, 3);
  setStretchFactor(1, 2);
  connect(m_list, &QTreeWidget::currentItemChanged, this, &FindingsView::showDetails);
}

void FindingsView::clear() {
  m_list->clear();
  m_details->clear();
}

void FindingsView::showDetails() {
  const QTreeWidgetItem* item = m_list->currentItem();
  if (!item) {
    m_details->clear();
    return;
  }
  QString html;
  if (!item->text(1).isEmpty()) {
    html += QStringLiteral("<p><b>%1</b> %2</p>").arg(item->text(1).toHtmlEscaped(), item->text(0).toHtmlEscaped());
  }
  if (!item->text(2).isEmpty()) html += tr("<p>Tensor: <code>%1</code></p>").arg(item->text(2).toHtmlEscaped());
  html += QStringLiteral("<p>%1</p>").arg(item->text(3).toHtmlEscaped());
  m_details->setHtml(html);
}

void FindingsView::showFindings(const std::vector<core::Finding>& findings) {
  clear();
  for (const core::Finding& f : findings) {
    auto* item = new QTreeWidgetItem(
        m_list, {fromUtf8(core::name(f.severity)), fromUtf8(f.id), fromUtf8(f.tensor), fromUtf8(f.message)});
    item->setIcon(0, severityIcon(style(), f.severity));
    item->setToolTip(3, fromUtf8(f.message));
  }
  if (findings.empty()) return showMessage(tr("No findings: every value is finite and normal."));
  m_list->setCurrentItem(m_list->topLevelItem(0));
}

void FindingsView::showError(const QString& message) {
  clear();
  auto* item = new QTreeWidgetItem(m_list, {tr("error"), tr("unreadable-file"), QString(), message});
  item->setIcon(0, severityIcon(style(), core::Severity::Error));
  item->setToolTip(3, message);
  m_list->setCurrentItem(item);
}

void FindingsView::showMessage(const QString& message) {
  clear();
  auto* item = new QTreeWidgetItem(m_list, {QString(), QString(), QString(), message});
  item->setFlags(Qt::ItemIsEnabled);
  m_details->setPlainText(message);
}

}  // namespace blasscope::ui
