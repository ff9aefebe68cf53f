#pragma once

#include <QMainWindow>
#include <memory>

#include "run_document.h"

class QDockWidget;
class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QMenu;
class QProcess;

namespace blasscope::ui {

class DocumentView;
class FailuresPanel;
class RecordDialog;
class FileLoader;
class GalleryView;
class WorkerRun;
class TensorValuesJob;

// The inspector window: the scenario gallery on the left, the views in the middle, the
// failures panel on the right. Tensor files load and workloads run in the background (the
// worker process) with progress and Stop; nothing here blocks the GUI thread for long.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // A tensor file, a workload (.json), a session (.json) or "scenario:ID".
  void open(const QString& source);
  void runOn(const QString& device);
  void stopRun();
  bool isBusy() const;
  // Whether the Tensors view's values are still being read (this never holds up a run).
  bool isReadingValues() const;
  const RunDocument& document() const { return m_doc; }
  FailuresPanel* failuresPanel() const { return m_failures; }
  GalleryView* gallery() const { return m_gallery; }
  QTabWidget* tabs() const { return m_tabs; }
  const std::vector<DocumentView*>& views() const { return m_views; }
  // Saves one PNG per view into `dir` (named after the view); false when one failed.
  bool saveViewScreenshots(const QString& dir);
  // Headless use (screenshot mode): problems go to stderr and the status bar, never to a
  // dialog that nobody can close.
  void setInteractive(bool interactive) { m_interactive = interactive; }
  // The last warning shown since start; non-interactive callers treat it as a failure.
  const QString& lastWarning() const { return m_last_warning; }

 signals:
  void idle();  // a load or a run has finished (or failed)

 protected:
  void closeEvent(QCloseEvent* event) override;
  // Keeps the views at least 45% of a narrow window by narrowing the docks.
  void resizeEvent(QResizeEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createViews();
  void createActions();
  void probeEnvironment();
  void setDocument(RunDocument doc);
  void refreshViews();
  void selectOp(std::size_t op);
  void selectTensorNamed(const QString& name);
  void addRecent(const QString& source);
  void rebuildRecentMenu();
  void setBusy(bool busy, const QString& what = {});
  void chooseFile();
  void chooseFolder();
  void saveSession();
  void exportReport();
  void exportTrace();
  void recordProgram();  // File ▸ Record Program…
  void exportView();
  // Writes an export and says where it went, or why it was not written.
  bool writeExport(const QString& path, const std::string& content, const QString& what);
  void reportExportFailure(const QString& title, const std::exception& error);
  void warn(const QString& title, const QString& text);

  RunDocument m_doc;
  FileLoader* m_loader;
  WorkerRun* m_worker;
  RecordDialog* m_recorder = nullptr;
  TensorValuesJob* m_values;  // the Tensors view's values, read off the GUI thread
  QTabWidget* m_tabs = nullptr;
  std::vector<DocumentView*> m_views;
  FailuresPanel* m_failures = nullptr;
  GalleryView* m_gallery = nullptr;
  QLabel* m_environment = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_stop = nullptr;
  QMenu* m_recent = nullptr;
  QString m_defaultDevice = QStringLiteral("cpu");
  QProcess* m_probe = nullptr;
  QString m_last_warning;
  QDockWidget* m_galleryDock = nullptr;
  QDockWidget* m_failuresDock = nullptr;
  bool m_interactive = true;  // blasscope-worker --environment, while it runs
};

}  // namespace blasscope::ui
