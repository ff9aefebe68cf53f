#include "gallery_view.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "triage_box.h"
#include "workload/scenarios.h"

namespace blasscope::ui {

QString GalleryView::groupOf(const QString& id) {
  if (id.startsWith(QStringLiteral("seed-"))) return tr("From the articles");
  static const QStringList kPerformance = {QStringLiteral("misaligned-vs-aligned"),
                                           QStringLiteral("ld-aliasing-vs-padded"), QStringLiteral("subnormal-inputs"),
                                           QStringLiteral("healthy-baseline")};
  return kPerformance.contains(id) ? tr("Performance") : tr("Real failures");
}

GalleryView::GalleryView(QWidget* parent)
    : QWidget(parent), m_search(new QLineEdit), m_tree(new QTreeWidget), m_triage(new TriageBox) {
  m_search->setPlaceholderText(tr("Search scenarios"));
  m_search->setClearButtonEnabled(true);
  m_tree->setHeaderHidden(true);
  m_tree->setRootIsDecorated(true);
  m_tree->setWordWrap(true);
  for (const QString& group : {tr("From the articles"), tr("Real failures"), tr("Performance")}) {
    auto* top = new QTreeWidgetItem(m_tree, {group});
    top->setFlags(Qt::ItemIsEnabled);
    top->setExpanded(true);
  }
  for (const auto& w : core::builtin_scenarios()) {
    const QString id = QString::fromStdString(w.scenario->id);
    const auto groups = m_tree->findItems(groupOf(id), Qt::MatchExactly);
    auto* item = new QTreeWidgetItem(groups.front(), {QString::fromStdString(w.scenario->title)});
    item->setData(0, Qt::UserRole, id);
    QString tip =
        QStringLiteral("<b>%1</b><p>%2</p>").arg(id, QString::fromStdString(w.scenario->story).toHtmlEscaped());
    if (!w.scenario->seed.empty()) tip += tr("<p>Seed: %1</p>").arg(QString::fromStdString(w.scenario->seed));
    item->setToolTip(0, tip);
  }
  auto* scenarios = new QWidget;
  auto* scenariosLayout = new QVBoxLayout(scenarios);
  scenariosLayout->setContentsMargins(0, 0, 0, 0);
  scenariosLayout->addWidget(m_search);
  scenariosLayout->addWidget(m_tree, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(scenarios);
  split->addWidget(m_triage);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split, 1);
  connect(m_triage, &TriageBox::scenarioRequested, this, &GalleryView::scenarioActivated);
  connect(m_search, &QLineEdit::textChanged, this, &GalleryView::filter);
  // One click runs a scenario (Enter too); a second click while it runs is ignored.
  auto activate = [this](QTreeWidgetItem* item) {
    const QString id = item->data(0, Qt::UserRole).toString();
    if (!id.isEmpty()) emit scenarioActivated(id);
  };
  connect(m_tree, &QTreeWidget::itemClicked, this, activate);
  connect(m_tree, &QTreeWidget::itemActivated, this, activate);
}

void GalleryView::filter(const QString& text) {
  for (int g = 0; g < m_tree->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = m_tree->topLevelItem(g);
    for (int i = 0; i < group->childCount(); ++i) {
      QTreeWidgetItem* item = group->child(i);
      const bool match = text.isEmpty() || item->text(0).contains(text, Qt::CaseInsensitive) ||
                         item->data(0, Qt::UserRole).toString().contains(text, Qt::CaseInsensitive);
      item->setHidden(!match);
    }
  }
}

}  // namespace blasscope::ui
