#pragma once

#include <QMetaObject>
#include <QObject>
#include <stop_token>
#include <thread>
#include <utility>

namespace blasscope::ui {

// One piece of background work at a time for a QObject: launching new work stops the old
// one, and whatever the old one still posts to the GUI thread is dropped (a generation
// counter, read and written on the GUI thread only).
class BackgroundTask {
 public:
  explicit BackgroundTask(QObject* context) : m_context(context) {}
  ~BackgroundTask() { stop(); }
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // Runs work(stop_token, generation) on a new thread, after stopping the previous work.
  template <typename Work>
  void launch(Work&& work) {
    stop();
    const quint64 generation = ++m_generation;
    m_thread = std::jthread(
        [generation, work = std::forward<Work>(work)](std::stop_token stop) mutable { work(stop, generation); });
  }

  // Stops the work (waiting for its thread) and drops what it still posts; false if none ran.
  bool stop() {
    if (!m_thread.joinable()) return false;
    ++m_generation;
    m_thread.request_stop();
    m_thread.join();
    m_thread = std::jthread();
    return true;
  }

  // From the work's thread: runs `deliver` on the GUI thread unless newer work was launched
  // or the work was stopped since.
  template <typename F>
  void post(quint64 generation, F&& deliver) {
    QMetaObject::invokeMethod(
        m_context,
        [this, generation, deliver = std::forward<F>(deliver)]() mutable {
          if (generation == m_generation) deliver();
        },
        Qt::QueuedConnection);
  }

 private:
  QObject* m_context;
  quint64 m_generation = 0;
  std::jthread m_thread;
};

}  // namespace blasscope::ui
