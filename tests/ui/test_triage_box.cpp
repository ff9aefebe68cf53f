// The gallery's "Paste an error" box, headless (QT_QPA_PLATFORM=offscreen). With
// BLASSCOPE_SCREENSHOT_DIR set it also saves triage-box.png there, to look at.
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTextBrowser>
#include <QtTest>

#include "gallery_view.h"
#include "triage_box.h"

using namespace blasscope;

namespace {

const QString kTorchTraceback = QStringLiteral(
    "Traceback (most recent call last):\n"
    "  File \"train.py\", line 41, in <module>\n"
    "    u, s, vh = torch.linalg.svd(features)\n"
    "torch._C._LinAlgError: linalg.svd: The algorithm failed to converge because the input matrix contained "
    "non-finite values.\n");

}  // namespace

class TriageBoxTests : public QObject {
  Q_OBJECT

 private slots:
  void ctrlReturnListsTheMatchesWithLineAndValues() {
    ui::GalleryView gallery;
    gallery.resize(360, 900);
    gallery.show();
    QVERIFY(QTest::qWaitForWindowExposed(&gallery));
    ui::TriageBox* box = gallery.triageBox();
    box->input()->setPlainText(kTorchTraceback +
                               QStringLiteral("[W] ** On entry to SGESDD parameter number 12 had an illegal "
                                              "value\n"));
    box->input()->setFocus();
    QTest::keyClick(box->input(), Qt::Key_Return, Qt::ControlModifier);
    QTextBrowser* results = box->results();
    QVERIFY(results->isVisible());
    QCOMPARE(box->matchIds(),
             QStringList({QStringLiteral("dlascl-invalid-cfrom"), QStringLiteral("illegal-argument")}));
    // SGESDD's parameter 12 is its LWORK: no scenario reproduces it (the row-major GEMM one is GEMM's).
    QCOMPARE(box->matchScenarios(), QStringList({QStringLiteral("nan-svd"), QString()}));
    const QString shown = results->toPlainText();
    QVERIFY2(shown.contains(QStringLiteral("line 4: torch._C._LinAlgError: linalg.svd")), qPrintable(shown));
    QVERIFY(shown.contains(QStringLiteral("routine=SGESDD  parameter=12")));
    QVERIFY(shown.contains(QStringLiteral("NaN")));  // the cause, from the page
    QVERIFY(shown.indexOf(QStringLiteral("dlascl-invalid-cfrom")) < shown.indexOf(QStringLiteral("illegal-argument")));
    QVERIFY(results->toHtml().contains(ui::TriageBox::scenarioLink(QStringLiteral("nan-svd")).toString()));
    QVERIFY(!results->toHtml().contains(ui::TriageBox::scenarioLink(QStringLiteral("rowmajor-lda")).toString()));

    if (const QByteArray dir = qgetenv("BLASSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QVERIFY(gallery.grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("triage-box.png"))));
    }

    // A match's link runs the reproducing scenario through the gallery.
    QSignalSpy activated(&gallery, &ui::GalleryView::scenarioActivated);
    emit results->anchorClicked(ui::TriageBox::scenarioLink(QStringLiteral("nan-svd")));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.takeFirst().at(0).toString(), QStringLiteral("nan-svd"));
    emit results->anchorClicked(QUrl(QStringLiteral("https://example.org")));
    QCOMPARE(activated.count(), 0);
  }

  void textWithoutAKnownErrorSaysWhatToTry() {
    ui::TriageBox box;
    box.show();
    box.input()->setPlainText(QStringLiteral("epoch 3 loss 0.25\nall fine here"));
    QTest::mouseClick(box.findButton(), Qt::LeftButton);
    QVERIFY(!box.results()->isVisible());
    QVERIFY(box.summary()->isVisible());
    QVERIFY(box.summary()->text().contains(QStringLiteral("blasscope-cli record")));
  }
};

QTEST_MAIN(TriageBoxTests)
#include "test_triage_box.moc"
