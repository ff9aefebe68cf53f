#include "failures_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include "diagnoses_model.h"

namespace blasscope::ui {
namespace {

QString esc(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

}  // namespace

FailuresPanel::FailuresPanel(QWidget* parent)
    : QWidget(parent),
      m_model(new DiagnosesModel(this)),
      m_list(new QListView),
      m_details(new QTextBrowser),
      m_summary(new QLabel) {
  m_list->setModel(m_model);
  m_list->setWordWrap(true);
  m_list->setAlternatingRowColors(true);
  m_details->setOpenLinks(false);
  m_summary->setWordWrap(true);
  auto* copy = new QPushButton(tr("Copy fix"));
  copy->setToolTip(tr("Copy the fix, with its code lines, to the clipboard"));
  connect(copy, &QPushButton::clicked, this, [this] {
    if (const auto* d = m_model->diagnosisAt(m_list->currentIndex().row())) {
      QApplication::clipboard()->setText(QString::fromStdString(d->fix));
    }
  });
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_list);
  split->addWidget(m_details);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);
  layout->addWidget(copy, 0, Qt::AlignRight);
  connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this, &FailuresPanel::showDetails);
  setDiagnoses({}, tr("Open a scenario, a workload or a tensor file, then run it: its diagnoses appear here."));
}

void FailuresPanel::setDiagnoses(std::vector<core::Diagnosis> diagnoses, const QString& emptyText) {
  int errors = 0, warnings = 0;
  for (const auto& d : diagnoses) {
    errors += d.severity == core::Severity::Error;
    warnings += d.severity == core::Severity::Warning;
  }
  const bool empty = diagnoses.empty();
  m_model->setDiagnoses(std::move(diagnoses));
  const auto count = [](int n, const char* one, const char* many) {
    return QString::number(n) + QStringLiteral(" ") + QString::fromLatin1(n == 1 ? one : many);
  };
  m_summary->setText(empty ? emptyText
                           : tr("%1: %2, %3")
                                 .arg(count(m_model->rowCount(), "diagnosis", "diagnoses"))
                                 .arg(count(errors, "error", "errors"))
                                 .arg(count(warnings, "warning", "warnings")));
  m_details->clear();
  if (!empty) m_list->setCurrentIndex(m_model->index(0));
}

// The explanation pages are Markdown (lists, code, the per-driver tables): shown rendered,
// as the body of the HTML Qt makes from them.
QString markdownFragment(const std::string& markdown) {
  QTextDocument document;
  document.setMarkdown(QString::fromStdString(markdown));
  const QString html = document.toHtml();
  const auto body = html.indexOf(QStringLiteral("<body"));
  const auto start = body < 0 ? -1 : html.indexOf(QLatin1Char('>'), body);
  const auto end = html.lastIndexOf(QStringLiteral("</body>"));
  return start < 0 || end < start ? esc(markdown) : html.mid(start + 1, end - start - 1);
}

QString FailuresPanel::detailText() const {
  return m_details->toPlainText();
}

void FailuresPanel::showDetails() {
  const core::Diagnosis* d = m_model->diagnosisAt(m_list->currentIndex().row());
  if (!d) return;
  QString html = QStringLiteral("<h3>%1</h3><p><code>%2</code> · %3")
                     .arg(esc(d->title), esc(d->id), esc(std::string(core::name(d->severity))));
  if (d->op) html += tr(" · op %1").arg(*d->op);
  if (d->tensor) html += tr(" · tensor <code>%1</code>").arg(esc(*d->tensor));
  html += QStringLiteral("</p><h4>%1</h4><ul>").arg(tr("Evidence"));
  for (const auto& e : d->evidence) html += QStringLiteral("<li>%1</li>").arg(esc(e));
  html += QStringLiteral("</ul><h4>%1</h4>%2<h4>%3</h4>%4<h4>%5</h4><ul>")
              .arg(tr("Cause"), markdownFragment(d->cause), tr("Fix"), markdownFragment(d->fix), tr("Seen as"));
  for (const auto& s : d->seen_as) html += QStringLiteral("<li><code>%1</code></li>").arg(esc(s));
  html += QStringLiteral("</ul>");
  m_details->setHtml(html);
  // The tensor first: in the dtype flow the op, when there is one, keeps the highlight.
  if (d->tensor) emit tensorSelected(QString::fromStdString(*d->tensor));
  if (d->op) emit opSelected(*d->op);
  if (const auto call = d->facts.find("call"); call != d->facts.end() && call->is_number_unsigned()) {
    emit callSelected(call->get<quint64>());
  }
}

}  // namespace blasscope::ui
