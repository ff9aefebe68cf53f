#include "worker_run.h"

#include <QCoreApplication>
#include <QDir>

#include "exec/worker_client.h"

namespace blasscope::ui {

WorkerRun::WorkerRun(QObject* parent) : QObject(parent) {
  connect(&m_process, &QProcess::readyReadStandardOutput, this, &WorkerRun::readEvents);
  connect(&m_process, &QProcess::finished, this, &WorkerRun::processFinished);
  connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
      emit failed(tr("Cannot start %1: %2").arg(workerPath(), m_process.errorString()));
    }
  });
  m_process.setProcessChannelMode(QProcess::SeparateChannels);
}

WorkerRun::~WorkerRun() {
  if (isRunning()) {
    m_process.kill();
    m_process.waitForFinished(2000);
  }
}

QString WorkerRun::workerPath() {
  const QByteArray overridden = qgetenv("BLASSCOPE_WORKER");
  if (!overridden.isEmpty()) return QString::fromLocal8Bit(overridden);
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("blasscope-worker"));
}

void WorkerRun::start(const QString& workload, const QString& device) {
  if (isRunning()) return;
  m_collector = core::RunCollector();
  m_framer = core::WorkerStreamFramer();
  m_last = {};
  m_stopped = false;
  m_process.start(workerPath(), {workload, QStringLiteral("--device"), device});
}

void WorkerRun::stop() {
  if (!isRunning()) return;
  m_stopped = true;
  m_process.kill();
}

void WorkerRun::readEvents() {
  const QByteArray bytes = m_process.readAllStandardOutput();
  m_framer.feed(bytes.constData(), static_cast<std::size_t>(bytes.size()), [this](const nlohmann::json& event) {
    m_collector.publish(event);
    const auto now = m_collector.progress();
    const bool changed = now.ops_finished != m_last.ops_finished || now.running_op != m_last.running_op;
    m_last = now;
    if (!changed) return;
    emit progress(static_cast<int>(now.ops_finished), static_cast<int>(now.ops_total),
                  now.running_op ? tr("op %1: %2").arg(*now.running_op).arg(QString::fromStdString(now.running_kernel))
                                 : QString());
  });
}

void WorkerRun::processFinished(int exitCode, QProcess::ExitStatus status) {
  readEvents();
  // On Unix QProcess reports the terminating signal as the exit code of a crash.
  core::record_worker_exit(m_collector, {status == QProcess::CrashExit, exitCode, m_stopped});
  emit finished(m_collector.finish());
}

}  // namespace blasscope::ui
