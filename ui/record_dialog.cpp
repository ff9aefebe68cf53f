#include "record_dialog.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>

#include "record/session_recording.h"

namespace blasscope::ui {

RecordDialog::RecordDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Record program"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Runs the program unmodified and records every BLAS/LAPACK (and cuBLAS) call it and its children make: "
         "routine, sizes, time, INFO, argument errors, NaN/Inf. Its output goes to the terminal BLAScope was "
         "started from."));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  m_command = new QLineEdit;
  m_command->setPlaceholderText(QStringLiteral("python3 train.py --epochs 1"));
  m_command->setObjectName(QStringLiteral("command"));
  form->addRow(tr("&Command:"), m_command);
  auto* directoryRow = new QHBoxLayout;
  m_directory = new QLineEdit(QDir::currentPath());
  auto* browse = new QPushButton(tr("Browse…"));
  directoryRow->addWidget(m_directory);
  directoryRow->addWidget(browse);
  // A row holding a layout gets a label without a buddy: made here, so that Alt+W works.
  auto* directoryLabel = new QLabel(tr("&Working directory:"));
  directoryLabel->setBuddy(m_directory);
  form->addRow(directoryLabel, directoryRow);
  m_timeout = new QSpinBox;
  m_timeout->setRange(0, 7 * 24 * 3600);
  m_timeout->setSuffix(tr(" s"));
  m_timeout->setSpecialValueText(tr("none"));
  m_timeout->setToolTip(tr("Stop the program after this long; the call still running is named (kernel-hang)"));
  form->addRow(tr("&Time limit:"), m_timeout);
  m_checkValues = new QCheckBox(tr("Also scan GEMM operands and results for NaN/Inf (slower)"));
  form->addRow(QString(), m_checkValues);
  m_allNested = new QCheckBox(tr("List every call made inside LAPACK routines (slower)"));
  m_allNested->setObjectName(QStringLiteral("allNested"));
  m_allNested->setToolTip(tr("By default the first %1 calls made inside each call are listed, and every one that "
                             "fails or runs 100 µs or more; the others are counted in the totals only")
                              .arg(record::kDefaultNestedLimit));
  form->addRow(QString(), m_allNested);
  layout->addLayout(form);
  m_status = new QLabel(tr("Ready."));
  m_status->setObjectName(QStringLiteral("status"));
  m_status->setWordWrap(true);                                   // long session paths and error messages
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the session's path can be copied
  layout->addWidget(m_status);
  auto* buttons = new QDialogButtonBox;
  m_record = buttons->addButton(tr("&Record"), QDialogButtonBox::AcceptRole);
  m_stop = buttons->addButton(tr("&Stop"), QDialogButtonBox::ActionRole);
  auto* close = buttons->addButton(QDialogButtonBox::Close);
  m_stop->setEnabled(false);
  layout->addWidget(buttons);

  connect(browse, &QPushButton::clicked, this, &RecordDialog::chooseDirectory);
  connect(m_record, &QPushButton::clicked, this, &RecordDialog::start);
  connect(m_stop, &QPushButton::clicked, this, &RecordDialog::stop);
  connect(close, &QPushButton::clicked, this, [this] {
    stop();
    reject();
  });
  resize(640, sizeHint().height());
}

RecordDialog::~RecordDialog() {
  if (m_stopRequested) *m_stopRequested = true;
  m_task.stop();  // the recorder stops the program on its next progress check
}

void RecordDialog::setCommand(const QString& command, const QString& directory) {
  m_command->setText(command);
  if (!directory.isEmpty()) m_directory->setText(directory);
}

void RecordDialog::setTimeout(int seconds) {
  m_timeout->setValue(seconds);
}

void RecordDialog::chooseDirectory() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Working directory"), m_directory->text());
  if (!dir.isEmpty()) m_directory->setText(dir);
}

void RecordDialog::setRecording(bool on) {
  m_recording = on;
  m_record->setEnabled(!on);
  m_stop->setEnabled(on);
  m_command->setEnabled(!on);
}

void RecordDialog::start() {
  if (m_recording) return;
  const QStringList words = QProcess::splitCommand(m_command->text());
  if (words.isEmpty()) {
    m_status->setText(tr("Type the command to record, for example python3 train.py."));
    return;
  }
  record::RecordOptions options;
  for (const QString& w : words) options.command.push_back(w.toStdString());
  options.working_directory = m_directory->text().toStdString();
  options.timeout_seconds = m_timeout->value();
  options.check_values = m_checkValues->isChecked();
  if (m_allNested->isChecked()) options.nested_limit = record::kAllNested;
  options.preload_library = record::default_preload_library();
  const QString directory = m_directory->text().isEmpty() ? QDir::currentPath() : m_directory->text();
  m_stopRequested = std::make_shared<std::atomic<bool>>(false);
  auto stopRequested = m_stopRequested;
  setRecording(true);
  m_status->setText(tr("Recording %1 …").arg(words.front()));
  m_task.launch([this, options, directory, stopRequested](std::stop_token stop, quint64 generation) mutable {
    // Captures of this recording only: a later one must not mix its files in.
    options.capture_dir =
        (directory + QStringLiteral("/blasscope-record-%1.captures")
                         .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz"))))
            .toStdString();
    options.progress = [&](std::uint64_t calls) {
      m_task.post(generation, [this, calls] { m_status->setText(tr("Recording: %L1 calls so far …").arg(calls)); });
      return !stop.stop_requested() && !*stopRequested;
    };
    record::SavedRecording saved;
    QString error;
    try {
      record::SessionOptions session;
      session.folder = directory.toStdString();
      saved = record::record_to_session(options, session);
    } catch (const std::exception& e) {  // the recording buffer could not be made
      error = QString::fromUtf8(e.what());
    }
    const record::Recording& recording = saved.recording;
    if (!error.isEmpty()) {
      // reported below
    } else if (recording.pid == 0) {
      error = QString::fromStdString(recording.problem);
    } else if (!saved.error.empty()) {
      error = QString::fromStdString(saved.error);
    }
    const QString path = QString::fromStdString(saved.session);
    // A child process's session that could not be written loses that child's calls only: the
    // program's session opens, and the status says what is missing (the CLI prints the same).
    QStringList childErrors;
    for (const std::string& e : saved.child_errors) childErrors << QString::fromStdString(e);
    m_task.post(generation,
                [this, path, error, childErrors, calls = recording.calls_total, status = recording.exit_status] {
                  setRecording(false);
                  if (!error.isEmpty()) {
                    m_status->setText(tr("Not recorded: %1").arg(error));
                    emit failed(error);
                    return;
                  }
                  QString text = tr("%L1 calls recorded, exit status %2; saved as %3").arg(calls).arg(status).arg(path);
                  if (!childErrors.isEmpty()) text += QLatin1Char('\n') + childErrors.join(QLatin1Char('\n'));
                  m_status->setText(text);
                  emit recorded(path);
                });
  });
}

void RecordDialog::stop() {
  if (m_stopRequested) *m_stopRequested = true;
  if (m_recording) m_status->setText(tr("Stopping …"));
}

}  // namespace blasscope::ui
