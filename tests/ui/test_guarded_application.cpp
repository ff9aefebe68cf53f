// An exception thrown by a slot is caught by the application, not by std::terminate: the
// event loop goes on and the window stays open with its run.
#include <QTimer>
#include <QtTest>
#include <stdexcept>

#include "guarded_application.h"

class GuardedApplicationTest : public QObject {
  Q_OBJECT

 private slots:
  void aThrowingSlotLeavesTheEventLoopRunning() {
    auto* app = static_cast<blasscope::ui::GuardedApplication*>(QCoreApplication::instance());
    const int before = app->caughtCount();
    QTimer::singleShot(0, this, [] { throw std::runtime_error("session field \"m\" is 1e300"); });
    bool later = false;
    QTimer::singleShot(20, this, [&later] { later = true; });
    QTRY_VERIFY(later);  // events after the throw are still delivered
    QCOMPARE(app->caughtCount(), before + 1);
    QVERIFY(app->lastCaught().contains(QStringLiteral("1e300")));
  }
};

int main(int argc, char** argv) {
  blasscope::ui::GuardedApplication app(argc, argv);
  GuardedApplicationTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_guarded_application.moc"
