#pragma once

#include <QApplication>
#include <QString>

namespace blasscope::ui {

// A QApplication whose event loop survives an exception thrown by a slot or an event handler.
// Qt does not let exceptions pass through its event loop (letting one escape is undefined and
// in practice ends the program), so one that every handler missed is caught here: the window
// shows it, and the session, with its unsaved run, stays open.
class GuardedApplication : public QApplication {
 public:
  using QApplication::QApplication;

  bool notify(QObject* receiver, QEvent* event) override;

  // How many exceptions were caught, and the last one's message (tests read them).
  int caughtCount() const { return m_caught; }
  QString lastCaught() const { return m_last; }

 private:
  void report(const QString& message);

  int m_caught = 0;
  QString m_last;
  bool m_box_open = false;  // a message box is showing (or queued)
};

}  // namespace blasscope::ui
