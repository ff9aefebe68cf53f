#include "worker_run.h"

#include <QCoreApplication>
#include <QDir>
#include <QSocketNotifier>

namespace blasscope::ui {

WorkerRun::WorkerRun(QObject* parent) : QObject(parent) {
  m_reaper.setInterval(20);
  connect(&m_reaper, &QTimer::timeout, this, &WorkerRun::tryFinish);
  m_watch.setInterval(250);
  connect(&m_watch, &QTimer::timeout, this, &WorkerRun::watchRunningOp);
}

WorkerRun::~WorkerRun() {
  release();  // the process's destructor kills and reaps a worker still running
}

QString WorkerRun::workerPath() {
  const QByteArray overridden = qgetenv("BLASSCOPE_WORKER");
  if (!overridden.isEmpty()) return QString::fromLocal8Bit(overridden);
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("blasscope-worker"));
}

void WorkerRun::start(const QString& workload, const QString& device, const core::TimeLimits& limits) {
  if (isRunning()) return;
  m_collector = core::RunCollector();
  m_last = {};
  auto process = std::make_unique<core::WorkerProcess>();
  core::WorkerProcess::Options options;
  options.capture_stderr = true;
  options.time_limits = limits;
  std::string error;
  if (!process->start(workerPath().toStdString(), {workload.toStdString(), "--device", device.toStdString()}, options,
                      error)) {
    emit failed(QString::fromStdString(error));
    return;
  }
  m_process = std::move(process);
  m_watch.start();
  m_events = std::make_unique<QSocketNotifier>(m_process->events_fd(), QSocketNotifier::Read);
  connect(m_events.get(), &QSocketNotifier::activated, this, &WorkerRun::readEvents);
  m_stderr = std::make_unique<QSocketNotifier>(m_process->stderr_fd(), QSocketNotifier::Read);
  connect(m_stderr.get(), &QSocketNotifier::activated, this, [this] {
    m_process->read_stderr();
    if (m_process->stderr_fd() < 0) m_stderr->setEnabled(false);
  });
}

void WorkerRun::stop() {
  if (m_process) m_process->stop();
}

void WorkerRun::readEvents() {
  if (!m_process) return;
  const bool open = m_process->read_events(m_collector);
  const auto now = m_collector.progress();
  if (now.ops_finished != m_last.ops_finished || now.running_op != m_last.running_op) {
    emit progress(static_cast<int>(now.ops_finished), static_cast<int>(now.ops_total),
                  now.running_op ? tr("op %1: %2").arg(*now.running_op).arg(QString::fromStdString(now.running_kernel))
                                 : QString());
  }
  m_last = now;
  if (!open) {
    m_events->setEnabled(false);
    // Not reaped yet: poll for its exit (a handler of `finished` may already run a new worker).
    if (!tryFinish()) m_reaper.start();
  }
}

bool WorkerRun::tryFinish() {
  if (!m_process || !m_process->finish(m_collector, false)) return false;
  m_reaper.stop();
  release();
  emit finished(m_collector.finish());
  return true;
}

void WorkerRun::watchRunningOp() {
  if (!m_process) return;
  const auto running = m_process->watch_running_op(m_collector);
  if (!running || running->seconds < 1) return;
  const auto now = m_collector.progress();
  emit progress(static_cast<int>(now.ops_finished), static_cast<int>(now.ops_total),
                tr("op %1: %2, running for %3 s (time limit %4 s)")
                    .arg(running->op)
                    .arg(QString::fromStdString(running->kernel))
                    .arg(static_cast<int>(running->seconds))
                    .arg(running->limit, 0, 'g', 4));
}

void WorkerRun::release() {
  m_watch.stop();
  m_events.reset();
  m_stderr.reset();
  m_process.reset();
}

}  // namespace blasscope::ui
