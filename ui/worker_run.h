#pragma once

#include <QObject>
#include <QTimer>
#include <memory>

#include "core_metatypes.h"
#include "exec/worker_client.h"
#include "results/run_result.h"

class QSocketNotifier;

namespace blasscope::ui {

// Runs a workload in blasscope-worker without blocking the GUI: core's WorkerProcess spawns
// it and reads its stream; this class only watches its pipes from the event loop. A crash or
// a Stop keeps every event received, and the result arrives as one RunResult.
class WorkerRun : public QObject {
  Q_OBJECT

 public:
  explicit WorkerRun(QObject* parent = nullptr);
  ~WorkerRun() override;

  // `workload` is a file path or "scenario:ID"; `device` is cpu, gpu or both. An op running
  // past its time limit is stopped and reported as kernel-hang.
  void start(const QString& workload, const QString& device, const core::TimeLimits& limits = {});
  void stop();
  bool isRunning() const { return m_process != nullptr; }

  // blasscope-worker next to this program, unless BLASSCOPE_WORKER names another.
  static QString workerPath();

 signals:
  void progress(int done, int total, const QString& current);
  void finished(const blasscope::core::RunResult& result);
  void failed(const QString& message);

 private:
  void readEvents();
  void watchRunningOp();
  bool tryFinish();  // true once the worker has been reaped and `finished` emitted
  void release();

  std::unique_ptr<core::WorkerProcess> m_process;
  std::unique_ptr<QSocketNotifier> m_events, m_stderr;
  QTimer m_reaper;  // polls for the worker's exit once its stream has ended
  QTimer m_watch;   // the running op's elapsed time and time limit, four times a second
  core::RunCollector m_collector;
  core::RunCollector::Progress m_last;  // progress last reported
};

}  // namespace blasscope::ui
