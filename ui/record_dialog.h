#pragma once

#include <QDialog>
#include <atomic>
#include <memory>

#include "background_task.h"

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace blasscope::ui {

// File ▸ Record program…: runs a command with every BLAS/LAPACK call recorded (as
// `blasscope-cli record` does), shows the calls as they are counted, stops it on request,
// and hands the saved session to the window.
class RecordDialog : public QDialog {
  Q_OBJECT

 public:
  explicit RecordDialog(QWidget* parent = nullptr);
  ~RecordDialog() override;

  bool isRecording() const { return m_recording; }
  // For tests and scripts: fill the fields, then start() as the Record button does.
  void setCommand(const QString& command, const QString& directory = {});
  void setTimeout(int seconds);
  void start();
  void stop();

 signals:
  // The session was written to `path`.
  void recorded(const QString& path);
  void failed(const QString& message);

 private:
  void chooseDirectory();
  void setRecording(bool on);

  QLineEdit* m_command;
  QLineEdit* m_directory;
  QSpinBox* m_timeout;
  QCheckBox* m_checkValues;
  QCheckBox* m_allNested;
  QLabel* m_status;
  QPushButton* m_record;
  QPushButton* m_stop;
  BackgroundTask m_task{this};
  std::shared_ptr<std::atomic<bool>> m_stopRequested;
  bool m_recording = false;
};

}  // namespace blasscope::ui
