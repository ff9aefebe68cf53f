#pragma once

#include <QObject>
#include <QProcess>
#include <set>

#include "core_metatypes.h"
#include "exec/worker_client.h"
#include "results/run_result.h"

namespace blasscope::ui {

// Runs a workload in blasscope-worker without blocking the GUI: events stream in as the
// worker writes them, a crash or a Stop keeps every event received, and the result arrives
// as one RunResult.
class WorkerRun : public QObject {
  Q_OBJECT

 public:
  explicit WorkerRun(QObject* parent = nullptr);
  ~WorkerRun() override;

  // `workload` is a file path or "scenario:ID"; `device` is cpu, gpu or both.
  void start(const QString& workload, const QString& device);
  void stop();
  bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

  // blasscope-worker next to this program, unless BLASSCOPE_WORKER names another.
  static QString workerPath();

 signals:
  void progress(int done, int total, const QString& current);
  void finished(const blasscope::core::RunResult& result);
  void failed(const QString& message);

 private:
  void readEvents();
  void processFinished(int exitCode, QProcess::ExitStatus status);

  QProcess m_process;
  core::RunCollector m_collector;
  core::WorkerStreamFramer m_framer;    // the worker's stdout, cut into events
  core::RunCollector::Progress m_last;  // progress last reported
  bool m_stopped = false;
};

}  // namespace blasscope::ui
