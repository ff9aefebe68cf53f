// UI tests, headless (QT_QPA_PLATFORM=offscreen): models, the background loader, the window.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "file_loader.h"
#include "findings_view.h"
#include "main_window.h"
#include "tensor_table_model.h"

using namespace blasscope;

namespace {

core::TensorReport tensorReport(const char* name, std::uint64_t nan) {
  core::TensorReport t;
  t.info.name = name;
  t.info.shape = {3, 4};
  t.info.nbytes = 48;
  t.scanned = true;
  core::TensorStats stats;
  stats.nan = nan;
  stats.finite = 12 - nan;
  stats.min = core::Scalar::from_float(-1.5);
  stats.max = core::Scalar::from_float(2.0);
  t.stats = stats;
  return t;
}

}  // namespace

class UiTests : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<core::InspectReport>();
    qRegisterMetaType<core::TensorReport>();
    QVERIFY(m_dir.isValid());
    const QString command =
        QStringLiteral("%1 %2 %3 > /dev/null")
            .arg(QStringLiteral(BLASSCOPE_PYTHON), QStringLiteral(BLASSCOPE_DEMO_SCRIPT), m_dir.path());
    QCOMPARE(std::system(command.toLocal8Bit().constData()), 0);
    QFile bad(m_dir.filePath(QStringLiteral("broken.npy")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'");
  }

  void tableModelPassesTheModelTester() {
    ui::TensorTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTensors({tensorReport("a", 0), tensorReport("b", 2)});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(ui::TensorTableModel::ColumnCount));
    QCOMPARE(model.index(1, ui::TensorTableModel::NaN).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(0, ui::TensorTableModel::Shape).data().toString(), QStringLiteral("(3, 4)"));
    QCOMPARE(model.index(0, ui::TensorTableModel::Min).data().toString(), QStringLiteral("-1.5"));
    QVERIFY(!model.index(0, 0).data(Qt::BackgroundRole).isValid());
    QVERIFY(model.index(1, 0).data(Qt::BackgroundRole).isValid());  // rows with NaN stand out
    QCOMPARE(model.index(1, ui::TensorTableModel::Bytes).data(Qt::UserRole).toULongLong(), 48ull);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.updateTensor(0, tensorReport("a", 5));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.index(0, ui::TensorTableModel::NaN).data().toString(), QStringLiteral("5"));
    model.updateTensor(7, tensorReport("x", 0));  // out of range: ignored
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void unscannedRowsSayScanning() {
    ui::TensorTableModel model;
    core::TensorReport pending = tensorReport("p", 0);
    pending.scanned = false;
    pending.stats.reset();
    model.setTensors({pending});
    QCOMPARE(model.index(0, ui::TensorTableModel::NaN).data().toString(), QStringLiteral("scanning…"));
  }

  void loaderDeliversStagesInOrder() {
    ui::FileLoader loader;
    QSignalSpy described(&loader, &ui::FileLoader::described);
    QSignalSpy scanned(&loader, &ui::FileLoader::tensorScanned);
    QSignalSpy finished(&loader, &ui::FileLoader::finished);
    loader.load(m_dir.filePath(QStringLiteral("training_step.npz")));
    QVERIFY(finished.wait(10000));
    QCOMPARE(described.count(), 1);
    QCOMPARE(scanned.count(), 4);
    const auto report = finished.at(0).at(0).value<core::InspectReport>();
    QCOMPARE(report.tensors.size(), std::size_t{4});
    QCOMPARE(report.findings.size(), std::size_t{2});
    QVERIFY(!loader.isBusy());
  }

  void loaderReportsBadFiles() {
    ui::FileLoader loader;
    QSignalSpy failed(&loader, &ui::FileLoader::failed);
    loader.load(m_dir.filePath(QStringLiteral("broken.npy")));
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("header")));
  }

  void cancelDropsResults() {
    ui::FileLoader loader;
    QSignalSpy finished(&loader, &ui::FileLoader::finished);
    QSignalSpy cancelled(&loader, &ui::FileLoader::cancelled);
    loader.load(m_dir.filePath(QStringLiteral("training_step.npz")));
    loader.cancel();
    QCOMPARE(cancelled.count(), 1);
    QTest::qWait(300);
    QCOMPARE(finished.count(), 0);
    QVERIFY(!loader.isBusy());
  }

  void windowShowsTensorsAndFindings() {
    ui::MainWindow window;
    window.show();
    QSignalSpy finished(window.loader(), &ui::FileLoader::finished);
    window.openFiles({m_dir.filePath(QStringLiteral("training_step.npz"))});
    QVERIFY(finished.wait(10000));
    QCOMPARE(window.tensorModel()->rowCount(), 4);
    auto* findings = window.findChild<ui::FindingsView*>();
    QVERIFY(findings);
    QCOMPARE(findings->list()->topLevelItemCount(), 2);
    QCOMPARE(findings->list()->topLevelItem(0)->text(1), QStringLiteral("non-finite-values"));
    QVERIFY(window.windowTitle().contains(QStringLiteral("training_step.npz")));
    QVERIFY(!window.grab().isNull());
  }

  void windowShowsWhyAFileCannotBeRead() {
    ui::MainWindow window;
    window.show();
    QSignalSpy failed(window.loader(), &ui::FileLoader::failed);
    window.openFiles({m_dir.filePath(QStringLiteral("broken.npy"))});
    QVERIFY(failed.wait(10000));
    auto* findings = window.findChild<ui::FindingsView*>();
    QCOMPARE(findings->list()->topLevelItemCount(), 1);
    QCOMPARE(findings->list()->topLevelItem(0)->text(0), QStringLiteral("error"));
    QCOMPARE(window.tensorModel()->rowCount(), 0);
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(UiTests)
#include "test_ui.moc"
