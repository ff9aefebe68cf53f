#include "overview_view.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "ops_model.h"
#include "report/recording_report.h"
#include "text/format.h"

namespace blasscope::ui {

OverviewView::OverviewView(QWidget* parent)
    : DocumentView(parent),
      m_model(new OpsModel(this)),
      m_table(new QTableView),
      m_header(new QLabel),
      m_summary(new QPlainTextEdit),
      m_toProfile(new QPushButton(tr("Show the calls in the Profile"))) {
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->setAlternatingRowColors(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_header->setWordWrap(true);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->addWidget(m_header);
  layout->addWidget(m_table, 1);
  m_summary->setObjectName(QStringLiteral("recordingSummary"));
  m_summary->setReadOnly(true);
  // Wrapped: the diagnoses are sentences, read whole without scrolling sideways (the routines
  // table wraps only in a window too narrow for it).
  m_summary->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_summary->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(m_summary, 1);
  m_toProfile->setToolTip(tr("Routines, a timeline per thread and every call, filterable"));
  connect(m_toProfile, &QPushButton::clicked, this, &OverviewView::profileRequested);
  layout->addWidget(m_toProfile, 0, Qt::AlignLeft);
  setContent(content);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
    if (const auto* r = m_model->recordAt(index.row())) emit opSelected(r->op);
  });
  showEmpty(tr("No workload yet. Pick a scenario in the gallery, or open a workload (Ctrl+O), and run it."));
}

void OverviewView::setDocument(const RunDocument* doc) {
  m_model->setRun(doc && doc->run ? &*doc->run : nullptr, doc ? &doc->diagnoses : nullptr);
  const bool recording = doc && doc->kind == RunDocument::Kind::Recording && doc->recording;
  m_table->setVisible(!recording);
  m_summary->setVisible(recording);
  m_toProfile->setVisible(recording);
  if (recording) return showRecording(*doc);
  m_summary->clear();
  if (!doc || doc->kind != RunDocument::Kind::Workload) {
    showEmpty(doc && doc->kind == RunDocument::Kind::TensorFile
                  ? tr("A tensor file has no ops: see the Tensors view.")
                  : tr("No workload yet. Pick a scenario in the gallery, or open a workload (Ctrl+O), and run it."));
    return;
  }
  QString header = QStringLiteral("<b>%1</b>").arg(doc->title.toHtmlEscaped());
  if (doc->workload && doc->workload->scenario) {
    header += QStringLiteral("<br>") + QString::fromStdString(doc->workload->scenario->story).toHtmlEscaped();
  }
  if (!doc->run) {
    header += tr("<br><i>Not run yet: Run on CPU (Ctrl+R), GPU (Ctrl+G) or both (Ctrl+B).</i>");
  } else if (doc->run->crash && doc->run->crash->signal == core::kTimeLimitEnd) {
    header +=
        tr("<br><span style='color:#c62828'>%1 never returned (%2): the worker was stopped; the events "
           "before it are kept.</span>")
            .arg(QString::fromStdString(doc->run->crash->kernel), QString::fromStdString(doc->run->crash->output));
  } else if (doc->run->crash) {
    header += tr("<br><span style='color:#c62828'>The worker died with %1; the events before it are kept.</span>")
                  .arg(QString::fromStdString(doc->run->crash->signal));
  }
  m_header->setText(header);
  showContent();
}

void OverviewView::showRecording(const RunDocument& doc) {
  // The whole command, as the Profile's heading gives it (the document's title is its name only).
  const QString command = QString::fromStdString(core::shell_command(doc.recording->command));
  m_header->setText(QStringLiteral("<b>%1</b><br>").arg((command.isEmpty() ? doc.title : command).toHtmlEscaped()) +
                    tr("A recorded program: what the recorder printed when it ended. The Failures panel "
                       "explains each finding; the Profile has every call."));
  m_summary->setPlainText(QString::fromStdString(core::recording_summary(*doc.recording, doc.diagnoses)));
  showContent();
}

QString OverviewView::summaryText() const {
  return m_summary->toPlainText();
}

void OverviewView::selectOp(std::size_t op) {
  const int row = m_model->rowOfOp(op);
  if (row >= 0 && m_table->currentIndex().row() != row) m_table->selectRow(row);
}

}  // namespace blasscope::ui
