// UI tests, headless (QT_QPA_PLATFORM=offscreen): models, views filled from real runs, the
// background loader, the window driving a real worker, and the screenshot mode.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QLabel>
#include <QListView>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include "bar_chart_axes.h"
#include "call_timeline.h"
#include "calls_model.h"
#include "diagnose/run_diagnosis.h"
#include "diagnoses_model.h"
#include "document/document.h"
#include "dtype_flow_view.h"
#include "exec/runner.h"
#include "failures_panel.h"
#include "file_loader.h"
#include "gallery_view.h"
#include "layout_view.h"
#include "main_window.h"
#include "memory_view.h"
#include "nearly_sorted.h"
#include "operand_as_passed.h"
#include "ops_model.h"
#include "overview_view.h"
#include "profile_view.h"
#include "record_dialog.h"
#include "results/session_file.h"
#include "tensor_table_model.h"
#include "tensor_values.h"
#include "tensors_view.h"
#include "timings_view.h"
#include "workload/scenarios.h"

using namespace blasscope;

namespace {

// A document run in this process: what the views get after a run.
ui::RunDocument runScenario(const std::string& id) {
  ui::RunDocument doc;
  doc.kind = ui::RunDocument::Kind::Workload;
  doc.source = QString::fromStdString("scenario:" + id);
  doc.workload = *core::find_scenario(id);
  doc.plan = core::plan_workload(*doc.workload);
  core::RunCollector collector;
  core::run_workload(*doc.workload, {}, collector);
  doc.run = collector.finish();
  doc.diagnoses = core::diagnose_run(*doc.run);
  return doc;
}

QStringList diagnosisIds(const ui::FailuresPanel* panel) {
  QStringList ids;
  for (int row = 0; row < panel->model()->rowCount(); ++row) {
    ids << QString::fromStdString(panel->model()->diagnosisAt(row)->id);
  }
  return ids;
}

}  // namespace

