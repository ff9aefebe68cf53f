#include "guarded_application.h"

#include <QMessageBox>
#include <QTimer>
#include <QWidget>
#include <cstdio>
#include <exception>
#include <new>

namespace blasscope::ui {

bool GuardedApplication::notify(QObject* receiver, QEvent* event) {
  try {
    return QApplication::notify(receiver, event);
  } catch (const std::bad_alloc&) {
    report(tr("Not enough memory for the last action; it was abandoned."));
  } catch (const std::exception& error) {
    report(tr("The last action failed: %1").arg(QString::fromUtf8(error.what())));
  } catch (...) {
    report(tr("The last action failed with an unknown error."));
  }
  return false;
}

void GuardedApplication::report(const QString& message) {
  ++m_caught;
  m_last = message;
  std::fprintf(stderr, "blasscope: %s\n", message.toLocal8Bit().constData());
  if (platformName() == QStringLiteral("offscreen")) return;  // nobody to click the box away
  // Shown from the event loop, not from inside the handler that failed, and one box at a time:
  // a handler that fails on every call (a paint event) must not stack up boxes.
  if (m_box_open) return;
  m_box_open = true;
  QTimer::singleShot(0, this, [this] {
    const int before = m_caught;
    QMessageBox::critical(QApplication::activeWindow(), tr("BLAScope"), m_last);
    if (m_caught > before) {
      std::fprintf(stderr, "blasscope: %d more failures while the message was shown\n", m_caught - before);
    }
    m_box_open = false;
  });
}

}  // namespace blasscope::ui
