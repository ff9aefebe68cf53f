#include "triage_box.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "diagnose/triage.h"

namespace blasscope::ui {
namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
QString html(const std::string& s) {
  return qs(s).toHtmlEscaped();
}

QString valuesText(const core::TriageMatch& m) {
  QStringList parts;
  for (const auto& [name, value] : m.values) parts << html(name) + QLatin1Char('=') + html(value);
  return parts.join(QStringLiteral(" &nbsp;"));
}

// One match as a block of rich text: it wraps in the narrow dock, long names included.
QString matchHtml(const core::TriageMatch& m, int rank) {
  QString block = QStringLiteral("<p style='margin-top:6px'><b>%1. %2</b><br><small>%3 &middot; %4</small><br>")
                      .arg(rank)
                      .arg(html(m.title), html(m.id), html(std::string(core::name(m.severity))));
  block += QObject::tr("line %1: <code>%2</code>").arg(m.line_number).arg(html(m.line));
  if (!m.values.empty()) block += QStringLiteral("<br><code>%1</code>").arg(valuesText(m));
  if (const core::Explanation* e = core::find_explanation(m.id)) {
    // The page's cause, first sentence: the rest is a hover or `blasscope-cli explain` away.
    const QString cause = qs(e->cause).simplified();
    const qsizetype stop = cause.indexOf(QStringLiteral(". "));
    block += QStringLiteral("<br><small>%1</small>").arg((stop > 0 ? cause.left(stop + 1) : cause).toHtmlEscaped());
  }
  block += m.scenario.empty() ? QObject::tr("<br><i>No built-in scenario reproduces it.</i>")
                              : QObject::tr("<br><a href='%1'>Run the scenario %2</a>")
                                    .arg(TriageBox::scenarioLink(qs(m.scenario)).toString(), html(m.scenario));
  return block + QStringLiteral("</p>");
}

}  // namespace

QUrl TriageBox::scenarioLink(const QString& id) {
  return QUrl(QStringLiteral("scenario:") + id);
}

TriageBox::TriageBox(QWidget* parent)
    : QWidget(parent),
      m_input(new QPlainTextEdit),
      m_find(new QPushButton(tr("Find the cause"))),
      m_summary(new QLabel),
      m_results(new QTextBrowser) {
  auto* title = new QLabel(tr("<b>Paste an error</b>"));
  m_input->setPlaceholderText(
      tr("A traceback or log lines from NumPy, SciPy, PyTorch, TensorFlow, MKL, "
         "OpenBLAS, LAPACK, cuBLAS or CUDA; then Ctrl+Return"));
  m_input->setTabChangesFocus(true);
  m_find->setToolTip(tr("Match the text against every known error text (Ctrl+Return)"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->hide();
  m_results->setOpenLinks(false);
  m_results->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(title);
  layout->addWidget(m_input, 1);
  layout->addWidget(m_find);
  layout->addWidget(m_summary);
  layout->addWidget(m_results, 3);

  connect(m_find, &QPushButton::clicked, this, &TriageBox::findCause);
  for (const QKeySequence& keys : {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
    auto* shortcut = new QShortcut(keys, m_input);
    shortcut->setContext(Qt::WidgetShortcut);
    connect(shortcut, &QShortcut::activated, this, &TriageBox::findCause);
  }
  connect(m_results, &QTextBrowser::anchorClicked, this, &TriageBox::openLink);
}

void TriageBox::findCause() {
  // Pasted text is small; a very long paste still costs milliseconds, not a frozen window.
  const std::string text = m_input->toPlainText().toStdString();
  const auto matches = core::triage_text(text);
  m_ids.clear();
  m_scenarios.clear();
  m_summary->show();
  if (matches.empty()) {
    m_summary->setText(text.empty() ? tr("Paste an error message or traceback first.")
                                    : tr("No known error text here. To see what really happens, record the "
                                         "program: <tt>blasscope-cli record -- YOUR COMMAND</tt> explains every "
                                         "failing BLAS/LAPACK call."));
    m_results->clear();
    m_results->hide();
    return;
  }
  m_summary->setText(matches.size() == 1 ? tr("1 diagnosis matches:")
                                         : tr("%1 diagnoses match, most likely first:").arg(matches.size()));
  QString page;
  for (std::size_t i = 0; i < matches.size(); ++i) {
    page += matchHtml(matches[i], static_cast<int>(i + 1));
    m_ids << qs(matches[i].id);
    m_scenarios << qs(matches[i].scenario);
  }
  m_results->setHtml(page);
  m_results->show();
}

void TriageBox::openLink(const QUrl& url) {
  if (url.scheme() == QStringLiteral("scenario") && !url.path().isEmpty()) emit scenarioRequested(url.path());
}

}  // namespace blasscope::ui
