#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <stop_token>
#include <thread>

#include "analysis/inspect_report.h"
#include "background_task.h"
#include "core_metatypes.h"

namespace blasscope::ui {

// Opens and scans a tensor file on a background thread. Results arrive in stages on the
// GUI thread: the tensor table first (described), then each tensor's values (tensorScanned).
// Starting a new load or calling cancel() stops the previous one; its results are dropped.
class FileLoader : public QObject {
  Q_OBJECT

 public:
  explicit FileLoader(QObject* parent = nullptr);
  ~FileLoader() override;

  void load(const QString& path);
  void cancel();
  bool isBusy() const { return m_busy; }

 signals:
  void described(const QString& path, const blasscope::core::InspectReport& report);
  void tensorScanned(int row, const blasscope::core::TensorReport& tensor);
  void progress(qint64 done, qint64 total);
  void finished(const blasscope::core::InspectReport& report);
  void failed(const QString& path, const QString& message);
  void cancelled();

 private:
  void run(std::stop_token stop, QString path, quint64 generation);
  // Runs `deliver` on the GUI thread unless a newer load or a cancel has happened since.
  template <typename F>
  void post(quint64 generation, F&& deliver);

  BackgroundTask m_task;
  bool m_busy = false;
};

}  // namespace blasscope::ui