class UiTests : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<core::InspectReport>();
    qRegisterMetaType<core::TensorReport>();
    qRegisterMetaType<core::RunResult>();
    qputenv("BLASSCOPE_WORKER", BLASSCOPE_WORKER_PATH);
    QVERIFY(m_dir.isValid());
    const QString command =
        QStringLiteral("%1 %2 %3 > /dev/null")
            .arg(QStringLiteral(BLASSCOPE_PYTHON), QStringLiteral(BLASSCOPE_DEMO_SCRIPT), m_dir.path());
    QCOMPARE(std::system(command.toLocal8Bit().constData()), 0);
    QFile bad(m_dir.filePath(QStringLiteral("broken.npy")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'");
  }

  void modelsPassTheModelTester() {
    const ui::RunDocument doc = runScenario("misaligned-vs-aligned");
    ui::OpsModel ops;
    QAbstractItemModelTester opsTester(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ops.setRun(&*doc.run, &doc.diagnoses);
    QCOMPARE(ops.rowCount(), 2);
    QCOMPARE(ops.index(0, ui::OpsModel::Kernel).data().toString(), QStringLiteral("cblas_sgemm"));
    QVERIFY(ops.index(0, ui::OpsModel::TopDiagnosis).data().toString().startsWith(QStringLiteral("misaligned-buffer")));
    QVERIFY(ops.index(1, ui::OpsModel::TopDiagnosis).data().toString().isEmpty());
    ui::DiagnosesModel diagnoses;
    QAbstractItemModelTester diagnosesTester(&diagnoses, QAbstractItemModelTester::FailureReportingMode::QtTest);
    diagnoses.setDiagnoses(doc.diagnoses);
    // misaligned-buffer, and blas-kernel-mismatch on a machine whose OpenBLAS kernels are older than its CPU.
    const auto about_the_machine = std::count_if(doc.diagnoses.begin(), doc.diagnoses.end(),
                                                 [](const auto& d) { return core::is_environment_diagnosis(d.id); });
    QCOMPARE(diagnoses.rowCount(), 1 + static_cast<int>(about_the_machine));
    QCOMPARE(diagnoses.rowCount(), static_cast<int>(doc.diagnoses.size()));
    ui::TensorTableModel tensors;
    QAbstractItemModelTester tensorsTester(&tensors, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ui::TensorsView view;
    view.setDocument(&doc);
    QCOMPARE(view.model()->rowCount(), 4);
    ui::TimingsView timings;
    QAbstractItemModelTester timingsTester(timings.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    timings.setDocument(&doc);
    QCOMPARE(timings.model()->rowCount(), 2);
  }

  void diagnosesAreSortedMostSevereFirst() {
    ui::DiagnosesModel model;
    model.setDiagnoses({core::detected("misaligned-buffer", core::Severity::Info, 0, std::nullopt, "t", {}),
                        core::detected("illegal-argument", core::Severity::Error, 1, std::nullopt, "t", {})});
    QCOMPARE(model.diagnosisAt(0)->id, std::string("illegal-argument"));
  }

  void viewsFillFromARun() {
    const ui::RunDocument doc = runScenario("seed-000-1-custom-layer-dtypes");
    ui::OverviewView overview;
    overview.setDocument(&doc);
    QVERIFY(overview.isShowingContent());
    QCOMPARE(overview.model()->rowCount(), 2);
    ui::DtypeFlowView flow;
    flow.setDocument(&doc);
    QCOMPARE(flow.opNodes(), 2);
    QCOMPARE(flow.tensorNodes(), 4);  // kernel, inputs, scaled, output
    QCOMPARE(flow.edges(), 5);
    ui::MemoryView memory;
    memory.setDocument(&doc);
    QVERIFY(memory.timelinePoints() > 0);
    QVERIFY(memory.tensorBars() >= 3);
    ui::LayoutView layout;
    layout.setDocument(&doc);
    QCOMPARE(layout.operandsDrawn(), 2);  // the cast's input and output
    layout.selectOp(1);
    QCOMPARE(layout.shownOp(), std::size_t{1});
    ui::TimingsView timings;
    timings.setDocument(&doc);
    QCOMPARE(timings.timelineBars(), 1);  // the gemm was refused before any kernel started
    ui::TensorsView tensors;
    tensors.setDocument(&doc);
    QCOMPARE(tensors.model()->rowCount(), 2);
    QCOMPARE(tensors.histogramBins(), 0);  // the values are read in the background, not here
    ui::RunDocument with_values = doc;
    with_values.values = std::make_shared<const ui::TensorValues>(ui::compute_tensor_values(doc));
    tensors.setDocument(&with_values);
    QCOMPARE(tensors.histogramBins(), 40);
  }

  // The window never reads tensor values on the GUI thread: open() returns with none, the
  // background job delivers them (synthetic tensors made once), and the Tensors view shows them.
  void tensorValuesArriveFromTheBackground() {
    ui::MainWindow window;
    window.show();
    window.open(QStringLiteral("scenario:nan-svd"));
    QVERIFY(!window.document().values);
    QTRY_VERIFY_WITH_TIMEOUT(window.document().values != nullptr, 10000);
    const auto& values = *window.document().values;
    QVERIFY(values.histograms.count("design") == 1);
    QVERIFY(values.stats.at("design").nan > 0);  // the scenario's injected NaN, found by the full scan
    auto* tensors = window.findChild<ui::TensorsView*>();
    QVERIFY(tensors->histogramBins() > 0);
    // A run keeps them: nothing is read again.
    const auto* before = window.document().values.get();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.runOn(QStringLiteral("cpu"));
    QVERIFY(idle.wait(30000));
    QCOMPARE(window.document().values.get(), before);
  }

  void clickingATensorNodeSelectsItEverywhere() {
    const ui::RunDocument doc = runScenario("seed-000-1-custom-layer-dtypes");
    ui::DtypeFlowView flow;
    flow.resize(900, 600);
    flow.setDocument(&doc);
    flow.show();
    QVERIFY(QTest::qWaitForWindowExposed(&flow));
    QSignalSpy picked(&flow, &ui::DocumentView::tensorSelected);
    auto* view = qobject_cast<QGraphicsView*>(flow.exportWidget());
    QVERIFY(view);
    // Inputs stack in the first column, one row (70) apart: the second is 'kernel'.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(QPointF(75, 70 + 22)));
    QCOMPARE(picked.count(), 1);
    QCOMPARE(picked.at(0).at(0).toString(), QStringLiteral("kernel"));
    ui::TensorsView tensors;
    tensors.setDocument(&doc);
    tensors.selectTensorNamed(QStringLiteral("kernel"));
    QCOMPARE(tensors.currentTensorName(), QStringLiteral("kernel"));
    tensors.selectTensorNamed(QStringLiteral("inputs"));
    QCOMPARE(tensors.currentTensorName(), QStringLiteral("inputs"));
  }

  // lstsq's A (20 x 6, C order) reaches dgelsd as a dense column-major copy with lda = 20:
  // the layout says so instead of calling the C-order tensor padded.
  void layoutShowsTheCopyLapackGets() {
    const ui::RunDocument doc = runScenario("nan-lstsq");
    const core::KernelRecord& lstsq = doc.run->ops.front();
    QCOMPARE(lstsq.op_kind, core::OpKind::Lstsq);
    const ui::OperandAsPassed a = ui::operand_as_passed(lstsq, lstsq.operands.at(0));
    QCOMPARE(a.order, core::MemoryOrder::Fortran);
    QVERIFY(a.copied);
    QCOMPARE(a.ld, std::int64_t{20});
    QCOMPARE(a.padding, std::int64_t{0});
    QCOMPARE(a.rows, std::uint64_t{20});
    QCOMPARE(a.cols, std::uint64_t{6});
    QVERIFY2(a.how.find("copied from C-order (20, 6) to column-major") != std::string::npos, a.how.c_str());
    QVERIFY2(a.how.find("lda = 20, no padding") != std::string::npos, a.how.c_str());
    QVERIFY(a.alignment.find("not recorded") != std::string::npos);
    const ui::OperandAsPassed b = ui::operand_as_passed(lstsq, lstsq.operands.at(1));
    QVERIFY2(b.how.find("ldb = 20, no padding") != std::string::npos, b.how.c_str());
    ui::LayoutView layout;
    layout.resize(1000, 500);
    layout.setDocument(&doc);
    QCOMPARE(layout.operandsDrawn(), 2);
    QVERIFY(!layout.exportWidget()->grab().isNull());
  }

  // gemm reads every operand in place: one stored in the other order is passed as a transpose,
  // padding is the leading dimension beyond the row; dlascl reads a C-order matrix transposed.
  void layoutShowsGemmAndDlasclOperandsInPlace() {
    core::KernelRecord gemm;
    gemm.op_kind = core::OpKind::Gemm;
    gemm.call = core::BlasCallRecord{true, true, false, 4, 5, 6, 4, 8, 5};
    core::OperandRecord a{"a", "x", core::DType::Float32, {6, 4}, core::MemoryOrder::Fortran, 6};
    const ui::OperandAsPassed fa = ui::operand_as_passed(gemm, a);
    QVERIFY(!fa.copied);
    QCOMPARE(fa.order, core::MemoryOrder::Fortran);
    QCOMPARE(fa.padding, std::int64_t{0});
    QVERIFY2(fa.how.find("in place (no copy) as the transpose of a row-major matrix (TransA flipped), lda = 6, "
                         "no padding") != std::string::npos,
             fa.how.c_str());
    core::OperandRecord b{"b", "y", core::DType::Float32, {6, 5}, core::MemoryOrder::C, 8};
    const ui::OperandAsPassed padded = ui::operand_as_passed(gemm, b);
    QCOMPARE(padded.padding, std::int64_t{3});
    QVERIFY2(padded.how.find("ldb = 8, 3 padding elements after each row") != std::string::npos, padded.how.c_str());
    gemm.casts = {"b: float16 -> float32"};
    const ui::OperandAsPassed promoted = ui::operand_as_passed(gemm, b);
    QVERIFY(promoted.copied);
    QVERIFY2(promoted.how.find("promoted copy (float16 -> float32)") != std::string::npos, promoted.how.c_str());
    core::KernelRecord lascl;
    lascl.op_kind = core::OpKind::Dlascl;
    core::OperandRecord m{"a", "m", core::DType::Float64, {4, 6}, core::MemoryOrder::C, 6};
    const ui::OperandAsPassed lm = ui::operand_as_passed(lascl, m);
    QVERIFY2(lm.how.find("column-major transpose (M = 6, N = 4), lda = 6, no padding") != std::string::npos,
             lm.how.c_str());
  }

  // An op refused before its kernel (here: a GPU op without a GPU) says so, and why.
  void timingsNameOpsThatRanNoKernel() {
    ui::RunDocument doc;
    doc.kind = ui::RunDocument::Kind::Workload;
    doc.run = core::RunResult{};
    core::KernelRecord refused;
    refused.op = 0;
    refused.device = core::Device::Gpu;
    refused.status = core::OpStatus::Skipped;
    refused.error = "no usable NVIDIA driver: the CUDA runtime reports no device";
    core::KernelRecord ran;
    ran.op = 0;
    ran.kernel = "cblas_sgemm";
    doc.run->ops = {refused, ran};
    ui::TimingsView timings;
    QAbstractItemModelTester tester(timings.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    timings.setDocument(&doc);
    const QModelIndex top = timings.model()->index(0, 0);
    QCOMPARE(top.data().toString(), QStringLiteral("0 gemm — no kernel ran"));
    QCOMPARE(timings.model()->index(0, 0, top).data().toString(), QString::fromStdString(*refused.error));
    QCOMPARE(timings.model()->index(1, 0).data().toString(), QStringLiteral("0 gemm (cblas_sgemm)"));
  }

  // What CUPTI traced is said once, under the first GPU op that ran, with how to trace more.
  void timingsSayWhatCuptiTraced() {
    ui::RunDocument doc;
    doc.kind = ui::RunDocument::Kind::Workload;
    doc.run = core::RunResult{};
    core::GpuDeviceInfo device;
    device.name = "NVIDIA H200";
    device.cupti = "tracing kernels";
    doc.run->environment.gpu.available = true;
    doc.run->environment.gpu.device = device;
    core::KernelRecord refused;  // ran no kernel: no note under it
    refused.op = 0;
    refused.device = core::Device::Gpu;
    refused.status = core::OpStatus::Failed;
    refused.error = "device memory: the GEMM needs more than is free";
    core::KernelRecord ran = refused;
    ran.op = 1;
    ran.kernel = "cublasGemmEx";
    ran.status = core::OpStatus::Ok;
    ran.error.reset();
    core::KernelRecord again = ran;
    again.op = 2;
    doc.run->ops = {refused, ran, again};
    ui::TimingsView timings;
    timings.setDocument(&doc);
    auto notes = [&](int row) {
      QStringList found;
      const QModelIndex top = timings.model()->index(row, 0);
      for (int child = 0; child < timings.model()->rowCount(top); ++child) {
        const QString text = timings.model()->index(child, 0, top).data().toString();
        if (text.startsWith(QStringLiteral("CUPTI: "))) found << text;
      }
      return found;
    };
    QVERIFY(notes(0).isEmpty());
    QCOMPARE(
        notes(1),
        QStringList{QStringLiteral("CUPTI: tracing kernels (BLASSCOPE_CUPTI=all adds copies, memsets, allocations)")});
    QVERIFY(notes(2).isEmpty());
    doc.run->environment.gpu.device->cupti = "tracing kernels, copies, memsets, allocations, overhead";
    timings.setDocument(&doc);
    QCOMPARE(notes(1), QStringList{QStringLiteral("CUPTI: tracing kernels, copies, memsets, allocations, overhead")});
  }

  // Calls come nearly in order: an insertion sort for a few out of place, the caller's sort for
  // many; the result is sorted either way, and equal to std::stable_sort's.
  void nearlySortedRangesComeOutSorted() {
    std::mt19937 rng(7);
    for (const int displaced : {0, 1, 5, 64, 65, 1000}) {
      std::vector<int> v(5000);
      std::iota(v.begin(), v.end(), 0);
      for (int i = 0; i < displaced; ++i) std::swap(v[rng() % v.size()], v[rng() % v.size()]);
      std::vector<int> expected = v;
      std::stable_sort(expected.begin(), expected.end());
      bool fell_back = false;
      ui::sort_nearly_sorted(v.begin(), v.end(), std::less<int>(), [&] {
        fell_back = true;
        std::sort(v.begin(), v.end());
      });
      QCOMPARE(v, expected);
      if (displaced <= 32) QVERIFY2(!fell_back, "a few displaced elements took the full sort");
      if (displaced >= 1000) QVERIFY(fell_back);
    }
    // Two interleaved sorted runs: one descent, but n*n/4 moves; the caller's sort takes over.
    std::vector<int> runs;
    for (int i = 0; i < 20000; i += 2) runs.push_back(i);
    for (int i = 1; i < 20000; i += 2) runs.push_back(i);
    bool fell_back = false;
    ui::sort_nearly_sorted(runs.begin(), runs.end(), std::less<int>(), [&] {
      fell_back = true;
      std::sort(runs.begin(), runs.end());
    });
    QVERIFY(fell_back);
    QVERIFY(std::is_sorted(runs.begin(), runs.end()));
    std::vector<int> empty, one{3};
    ui::sort_nearly_sorted(empty.begin(), empty.end(), std::less<int>(), [] { QFAIL("nothing to sort"); });
    ui::sort_nearly_sorted(one.begin(), one.end(), std::less<int>(), [] { QFAIL("nothing to sort"); });
    QCOMPARE(one, std::vector<int>{3});
  }

  void viewsSayWhyTheyAreEmpty() {
    ui::RunDocument notRun;
    notRun.kind = ui::RunDocument::Kind::Workload;
    notRun.workload = *core::find_scenario("healthy-baseline");
    notRun.plan = core::plan_workload(*notRun.workload);
    ui::MemoryView memory;
    memory.setDocument(&notRun);
    QVERIFY(!memory.isShowingContent());
    QVERIFY(memory.emptyText().contains(QStringLiteral("Not run yet")));
    ui::TimingsView timings;
    timings.setDocument(nullptr);
    QVERIFY(timings.emptyText().contains(QStringLiteral("Run a workload")));
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
    QVERIFY(!loader.isBusy());
  }

  void loaderReportsBadFilesAndCancels() {
    ui::FileLoader loader;
    QSignalSpy failed(&loader, &ui::FileLoader::failed);
    loader.load(m_dir.filePath(QStringLiteral("broken.npy")));
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("header")));
    QSignalSpy finished(&loader, &ui::FileLoader::finished);
    QSignalSpy cancelled(&loader, &ui::FileLoader::cancelled);
    loader.load(m_dir.filePath(QStringLiteral("training_step.npz")));
    loader.cancel();
    QCOMPARE(cancelled.count(), 1);
    QTest::qWait(200);
    QCOMPARE(finished.count(), 0);
  }

  void aDiagnosisSelectsItsTensorAndOp() {
    ui::FailuresPanel panel;
    QSignalSpy tensor(&panel, &ui::FailuresPanel::tensorSelected);
    QSignalSpy op(&panel, &ui::FailuresPanel::opSelected);
    panel.setDiagnoses(
        {core::detected("non-finite-input", core::Severity::Warning, 2, std::string("design"), "design", {"1 NaN"})},
        QString());
    panel.findChild<QListView*>()->setCurrentIndex(panel.model()->index(0, 0));
    QTRY_VERIFY(tensor.count() >= 1);
    QCOMPARE(tensor.last().at(0).toString(), QStringLiteral("design"));
    QVERIFY(op.count() >= 1);
    QCOMPARE(op.last().at(0).value<std::size_t>(), std::size_t{2});
  }

  void theDiagnosesSummaryCountsInWords() {
    ui::FailuresPanel panel;
    panel.setDiagnoses({core::detected("lapack-failed", core::Severity::Error, 0, std::string("a"), "one", {"x"}),
                        core::detected("non-finite-input", core::Severity::Warning, 0, std::string("a"), "two", {"y"}),
                        core::detected("non-finite-input", core::Severity::Warning, 1, std::string("b"), "3", {"z"})},
                       QString());
    QStringList texts;
    for (const QLabel* label : panel.findChildren<QLabel*>()) texts << label->text();
    QVERIFY2(texts.contains(QStringLiteral("3 diagnoses: 1 error, 2 warnings")),
             qPrintable(texts.join(QStringLiteral(" | "))));
  }

  void axisTicksAreRoundNumbers() {
    QValueAxis counts;
    ui::useRoundTicks(&counts, 7, true);
    QCOMPARE(counts.max(), 8.0);  // step 2: 0, 2, 4, 6, 8
    QCOMPARE(counts.tickCount(), 5);
    ui::useRoundTicks(&counts, 3, true);
    QCOMPARE(counts.max(), 3.0);  // counts never step by less than 1
    QCOMPARE(counts.tickCount(), 4);
    QValueAxis times;
    ui::useRoundTicks(&times, 0.00047, false);
    QVERIFY(qAbs(times.max() - 0.0005) < 1e-12);  // step 0.0001
    QCOMPARE(times.tickCount(), 6);
    ui::useRoundTicks(&times, 0, false);  // nothing measured still gives a usable axis
    QCOMPARE(times.max(), 1.0);
  }

  void aNarrowWindowKeepsRoomForTheViews() {
    ui::MainWindow window;
    window.resize(900, 600);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY(window.centralWidget()->width() >= window.width() * 45 / 100);
    auto* memory = window.findChild<ui::MemoryView*>();
    QVERIFY(memory);
    window.findChild<QTabWidget*>()->setCurrentWidget(memory);
    QTRY_COMPARE(memory->findChild<QSplitter*>()->orientation(), Qt::Vertical);  // the charts stack
  }

  void windowShowsATensorFile() {
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.open(m_dir.filePath(QStringLiteral("training_step.npz")));
    QVERIFY(idle.wait(10000));
    QCOMPARE(window.document().kind, ui::RunDocument::Kind::TensorFile);
    const QStringList ids = diagnosisIds(window.failuresPanel());
    QVERIFY(ids.contains(QStringLiteral("non-finite-input")));
    QVERIFY(ids.contains(QStringLiteral("subnormal-values")));
  }

  void windowRunsNanIntoSvdThroughTheWorker() {
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.open(QStringLiteral("scenario:nan-svd"));
    window.runOn(QStringLiteral("cpu"));
    QVERIFY(window.isBusy());
    QVERIFY(idle.wait(30000));
    const QStringList ids = diagnosisIds(window.failuresPanel());
    QVERIFY2(ids.contains(QStringLiteral("dlascl-invalid-cfrom")), qPrintable(ids.join(u',')));
    QVERIFY(ids.contains(QStringLiteral("non-finite-input")));
    QVERIFY(window.failuresPanel()->detailText().contains(QStringLiteral("Evidence")));
  }

  void aHungOpIsStoppedAtItsTimeLimitWithItsRunningTimeShown() {
    // One Inf in this 6x4 matrix (seed 6) makes dgesdd with U and V^T loop forever.
    const QString path = m_dir.filePath(QStringLiteral("hang.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"name": "hang", "tensors": {"a": {"shape": [6, 4], "dtype": "float64", "seed": 6, "inf": 1}},
                   "ops": [{"op": "svd", "a": "a", "driver": "gesdd", "compute_uv": true, "timeout": 2}]})");
    file.close();
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.open(path);
    QVERIFY(idle.wait(10000));
    QStringList messages;
    connect(window.statusBar(), &QStatusBar::messageChanged, this,
            [&messages](const QString& message) { messages << message; });
    window.runOn(QStringLiteral("cpu"));
    QVERIFY(idle.wait(30000));
    QVERIFY2(messages.filter(QStringLiteral("time limit 2 s")).size() > 0, qPrintable(messages.join(u'|')));
    QVERIFY(diagnosisIds(window.failuresPanel()).contains(QStringLiteral("kernel-hang")));
    QCOMPARE(QString::fromStdString(window.document().run->crash->signal), QString::fromUtf8(core::kTimeLimitEnd));
  }

  // Every session that once crashed the readers is refused with a warning naming what is wrong.
  void hostileSessionsAreRefusedWithTheirReason() {
    ui::MainWindow window;
    window.setInteractive(false);  // the warning goes to the log, not a modal box
    window.show();
    const QDir folder(QStringLiteral(BLASSCOPE_FUZZ_REGRESSIONS "/session"));
    const QStringList files = folder.entryList(QDir::Files);
    QVERIFY(!files.isEmpty());
    for (const QString& name : files) {
      QSignalSpy idle(&window, &ui::MainWindow::idle);
      window.open(folder.filePath(name));
      QVERIFY2(idle.count() > 0 || idle.wait(10000), qPrintable(name));
      QVERIFY2(window.lastWarning().contains(name + QStringLiteral(": ")), qPrintable(window.lastWarning()));
      QVERIFY(window.isVisible());
      QVERIFY(!window.document().run);
    }
  }

  void aCrashingWorkloadLeavesTheWindowAlive() {
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    emit window.gallery()->scenarioActivated(QStringLiteral("buffer-overrun-crash"));
    QVERIFY(idle.wait(30000));
    QVERIFY(window.isVisible());
    QVERIFY(window.document().run->crash.has_value());
    QVERIFY(diagnosisIds(window.failuresPanel()).contains(QStringLiteral("worker-crashed")));
  }

  // A session of a workload that reads .npy files, saved from the window and reopened from
  // another folder, comes back with its workload: tensors and dtype flow, not empty views.
  void aReopenedSessionOfAFileWorkloadShowsItsTensorsAndDtypeFlow() {
    QTemporaryDir work;
    const QString workload = work.filePath(QStringLiteral("fortran_gemm.json"));
    QFile file(workload);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral(R"({"name": "fortran-gemm", "tensors": {"m": {"file": "%1"}},
      "ops": [{"op": "gemm", "a": "m", "b": "m", "trans_b": true, "out": "gram"}]})")
                   .arg(m_dir.filePath(QStringLiteral("fortran_order_matrix.npy")))
                   .toUtf8());
    file.close();
    const QString session = m_dir.filePath(QStringLiteral("reopened.session.json"));
    {
      ui::MainWindow window;
      window.show();
      QSignalSpy idle(&window, &ui::MainWindow::idle);
      window.open(workload);
      window.runOn(QStringLiteral("cpu"));
      QVERIFY(idle.wait(30000));
      QVERIFY(window.document().run && window.document().run->completed);
      // What File > Save Session writes, with the workload named relative to the current
      // folder: the session stores it absolute, so it reopens from anywhere.
      const QString relative = QDir::current().relativeFilePath(window.document().source);
      QVERIFY(QFileInfo(relative).isRelative());
      core::write_session(session.toStdString(), relative.toStdString(), *window.document().run);
    }
    ui::MainWindow reopened;
    reopened.show();
    reopened.open(session);
    const ui::RunDocument& doc = reopened.document();
    QVERIFY(doc.run.has_value());
    QVERIFY2(doc.workload.has_value(), "the session came back without its workload");
    QCOMPARE(doc.source, workload);  // a re-run runs the workload, not the session file
    ui::TensorsView tensors;
    tensors.setDocument(&doc);
    QVERIFY(tensors.model()->rowCount() >= 1);
    ui::DtypeFlowView flow;
    flow.setDocument(&doc);
    QCOMPARE(flow.opNodes(), 1);
    QVERIFY(flow.tensorNodes() >= 2);
  }

  void cudaCallsShowTheirOwnSizes() {
    ui::MainWindow window;
    auto* profile = openProfile(window, QStringLiteral("cuda.json"),
                                R"({"format": "blasscope-session", "version": 1, "kind": "recording",
      "command": ["python3", "gpu.py"], "pid": 42, "exit_status": 0, "wall_seconds": 0.5, "calls_total": 3,
      "processes": [{"pid": 42, "parent_pid": 1, "command": "python3 gpu.py", "blas_found": true}],
      "routines": [{"routine": "cudaMalloc", "calls": 1, "seconds": 0.001, "self_seconds": 0.001},
                   {"routine": "cublasCreate_v2", "calls": 1, "seconds": 0.01, "self_seconds": 0.01},
                   {"routine": "cublasSgemmStridedBatched", "calls": 1, "seconds": 0.001, "self_seconds": 0.001}],
      "calls": [{"id": 1, "pid": 42, "thread": 42, "routine": "cudaMalloc", "bytes": 5368709120, "status": 2, "seconds": 0.001},
                {"id": 2, "pid": 42, "thread": 42, "routine": "cublasCreate_v2", "status": 0, "seconds": 0.01},
                {"id": 3, "pid": 42, "thread": 42, "routine": "cublasSgemmStridedBatched", "m": 64, "n": 32,
                 "k": 16, "beta": 4, "status": 0, "seconds": 0.001},
                {"id": 4, "pid": 42, "thread": 42, "routine": "cublasGemmEx", "dtype": "bfloat16", "m": 8, "n": 8,
                 "k": 8, "status": 0, "seconds": 0.001}]})");
    QVERIFY(profile && profile->isShowingContent());
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    QCOMPARE(calls->model()->rowCount(), 4);
    QCOMPARE(calls->model()->index(2, ui::CallsModel::DType).data().toString(), QStringLiteral("float32"));
    QCOMPARE(calls->model()->index(3, ui::CallsModel::DType).data().toString(), QStringLiteral("bfloat16"));
    QCOMPARE(calls->model()->index(0, ui::CallsModel::Sizes).data().toString(), QStringLiteral("5.0 GiB"));
    QCOMPARE(calls->model()->index(1, ui::CallsModel::Sizes).data().toString(), QString());
    QCOMPARE(calls->model()->index(2, ui::CallsModel::Sizes).data().toString(),
             QStringLiteral("64 × 32 × 16 · batch 4"));
    // One process and one thread: their columns would say the same in every row.
    QVERIFY(calls->isColumnHidden(ui::CallsModel::Process));
    QVERIFY(calls->isColumnHidden(ui::CallsModel::Thread));
    auto* summary = profile->findChild<QLabel*>(QStringLiteral("summary"));
    QVERIFY(summary && summary->text().contains(QStringLiteral("calls in 1 process ·")));
  }

  void callsOfSeveralThreadsShowTheirThread() {
    ui::MainWindow window;
    auto* profile = openProfile(window, QStringLiteral("threads.json"),
                                R"({"format": "blasscope-session", "version": 1, "kind": "recording",
      "command": ["a.out"], "pid": 42, "exit_status": 0, "wall_seconds": 0.5, "calls_total": 2,
      "routines": [{"routine": "dgemm", "calls": 2, "seconds": 0.002}],
      "calls": [{"id": 1, "pid": 42, "thread": 42, "routine": "dgemm", "m": 8, "n": 8, "k": 8, "seconds": 0.001},
                {"id": 2, "pid": 42, "thread": 43, "routine": "dgemm", "m": 8, "n": 8, "k": 8, "seconds": 0.001}]})");
    QVERIFY(profile && profile->isShowingContent());
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    QVERIFY(calls->isColumnHidden(ui::CallsModel::Process));
    QVERIFY(!calls->isColumnHidden(ui::CallsModel::Thread));
  }

  void aWorkspaceQueryIsCountedButNotInTheMean() {
    ui::MainWindow window;
    auto* profile = openProfile(window, QStringLiteral("queries.json"),
                                R"({"format": "blasscope-session", "version": 1, "kind": "recording",
      "command": ["python3", "svd.py"], "pid": 42, "exit_status": 0, "wall_seconds": 0.5, "calls_total": 2,
      "routines": [{"routine": "dgesdd", "calls": 2, "workspace_queries": 1, "seconds": 0.01, "self_seconds": 0.01},
                   {"routine": "dgeqrf", "calls": 1, "workspace_queries": 1, "seconds": 0.000001}],
      "calls": [{"id": 1, "pid": 42, "thread": 42, "routine": "dgesdd", "m": 9, "n": 9, "info": 0,
                 "workspace_query": true, "seconds": 0.000001},
                {"id": 2, "pid": 42, "thread": 42, "routine": "dgesdd", "m": 9, "n": 9, "info": 0, "seconds": 0.009999}]})");
    QVERIFY(profile && profile->isShowingContent());
    auto* routines = profile->findChild<QTableView*>(QStringLiteral("routines"));
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    QCOMPARE(routines->model()->index(0, 2).data().toString(), QStringLiteral("2"));
    QVERIFY(routines->model()->index(0, 2).data(Qt::ToolTipRole).toString().contains(QStringLiteral("workspace")));
    QCOMPARE(routines->model()->headerData(7, Qt::Horizontal).toString(), QStringLiteral("Mean"));
    QCOMPARE(routines->model()->index(0, 7).data().toString(), QStringLiteral("10 ms"));  // 10 ms over 1 call
    QCOMPARE(routines->model()->index(1, 0).data().toString(), QStringLiteral("dgeqrf"));
    QCOMPARE(routines->model()->index(1, 7).data().toString(), QStringLiteral("–"));  // only sized its workspace
    QCOMPARE(calls->model()->index(0, ui::CallsModel::Problem).data().toString(), QStringLiteral("workspace query"));
    QCOMPARE(calls->model()->index(1, ui::CallsModel::Problem).data().toString(), QString());
  }

  void callsMadeInsideOtherCallsAndNotListedAreSaid() {
    ui::MainWindow window;
    auto* profile = openProfile(window, QStringLiteral("unlisted.json"),
                                R"({"format": "blasscope-session", "version": 1, "kind": "recording",
      "command": ["python3", "svd.py"], "pid": 42, "exit_status": 0, "wall_seconds": 0.5, "calls_total": 2002,
      "nested_limit": 1, "calls_unlisted": 2000,
      "routines": [{"routine": "dgesdd", "calls": 1, "seconds": 0.01, "self_seconds": 0.005},
                   {"routine": "dgemv", "calls": 2001, "seconds": 0.005, "self_seconds": 0.005}],
      "calls": [{"id": 2, "parent": 1, "pid": 42, "thread": 42, "routine": "dgemv", "m": 9, "n": 9, "start": 0.002,
                 "seconds": 0.000001},
                {"id": 1, "pid": 42, "thread": 42, "routine": "dgesdd", "m": 9, "n": 9, "info": 0, "start": 0.001,
                 "seconds": 0.01, "unlisted": 2000}]})");
    QVERIFY(profile && profile->isShowingContent());
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    const QModelIndex driver = calls->model()->index(0, ui::CallsModel::Routine);  // it started first
    QCOMPARE(driver.data().toString(), QStringLiteral("dgesdd (+2000 unlisted inside)"));
    QVERIFY(driver.data(Qt::ToolTipRole).toString().contains(QStringLiteral("--nested-calls all")));
    auto* routines = profile->findChild<QTableView*>(QStringLiteral("routines"));
    const QModelIndexList gemv =
        routines->model()->match(routines->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("dgemv"));
    QCOMPARE(gemv.size(), 1);
    QVERIFY(gemv[0].siblingAtColumn(2).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("1 of them listed")));
    auto* summary = profile->findChild<QLabel*>(QStringLiteral("summary"));
    QVERIFY(summary);
    QVERIFY(summary->text().contains(QStringLiteral("2000 calls made inside other calls")));
  }

  void theCallsSortByAColumnAndBackToTheOrderTheyStarted() {
    ui::MainWindow window;
    auto* profile = openProfile(window, QStringLiteral("sorting.json"),
                                R"({"format": "blasscope-session", "version": 1, "kind": "recording",
      "command": ["a.out"], "pid": 42, "exit_status": 0, "wall_seconds": 0.5, "calls_total": 3,
      "routines": [{"routine": "dgemm", "calls": 2, "seconds": 0.005}, {"routine": "dgesdd", "calls": 1, "seconds": 0.01}],
      "calls": [{"id": 2, "parent": 1, "pid": 42, "thread": 42, "routine": "dgemm", "m": 8, "n": 8, "k": 8,
                 "start": 0.002, "seconds": 0.001},
                {"id": 3, "parent": 1, "pid": 42, "thread": 42, "routine": "dgemm", "m": 99, "n": 99, "k": 99,
                 "start": 0.004, "seconds": 0.004},
                {"id": 1, "pid": 42, "thread": 42, "routine": "dgesdd", "m": 30, "n": 30, "info": 0, "start": 0.001,
                 "seconds": 0.01}]})");
    QVERIFY(profile && profile->isShowingContent());
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    const auto ids = [calls] {
      QList<qulonglong> out;
      for (int row = 0; row < calls->model()->rowCount(); ++row)
        out << calls->model()->index(row, 0).data().toULongLong();
      return out;
    };
    QCOMPARE(ids(), (QList<qulonglong>{1, 2, 3}));  // as they started (the session has them as they finished)
    calls->sortByColumn(ui::CallsModel::Start, Qt::DescendingOrder);
    QCOMPARE(ids(), (QList<qulonglong>{3, 2, 1}));
    calls->sortByColumn(ui::CallsModel::Time, Qt::DescendingOrder);
    QCOMPARE(ids(), (QList<qulonglong>{1, 3, 2}));
    calls->selectRow(1);  // call 3: the selection follows it
    calls->sortByColumn(ui::CallsModel::Sizes, Qt::AscendingOrder);
    QCOMPARE(ids(), (QList<qulonglong>{2, 1, 3}));  // 8·8·8, 30·30, 99·99·99
    QCOMPARE(calls->currentIndex().row(), 2);
    calls->sortByColumn(ui::CallsModel::Routine, Qt::DescendingOrder);
    QCOMPARE(calls->model()->index(0, 0).data().toULongLong(), 1ULL);  // dgesdd after dgemm
    calls->sortByColumn(-1, Qt::AscendingOrder);
    QCOMPARE(ids(), (QList<qulonglong>{1, 2, 3}));
  }

  void aRecordingOpensInTheProfileView() {
    const QString path = writeFile(QStringLiteral("recording.json"),
                                   R"({"format": "blasscope-session", "version": 1, "kind": "recording",
      "command": ["python3", "fit.py"], "pid": 42, "exit_status": 0, "wall_seconds": 0.5, "calls_total": 4,
      "processes": [{"pid": 42, "parent_pid": 1, "command": "python3 fit.py", "blas_found": true}],
      "routines": [{"routine": "dgelsd", "calls": 1, "seconds": 0.002, "self_seconds": 0.0015, "failures": 1},
                   {"routine": "dlascl", "calls": 1, "seconds": 0.0005, "self_seconds": 0.0005, "failures": 1},
                   {"routine": "dgemm", "calls": 2, "seconds": 0.01, "self_seconds": 0.01, "gflop": 0.02}],
      "calls": [{"id": 1, "pid": 42, "thread": 42, "routine": "dgemm", "m": 64, "n": 64, "k": 64, "seconds": 0.005,
                 "align_a": 64, "align_b": 8, "align_c": 4096},
                {"id": 2, "pid": 42, "thread": 42, "routine": "dgemm", "m": 64, "n": 64, "k": 64, "seconds": 0.005},
                {"id": 4, "parent": 3, "pid": 42, "thread": 42, "routine": "dlascl", "m": 9, "n": 1, "alpha": "NaN",
                 "info": -4, "xerbla": {"routine": "DLASCL", "parameter": 4}},
                {"id": 3, "pid": 42, "thread": 42, "routine": "dgelsd", "m": 30, "n": 9, "k": 1, "info": 8,
                 "values_checked": true, "input_nan": 1}],
      "running": [{"id": 5, "pid": 42, "thread": 42, "routine": "dgesdd", "m": 50, "n": 40, "start": 0.4}],
      "timed_out": true})");
    QVERIFY(!path.isEmpty());
    ui::MainWindow window;
    window.show();
    window.open(path);
    QCOMPARE(window.document().kind, ui::RunDocument::Kind::Recording);
    auto* profile = window.findChild<ui::ProfileView*>(QStringLiteral("profile"));
    QVERIFY(profile);
    QVERIFY(profile->isShowingContent());
    auto* routines = profile->findChild<QTableView*>(QStringLiteral("routines"));
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    QVERIFY(routines && calls);
    // The DGESDD that never returned has a row of its own, with no finished call, counted in an
    // Unfinished column (there only when some call had not returned).
    QCOMPARE(routines->model()->rowCount(), 4);
    QCOMPARE(routines->model()->columnCount(), 11);
    QCOMPARE(routines->model()->headerData(4, Qt::Horizontal).toString(), QStringLiteral("Unfinished"));
    int gesdd = -1;
    for (int row = 0; row < 4; ++row) {
      if (routines->model()->index(row, 0).data().toString() == QStringLiteral("dgesdd")) gesdd = row;
    }
    QVERIFY(gesdd >= 0);
    QCOMPARE(routines->model()->index(gesdd, 2).data().toString(), QStringLiteral("0"));
    // With how long it had run (the session's end, 0.5 s, less its start, 0.4 s): the hang's time.
    QCOMPARE(routines->model()->index(gesdd, 4).data().toString(), QStringLiteral("1 (ran 100 ms)"));
    QCOMPARE(routines->model()->index(gesdd, 5).data().toString(), QStringLiteral("–"));  // no time of its own
    QCOMPARE(calls->model()->rowCount(), 5);  // the call still running when it was stopped comes last
    QCOMPARE(calls->model()->index(4, 0).data().toULongLong(), 5ULL);
    QCOMPARE(calls->model()->index(4, ui::CallsModel::Time).data().toString(), QStringLiteral("still running"));
    QCOMPARE(calls->model()->index(0, ui::CallsModel::Alignment).data().toString(),
             QStringLiteral("A 64 · B 8 · C 4096"));
    QCOMPARE(calls->model()->index(1, ui::CallsModel::Alignment).data().toString(), QString());  // none recorded
    QVERIFY(calls->model()
                ->index(4, ui::CallsModel::Problem)
                .data()
                .toString()
                .startsWith(QStringLiteral("never returned")));
    // The Overview sums the recording up as the recorder did, and leads to the Profile.
    auto* overview = window.findChild<ui::OverviewView*>(QStringLiteral("overview"));
    QVERIFY(overview);
    QVERIFY(overview->isShowingContent());
    QVERIFY2(overview->summaryText().contains(QStringLiteral("dgelsd")), qPrintable(overview->summaryText()));
    QVERIFY2(overview->summaryText().contains(QStringLiteral("dlascl-invalid-cfrom")),
             qPrintable(overview->summaryText()));
    auto* tabs = window.findChild<QTabWidget*>();
    tabs->setCurrentWidget(overview);
    overview->findChild<QPushButton*>()->click();
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(profile));
    auto* timeline = profile->findChild<ui::CallTimeline*>(QStringLiteral("timeline"));
    QVERIFY(timeline);
    QCOMPARE(timeline->laneCount(), 1);  // one thread
    QVERIFY(timeline->window().second > timeline->window().first);
    // The DGESDD that never returned is drawn from its start (0.4 s) to the program's end (0.5 s).
    QVERIFY2(timeline->window().second >= 0.5e9 - 1e3, qPrintable(QString::number(timeline->window().second)));
    auto* status = profile->findChild<QComboBox*>(QStringLiteral("statusFilter"));
    status->setCurrentIndex(1);  // failed calls only: the DLASCL, the DGELSD and the one that never returned
    QCOMPARE(calls->model()->rowCount(), 3);
    auto* routine = profile->findChild<QComboBox*>(QStringLiteral("routineFilter"));
    routine->setCurrentIndex(routine->findText(QStringLiteral("dgelsd")));
    QCOMPARE(calls->model()->rowCount(), 1);
    routine->setCurrentIndex(routine->findText(QStringLiteral("dgesdd")));  // only a call that never returned
    QCOMPARE(calls->model()->rowCount(), 1);
    bool cfrom = false;
    for (const auto& d : window.document().diagnoses) cfrom = cfrom || d.id == "dlascl-invalid-cfrom";
    QVERIFY(cfrom);
    // Picking a diagnosis in the Failures panel selects its call, every call shown again.
    auto* failures = window.findChild<ui::FailuresPanel*>();
    QVERIFY(failures);
    int cfrom_row = -1;
    for (int row = 0; row < failures->model()->rowCount(); ++row) {
      if (failures->model()->index(row, 0).data().toString().contains(QStringLiteral("dlascl-invalid-cfrom")))
        cfrom_row = row;
    }
    QVERIFY(cfrom_row >= 0);
    auto* list = failures->findChild<QListView*>();
    list->setCurrentIndex(QModelIndex());  // the panel shows its first diagnosis on opening
    list->setCurrentIndex(failures->model()->index(cfrom_row, 0));
    QCOMPARE(calls->model()->rowCount(), 5);
    QTRY_COMPARE(calls->model()->index(calls->currentIndex().row(), 0).data().toULongLong(), 3ULL);
    // Only a captured call can be replayed; this hand-written recording has no captures.
    auto* replay = profile->findChild<QPushButton*>(QStringLiteral("replay"));
    QVERIFY(replay);
    calls->selectRow(0);
    QVERIFY(!replay->isEnabled());
  }

  void theRecordDialogRecordsAProgramAndCanStopOne() {
    ui::RecordDialog dialog;
    // A label's mnemonic (Alt+W) does nothing without a buddy, and shows its '&' as it is.
    for (const QLabel* label : dialog.findChildren<QLabel*>()) {
      if (label->text().contains(QLatin1Char('&'))) QVERIFY2(label->buddy(), qPrintable(label->text()));
    }
    QSignalSpy recorded(&dialog, &ui::RecordDialog::recorded);
    dialog.setCommand(
        QStringLiteral("%1 -c \"import numpy as np; a = np.ones((8, 8)); [a @ a.copy() for _ in range(5)]\"")
            .arg(QStringLiteral(BLASSCOPE_PYTHON)),
        m_dir.path());
    dialog.start();
    QVERIFY(dialog.isRecording());
    QVERIFY(recorded.wait(120000));
    const QString path = recorded.takeFirst().at(0).toString();
    const core::Document doc = core::open_document(path.toStdString());
    QCOMPARE(doc.kind, core::DocumentKind::Recording);
    QCOMPARE(doc.recording->calls_total, std::uint64_t{5});
    QCOMPARE(doc.recording->exit_status, 0);

    // A program that would run for a minute: Stop ends it and the session is still written.
    dialog.setCommand(QStringLiteral("sleep 60"));
    QElapsedTimer timer;
    timer.start();
    dialog.start();
    QTest::qWait(300);
    dialog.stop();
    QVERIFY(recorded.wait(20000));
    QVERIFY(timer.elapsed() < 20000);
    const core::Document stopped = core::open_document(recorded.takeFirst().at(0).toString().toStdString());
    QCOMPARE(stopped.recording->signal, std::string("SIGTERM"));
  }

  void aCapturedCallReplaysInTheWorker() {
    // A real NumPy SVD of a NaN matrix, recorded: its failing DGESDD is captured.
    ui::RecordDialog dialog;
    QSignalSpy recorded(&dialog, &ui::RecordDialog::recorded);
    dialog.setCommand(QStringLiteral("%1 -c \"import numpy as np; a = np.ones((12, 7)); a[2, 3] = np.nan; "
                                     "exec('try: np.linalg.svd(a)\\nexcept np.linalg.LinAlgError: pass')\"")
                          .arg(QStringLiteral(BLASSCOPE_PYTHON)),
                      m_dir.path());
    dialog.start();
    QVERIFY(recorded.wait(120000));
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.open(recorded.takeFirst().at(0).toString());
    QVERIFY(window.document().recording && !window.document().recording->captures.empty());
    auto* profile = window.findChild<ui::ProfileView*>(QStringLiteral("profile"));
    auto* calls = profile->findChild<QTableView*>(QStringLiteral("calls"));
    auto* replay = profile->findChild<QPushButton*>(QStringLiteral("replay"));
    const std::uint64_t captured = window.document().recording->captures.front().call;
    for (int row = 0; row < calls->model()->rowCount(); ++row) {
      if (calls->model()->index(row, 0).data().toULongLong() == captured) calls->selectRow(row);
    }
    QVERIFY(replay->isEnabled());
    replay->click();
    QVERIFY(idle.wait(120000));
    QCOMPARE(window.document().kind, ui::RunDocument::Kind::Workload);
    QVERIFY(window.document().run.has_value());
    bool cfrom = false;
    for (const auto& d : window.document().diagnoses) cfrom = cfrom || d.id == "dlascl-invalid-cfrom";
    QVERIFY2(cfrom, "the replayed capture did not fail as the recorded call did");
  }

  void aRunCanBeStopped() {
    ui::MainWindow window;
    window.show();
    QSignalSpy idle(&window, &ui::MainWindow::idle);
    window.open(QStringLiteral("scenario:seed-001-2-large-matmul"));
    window.runOn(QStringLiteral("cpu"));
    QTest::qWait(500);
    window.stopRun();
    QVERIFY(idle.wait(10000));
    QVERIFY(!window.isBusy());
    QCOMPARE(window.document().run->crash->signal, std::string("stopped by the user"));
  }

  void screenshotModeSavesEveryView() {
    QTemporaryDir shots;
    QProcess gui;
    gui.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    gui.start(QStringLiteral(BLASSCOPE_GUI_PATH),
              {QStringLiteral("--scenario"), QStringLiteral("rowmajor-lda"), QStringLiteral("--run"),
               QStringLiteral("cpu"), QStringLiteral("--screenshot"), shots.path()});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 0);
    for (const char* view : {"overview", "tensors", "memory", "dtype-flow", "layout", "timings"}) {
      const QImage image(QDir(shots.path()).filePath(QString::fromLatin1(view) + QStringLiteral(".png")));
      QVERIFY2(!image.isNull(), view);
      QVERIFY(image.width() > 600 && image.height() > 400);
    }
  }

  void screenshotModeFailsOnAnUnknownScenarioWithoutSavingAnything() {
    QTemporaryDir shots;
    QProcess gui;
    gui.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    gui.start(QStringLiteral(BLASSCOPE_GUI_PATH),
              {QStringLiteral("--scenario"), QStringLiteral("no-such-scenario"), QStringLiteral("--run"),
               QStringLiteral("cpu"), QStringLiteral("--screenshot"), shots.path()});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 2);
    QVERIFY(QString::fromUtf8(gui.readAllStandardError()).contains(QStringLiteral("no-such-scenario")));
    QVERIFY(QDir(shots.path()).entryList(QDir::Files).isEmpty());
  }

  void screenshotModeFailsOnAFileItCannotReadWithoutSavingAnything() {
    // Read in the background (a tensor file): its failure must stop the screenshots as well.
    QTemporaryDir shots;
    const QString garbage = m_dir.filePath(QStringLiteral("garbage.npy"));
    QFile file(garbage);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(300, '\x17'));
    file.close();
    QProcess gui;
    gui.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    gui.start(QStringLiteral(BLASSCOPE_GUI_PATH), {garbage, QStringLiteral("--screenshot"), shots.path()});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 2);
    QVERIFY(QString::fromUtf8(gui.readAllStandardError()).contains(QStringLiteral("unrecognised format")));
    QVERIFY(QDir(shots.path()).entryList(QDir::Files).isEmpty());
  }

 private:
  // Writes `text` as NAME in the test's folder; "" where it cannot.
  QString writeFile(const QString& name, const char* text) {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) < 0) return {};
    return path;
  }

  // The recording `text`, written as NAME, opened in `window`: its profile view.
  ui::ProfileView* openProfile(ui::MainWindow& window, const QString& name, const char* text) {
    const QString path = writeFile(name, text);
    if (path.isEmpty()) return nullptr;
    window.show();
    window.open(path);
    return window.findChild<ui::ProfileView*>(QStringLiteral("profile"));
  }

  QTemporaryDir m_dir;
};

QTEST_MAIN(UiTests)
#include "test_ui.moc"
