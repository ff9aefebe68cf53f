#pragma once

#include <QHash>
#include <QMainWindow>

#include "report/inspect_report.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace blasscope::ui {

class FileLoader;
class FindingsView;
class TensorTableModel;

// The inspector window: opened files on the left, their tensors in the middle, findings
// below. Files load on a background thread with progress and a cancel button.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void openFiles(const QStringList& paths);
  // Saves a PNG of the window once the current file is read (or failed), then quits.
  void saveScreenshotWhenIdle(const QString& pngPath);
  TensorTableModel* tensorModel() const { return m_model; }
  FileLoader* loader() const { return m_loader; }

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createActions();
  void createWidgets();
  void connectLoader();
  void showFile(const QString& path);
  void chooseFiles();
  void reloadCurrent();
  void closeCurrent();
  void cancelLoad();
  void showSummary(const core::InspectReport& report);
  void setBusy(bool busy);
  QString currentPath() const;

  TensorTableModel* m_model;
  QSortFilterProxyModel* m_proxy;
  FileLoader* m_loader;
  QListWidget* m_files = nullptr;
  QTableView* m_table = nullptr;
  FindingsView* m_findings = nullptr;
  QLabel* m_summary = nullptr;
  QLineEdit* m_filter = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
  QHash<QString, core::InspectReport> m_reports;  // finished scans, by path
};

}  // namespace blasscope::ui
