// The GUI on sharded checkpoints written at test time (tests/data/make_sharded_files.py):
// the loader lists every shard's tensors before scanning them, the window opens a folder and
// shows the shards and a Shard column. Headless.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdlib>

#include "file_loader.h"
#include "main_window.h"
#include "tensor_table_model.h"
#include "tensors_view.h"

using namespace blasscope;

class ShardedUiTests : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<core::InspectReport>();
    qRegisterMetaType<core::TensorReport>();
    QVERIFY(m_dir.isValid());
    const QString command =
        QStringLiteral("%1 %2 %3 > /dev/null")
            .arg(QStringLiteral(BLASSCOPE_PYTHON), QStringLiteral(BLASSCOPE_SHARDED_SCRIPT), m_dir.path());
    QCOMPARE(std::system(command.toLocal8Bit().constData()), 0);
  }

  void loaderDescribesEveryShardThenScansIt() {
    ui::FileLoader loader;
    QSignalSpy described(&loader, &ui::FileLoader::described);
    QSignalSpy scanned(&loader, &ui::FileLoader::tensorScanned);
    QSignalSpy progress(&loader, &ui::FileLoader::progress);
    QSignalSpy finished(&loader, &ui::FileLoader::finished);
    loader.load(m_dir.filePath(QStringLiteral("st/model.safetensors.index.json")));
    QVERIFY(finished.wait(10000));
    QCOMPARE(described.count(), 1);
    const auto first = described.at(0).at(1).value<core::InspectReport>();
    QCOMPARE(first.shards.size(), std::size_t{3});
    QCOMPARE(first.tensors.size(), std::size_t{12});
    QVERIFY(std::none_of(first.tensors.begin(), first.tensors.end(), [](const auto& t) { return t.scanned; }));
    QCOMPARE(scanned.count(), 12);
    const auto report = finished.at(0).at(0).value<core::InspectReport>();
    QCOMPARE(report.format, core::FileFormat::Sharded);
    QVERIFY(!progress.isEmpty());
    const qint64 last = progress.last().at(0).toLongLong();
    QCOMPARE(last, progress.last().at(1).toLongLong());  // all shards' tensor bytes, done
  }

  void loaderNamesAMissingShard() {
    ui::FileLoader loader;
    QSignalSpy failed(&loader, &ui::FileLoader::failed);
    loader.load(m_dir.filePath(QStringLiteral("hostile/missing_shard")));
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("'model-00002-of-00003.safetensors' is missing")));
  }

  void windowOpensAFolderWithItsShards() {
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.open(m_dir.filePath(QStringLiteral("st")) + QLatin1Char('/'));
    QVERIFY(idle.wait(10000));
    QCOMPARE(window.document().kind, ui::RunDocument::Kind::TensorFile);
    QCOMPARE(window.document().title, QStringLiteral("st"));
    auto* view = window.findChild<ui::TensorsView*>();
    QAbstractItemModelTester tester(view->model());
    QCOMPARE(view->model()->rowCount(), 12);
    QCOMPARE(view->model()->index(0, ui::TensorTableModel::Shard).data().toString(),
             QStringLiteral("model-00001-of-00003.safetensors"));
    QVERIFY(!view->findChild<QTableView*>(QStringLiteral("tensors"))->isColumnHidden(ui::TensorTableModel::Shard));
    bool summary = false;
    for (const QLabel* label : view->findChildren<QLabel*>()) {
      summary |= label->isVisibleTo(view) && label->text().contains(QStringLiteral("3 shards"));
    }
    QVERIFY(summary);
    // A plain file has no Shard column.
    window.open(m_dir.filePath(QStringLiteral("single/model.safetensors")));
    QVERIFY(idle.wait(10000));
    QVERIFY(view->findChild<QTableView*>(QStringLiteral("tensors"))->isColumnHidden(ui::TensorTableModel::Shard));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(ShardedUiTests)
#include "test_sharded_ui.moc"
