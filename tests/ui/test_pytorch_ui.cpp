// The GUI's file loader on a PyTorch checkpoint the real torch.save writes (headless). Skips
// when python3-torch is missing, as the other torch tests do.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cstdlib>

#include "file_loader.h"

using namespace blasscope;

class PyTorchUiTests : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<core::InspectReport>();
    qRegisterMetaType<core::TensorReport>();
    QVERIFY(m_dir.isValid());
    const QString command =
        QStringLiteral("%1 %2 %3 > /dev/null")
            .arg(QStringLiteral(BLASSCOPE_PYTHON), QStringLiteral(BLASSCOPE_TORCH_SCRIPT), m_dir.path());
    QCOMPARE(std::system(command.toLocal8Bit().constData()), 0);
    if (!QFile::exists(m_dir.filePath(QStringLiteral("checkpoint.pt")))) QSKIP("python3-torch is not installed");
  }

  void loaderListsAndScansACheckpoint() {
    ui::FileLoader loader;
    QSignalSpy described(&loader, &ui::FileLoader::described);
    QSignalSpy scanned(&loader, &ui::FileLoader::tensorScanned);
    QSignalSpy finished(&loader, &ui::FileLoader::finished);
    loader.load(m_dir.filePath(QStringLiteral("checkpoint.pt")));
    QVERIFY(finished.wait(10000));
    const auto report = finished.at(0).at(0).value<core::InspectReport>();
    QCOMPARE(report.format, core::FileFormat::PyTorch);
    QCOMPARE(report.tensors.size(), std::size_t{27});  // 9 model tensors, 3 x 6 Adam state tensors
    QCOMPARE(scanned.count(), 27);
    QCOMPARE(report.tensors.front().info.name, std::string("model.0.weight"));
    QVERIFY(std::any_of(report.metadata.begin(), report.metadata.end(),
                        [](const auto& kv) { return kv.first == "epoch" && kv.second == "3"; }));
  }

  void loaderReportsAHostileCheckpoint() {
    ui::FileLoader loader;
    QSignalSpy failed(&loader, &ui::FileLoader::failed);
    loader.load(m_dir.filePath(QStringLiteral("os_system.pt")));
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("posix.system")));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(PyTorchUiTests)
#include "test_pytorch_ui.moc"
