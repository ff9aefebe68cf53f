#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <fstream>

#include "diagnose/recording_diagnosis.h"
#include "diagnose/run_diagnosis.h"
#include "document/document.h"
#include "document_view.h"
#include "dtype_flow_view.h"
#include "failures_panel.h"
#include "file_loader.h"
#include "gallery_view.h"
#include "io/input_error.h"
#include "io/text_file.h"
#include "layout_view.h"
#include "memory_view.h"
#include "overview_view.h"
#include "profile_view.h"
#include "record_dialog.h"
#include "report/session_report.h"
#include "results/run_environment.h"
#include "results/session_file.h"
#include "results/trace_writer.h"
#include "tensor_values.h"
#include "tensors_view.h"
#include "timings_view.h"
#include "worker_run.h"
#include "workload/scenarios.h"

namespace blasscope::ui {
namespace {

constexpr int kMaxRecent = 8;
const char* const kViewNames[] = {"overview", "tensors", "memory", "dtype-flow", "layout", "timings", "profile"};

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_loader(new FileLoader(this)),
      m_worker(new WorkerRun(this)),
      m_values(new TensorValuesJob(this)) {
  setWindowTitle(tr("BLAScope"));
  setAcceptDrops(true);
  createViews();
  createActions();
  QSettings settings;
  m_defaultDevice = settings.value(QStringLiteral("defaultDevice"), QStringLiteral("cpu")).toString();
  resize(1280, 800);
  restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
  rebuildRecentMenu();

  connect(m_values, &TensorValuesJob::ready, this, [this](std::shared_ptr<const TensorValues> values) {
    m_doc.values = std::move(values);
    auto* tensors = findChild<TensorsView*>();
    const QString current = tensors->currentTensorName();
    tensors->setDocument(&m_doc);
    if (!current.isEmpty()) tensors->selectTensorNamed(current);
    if (!isBusy()) emit idle();
  });
  connect(m_loader, &FileLoader::progress, this, [this](qint64 done, qint64 total) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
  });
  // A large file shows its tensor table as soon as it is described, and each row's statistics
  // as its scan ends; diagnoses come with the whole report.
  connect(m_loader, &FileLoader::described, this, [this](const QString& path, const core::InspectReport& report) {
    RunDocument doc;
    doc.kind = RunDocument::Kind::TensorFile;
    doc.source = path;
    doc.title = QFileInfo(QDir::cleanPath(path)).fileName();  // a checkpoint folder given as "ckpt/" too
    doc.inspect = report;
    setDocument(std::move(doc));
  });
  connect(m_loader, &FileLoader::tensorScanned, this, [this](int row, const core::TensorReport& tensor) {
    if (!m_doc.inspect || row < 0 || row >= static_cast<int>(m_doc.inspect->tensors.size())) return;
    m_doc.inspect->tensors[static_cast<std::size_t>(row)] = tensor;
    findChild<TensorsView*>()->updateTensor(row, tensor);
  });
  connect(m_loader, &FileLoader::finished, this, [this](const core::InspectReport& report) {
    RunDocument doc;
    doc.kind = RunDocument::Kind::TensorFile;
    doc.source = QString::fromStdString(report.file);
    doc.title = QFileInfo(QDir::cleanPath(doc.source)).fileName();
    doc.inspect = report;
    // The values read in the background since the file was described are still good.
    if (m_doc.kind == RunDocument::Kind::TensorFile && m_doc.source == doc.source) doc.values = m_doc.values;
    doc.diagnoses = core::diagnose_inspect(report);
    setDocument(std::move(doc));
    setBusy(false);
    statusBar()->showMessage(tr("Read %1: %2 tensors, %3 diagnoses.")
                                 .arg(m_doc.title)
                                 .arg(report.tensors.size())
                                 .arg(m_doc.diagnoses.size()),
                             10000);
    emit idle();
  });
  connect(m_loader, &FileLoader::failed, this, [this](const QString& path, const QString& message) {
    setBusy(false);
    // Shown in the Failures panel rather than a dialog; kept as the last warning so that a
    // --screenshot run says why and saves nothing.
    m_last_warning = tr("Could not read %1: %2").arg(path, message);
    if (!m_interactive) qWarning("%s", qPrintable(m_last_warning));
    statusBar()->showMessage(tr("Could not read %1: %2").arg(QFileInfo(path).fileName(), message));
    m_failures->setDiagnoses({}, tr("Could not read %1: %2").arg(path.toHtmlEscaped(), message.toHtmlEscaped()));
    emit idle();
  });
  connect(m_loader, &FileLoader::cancelled, this, [this] {
    setBusy(false);
    statusBar()->showMessage(tr("Loading stopped."), 5000);
    emit idle();
  });
  connect(m_worker, &WorkerRun::progress, this, [this](int done, int total, const QString& current) {
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(done);
    if (!current.isEmpty())
      statusBar()->showMessage(tr("Running %1 (%2 of %3 ops done)").arg(current).arg(done).arg(total));
  });
  connect(m_worker, &WorkerRun::finished, this, [this](const core::RunResult& result) {
    RunDocument doc = m_doc;
    doc.run = result;
    doc.diagnoses = core::diagnose_run(result);
    setDocument(std::move(doc));
    setBusy(false);
    if (result.rejection) {
      warn(tr("Workload rejected"),
           tr("The worker refused the workload: %1").arg(QString::fromStdString(*result.rejection)));
    } else {
      QString message = tr("Run finished: %1 ops, %2 diagnoses.").arg(result.ops.size()).arg(m_doc.diagnoses.size());
      if (result.crash && result.crash->signal == core::kTimeLimitEnd) {
        message = tr("An op never returned and was stopped at its time limit; the events before it are kept.");
      } else if (result.crash) {
        message = tr("The worker died (%1); the events before it are kept.")
                      .arg(QString::fromStdString(result.crash->signal));
      }
      statusBar()->showMessage(message, 10000);
    }
    emit idle();
  });
  connect(m_worker, &WorkerRun::failed, this, [this](const QString& message) {
    setBusy(false);
    warn(tr("Cannot run"), message);
    emit idle();
  });
  probeEnvironment();
  setBusy(false);
}

MainWindow::~MainWindow() {
  // The probe must not report into widgets that are going away.
  if (m_probe) {
    m_probe->disconnect(this);
    m_probe->kill();
    m_probe->waitForFinished(2000);
  }
  // Views and panels point into m_doc, which is destroyed before QWidget deletes children:
  // delete them first, so none paints or resizes from a freed run while closing.
  qDeleteAll(findChildren<QWidget*>(Qt::FindDirectChildrenOnly));
}

void MainWindow::createViews() {
  m_tabs = new QTabWidget;
  m_views = {new OverviewView, new TensorsView, new MemoryView, new DtypeFlowView,
             new LayoutView,   new TimingsView, new ProfileView};
  const QStringList titles = {tr("Overview"), tr("Tensors"), tr("Memory"), tr("Dtype flow"),
                              tr("Layout"),   tr("Timings"), tr("Profile")};
  for (std::size_t i = 0; i < m_views.size(); ++i) {
    m_tabs->addTab(m_views[i], titles[static_cast<int>(i)]);
    m_views[i]->setObjectName(QString::fromLatin1(kViewNames[i]));
    connect(m_views[i], &DocumentView::opSelected, this, &MainWindow::selectOp);
    connect(m_views[i], &DocumentView::tensorSelected, this, &MainWindow::selectTensorNamed);
  }
  setCentralWidget(m_tabs);
  connect(static_cast<OverviewView*>(m_views.front()), &OverviewView::profileRequested, this,
          [this] { m_tabs->setCurrentWidget(m_views.back()); });
  // A captured call of a recording opens as a workload and runs, with every view.
  connect(static_cast<ProfileView*>(m_views.back()), &ProfileView::replayRequested, this, [this](const QString& path) {
    open(path);
    if (m_doc.kind == RunDocument::Kind::Workload) runOn(QStringLiteral("cpu"));
  });

  m_gallery = new GalleryView;
  auto* galleryDock = new QDockWidget(tr("Scenarios"), this);
  galleryDock->setObjectName(QStringLiteral("galleryDock"));
  galleryDock->setWidget(m_gallery);
  addDockWidget(Qt::LeftDockWidgetArea, galleryDock);
  connect(m_gallery, &GalleryView::scenarioActivated, this, [this](const QString& id) {
    if (isBusy()) return;
    open(QStringLiteral("scenario:") + id);
    runOn(m_defaultDevice);
  });

  m_failures = new FailuresPanel;
  auto* failuresDock = new QDockWidget(tr("Failures"), this);
  failuresDock->setObjectName(QStringLiteral("failuresDock"));
  failuresDock->setWidget(m_failures);
  failuresDock->setFeatures(QDockWidget::DockWidgetMovable);  // always visible
  addDockWidget(Qt::RightDockWidgetArea, failuresDock);
  connect(m_failures, &FailuresPanel::opSelected, this, &MainWindow::selectOp);
  connect(m_failures, &FailuresPanel::callSelected, this, [this](quint64 id) {
    for (DocumentView* v : m_views) v->selectCall(id);
  });
  connect(m_failures, &FailuresPanel::tensorSelected, this, &MainWindow::selectTensorNamed);
  resizeDocks({galleryDock, failuresDock}, {260, 380}, Qt::Horizontal);
  m_galleryDock = galleryDock;
  m_failuresDock = failuresDock;

  m_environment = new QLabel;
  m_progress = new QProgressBar;
  m_progress->setMaximumWidth(220);
  m_stop = new QPushButton(tr("Stop"));
  m_stop->setToolTip(tr("Stop the run or the loading (Esc)"));
  connect(m_stop, &QPushButton::clicked, this, &MainWindow::stopRun);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_stop);
  statusBar()->addPermanentWidget(m_environment);
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::chooseFile);
  open->setShortcut(QKeySequence::Open);
  file->addAction(tr("Open &Folder…"), this, &MainWindow::chooseFolder)->setShortcut(tr("Ctrl+Shift+O"));
  m_recent = file->addMenu(tr("Open &Recent"));
  file->addSeparator();
  file->addAction(tr("&Record Program…"), this, &MainWindow::recordProgram)->setShortcut(tr("Ctrl+Shift+R"));
  file->addAction(tr("&Save Session…"), this, &MainWindow::saveSession)->setShortcut(QKeySequence::Save);
  file->addAction(tr("Export &Report…"), this, &MainWindow::exportReport);
  file->addAction(tr("Export &Trace…"), this, &MainWindow::exportTrace);
  file->addAction(tr("Export &View as PNG/SVG…"), this, &MainWindow::exportView)->setShortcut(tr("Ctrl+E"));
  file->addSeparator();
  file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows)->setShortcut(QKeySequence::Quit);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* cpu = run->addAction(tr("Run on &CPU"), this, [this] { runOn(QStringLiteral("cpu")); });
  cpu->setShortcut(tr("Ctrl+R"));
  QAction* gpu = run->addAction(tr("Run on &GPU"), this, [this] { runOn(QStringLiteral("gpu")); });
  gpu->setShortcut(tr("Ctrl+G"));
  QAction* both = run->addAction(tr("Run on &both, side by side"), this, [this] { runOn(QStringLiteral("both")); });
  both->setShortcut(tr("Ctrl+B"));
  QAction* stop = run->addAction(tr("&Stop"), this, &MainWindow::stopRun);
  stop->setShortcut(Qt::Key_Escape);
  run->addSeparator();
  QMenu* device = run->addMenu(tr("Scenarios run on"));
  for (const QString& d : {QStringLiteral("cpu"), QStringLiteral("gpu"), QStringLiteral("both")}) {
    QAction* a = device->addAction(d, this, [this, d] {
      m_defaultDevice = d;
      QSettings().setValue(QStringLiteral("defaultDevice"), d);
    });
    a->setCheckable(true);
    a->setChecked(d == QSettings().value(QStringLiteral("defaultDevice"), QStringLiteral("cpu")).toString());
  }

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < m_tabs->count(); ++i) {
    view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); })
        ->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About BLAScope"), this, [this] {
    QMessageBox::about(this, tr("About BLAScope"),
                       tr("<b>BLAScope</b> %1<br>An inspector and profiler for BLAS/LAPACK workloads that fail or run "
                          "slowly: it runs them in an isolated worker, measures, and explains every failure with "
                          "evidence.")
                           .arg(QStringLiteral(BLASSCOPE_VERSION)));
  });

  QToolBar* tools = addToolBar(tr("Main"));
  tools->setObjectName(QStringLiteral("mainToolBar"));
  for (QAction* a : {open, cpu, gpu, both, stop}) tools->addAction(a);
}

void MainWindow::probeEnvironment() {
  auto* probe = new QProcess(this);
  m_probe = probe;
  m_environment->setText(tr("probing the machine…"));
  connect(probe, &QProcess::finished, this, [this, probe] {
    probe->deleteLater();
    m_probe = nullptr;
    const auto env = core::parse_environment(probe->readAllStandardOutput().toStdString());
    if (!env || !env->cpu) {
      m_environment->setText(tr("machine probe failed"));
      return;
    }
    // This machine's, as the worker finds it: a recording's own program says its BLAS in its summary.
    QString text = tr("This machine: OpenBLAS %1 kernels, %2 threads")
                       .arg(QString::fromStdString(env->cpu->openblas_corename))
                       .arg(env->cpu->openblas_threads);
    const core::GpuEnvironment& gpu = env->gpu;
    text += gpu.device ? tr(" · GPU: %1").arg(QString::fromStdString(gpu.device->name)) : tr(" · no GPU");
    m_environment->setText(text);
    m_environment->setToolTip(gpu.device ? QString() : QString::fromStdString(gpu.reason));
  });
  probe->start(WorkerRun::workerPath(), {QStringLiteral("--environment")});
}

void MainWindow::open(const QString& source) {
  if (isBusy()) return;
  const bool scenario = source.startsWith(QStringLiteral("scenario:"));
  if (!scenario && !QFileInfo::exists(source)) {
    warn(tr("Cannot open"), tr("%1 does not exist.").arg(source));
    emit idle();
    return;
  }
  addRecent(source);
  try {
    core::Document opened = core::open_document(source.toStdString());
    if (opened.kind == core::DocumentKind::TensorFile) {
      setBusy(true, tr("Reading %1").arg(QFileInfo(source).fileName()));
      m_loader->load(source);
      return;
    }
    if (opened.kind == core::DocumentKind::Recording) {
      RunDocument doc;
      doc.kind = RunDocument::Kind::Recording;
      doc.source = source;
      doc.title = QString::fromStdString(opened.title);
      doc.diagnoses = core::diagnose_recording(*opened.recording);
      doc.recording = std::move(opened.recording);
      setDocument(std::move(doc));
      m_tabs->setCurrentWidget(m_views.back());  // the profile
      return;
    }
    RunDocument doc;
    doc.kind = RunDocument::Kind::Workload;
    doc.source = source;
    doc.title = QString::fromStdString(opened.title);
    doc.workload = std::move(opened.workload);
    doc.plan = std::move(opened.plan);
    if (opened.run) {
      doc.run = std::move(opened.run);
      doc.diagnoses = core::diagnose_run(*doc.run);
      // A re-run of the reopened session runs the workload it came from.
      if (!opened.rerun_source.empty()) doc.source = QString::fromStdString(opened.rerun_source);
    }
    setDocument(std::move(doc));
    if (!opened.note.empty()) statusBar()->showMessage(QString::fromStdString(opened.note), 10000);
  } catch (const core::InputError& error) {
    warn(tr("Cannot open"), tr("%1: %2").arg(source, QString::fromUtf8(error.what())));
    emit idle();
  } catch (const std::bad_alloc&) {
    warn(tr("Cannot open"), tr("%1: not enough memory to read it.").arg(source));
    emit idle();
  } catch (const std::exception& error) {
    // Nothing a file holds may end the session: what no reader expected is still refused.
    warn(tr("Cannot open"), tr("%1: %2").arg(source, QString::fromUtf8(error.what())));
    emit idle();
  }
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  // After the layout has placed the docks at the new size.
  QTimer::singleShot(0, this, [this] {
    if (m_tabs->width() >= width() * 45 / 100) return;
    resizeDocks({m_galleryDock, m_failuresDock}, {width() * 22 / 100, width() * 30 / 100}, Qt::Horizontal);
  });
}

void MainWindow::warn(const QString& title, const QString& text) {
  statusBar()->showMessage(text);
  m_last_warning = title + QStringLiteral(": ") + text;
  if (m_interactive) {
    QMessageBox::warning(this, title, text);
  } else {
    qWarning("%s: %s", qPrintable(title), qPrintable(text));
  }
}

void MainWindow::runOn(const QString& device) {
  if (isBusy()) return;
  if (m_doc.kind != RunDocument::Kind::Workload || !m_doc.workload) {
    statusBar()->showMessage(tr("Open a workload or pick a scenario first: a tensor file has nothing to run."), 6000);
    return;
  }
  const QString source =
      m_doc.workload->source_path.empty() ? m_doc.source : QString::fromStdString(m_doc.workload->source_path);
  setBusy(true, tr("Running %1 on %2").arg(m_doc.title, device));
  m_progress->setRange(0, std::max<int>(1, static_cast<int>(m_doc.workload->ops.size())));
  core::TimeLimits limits;
  limits.run_seconds = m_doc.workload->timeout;
  for (const auto& op : m_doc.workload->ops) {
    if (op.timeout) limits.op_seconds[op.index] = *op.timeout;
  }
  m_worker->start(source, device, limits);
}

void MainWindow::stopRun() {
  if (m_worker->isRunning()) m_worker->stop();
  if (m_loader->isBusy()) m_loader->cancel();
}

bool MainWindow::isBusy() const {
  return m_worker->isRunning() || m_loader->isBusy();
}

bool MainWindow::isReadingValues() const {
  return m_values->isBusy();
}

void MainWindow::setDocument(RunDocument doc) {
  m_doc = std::move(doc);
  // The Tensors view's values are read off the GUI thread, once per opened document (a
  // finished run keeps them: it copies the document).
  if (!m_doc.values && m_doc.kind != RunDocument::Kind::Empty && m_doc.kind != RunDocument::Kind::Recording &&
      !m_values->isReading(m_doc.source)) {
    m_values->start(m_doc);
  }
  setWindowTitle(m_doc.title.isEmpty() ? tr("BLAScope") : tr("%1 — BLAScope").arg(m_doc.title));
  refreshViews();
}

void MainWindow::refreshViews() {
  for (DocumentView* v : m_views) v->setDocument(&m_doc);
  QString empty = tr("No diagnoses: nothing failed or ran slowly.");
  if (m_doc.kind == RunDocument::Kind::Workload && !m_doc.run) {
    empty = tr("Not run yet: press Run (Ctrl+R for the CPU, Ctrl+G for the GPU, Ctrl+B for both).");
  }
  m_failures->setDiagnoses(m_doc.diagnoses, empty);
}

void MainWindow::selectTensorNamed(const QString& name) {
  for (DocumentView* v : m_views) v->selectTensorNamed(name);
}

void MainWindow::selectOp(std::size_t op) {
  for (DocumentView* v : m_views) v->selectOp(op);
}

void MainWindow::setBusy(bool busy, const QString& what) {
  m_progress->setVisible(busy);
  m_stop->setVisible(busy);
  if (busy) {
    m_progress->setValue(0);
    statusBar()->showMessage(what);
  }
}

void MainWindow::addRecent(const QString& source) {
  QSettings settings;
  QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(source);
  recent.prepend(source);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recent->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& source : recent) m_recent->addAction(source, this, [this, source] { open(source); });
  m_recent->setEnabled(!recent.isEmpty());
}

void MainWindow::chooseFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open"), QString(),
      tr("BLAScope inputs (*.npy *.npz *.safetensors *.pt *.pth *.bin *.h5 *.hdf5 *.keras *.json);;Tensor files (*.npy "
         "*.npz *.safetensors *.pt *.pth *.bin *.h5 *.hdf5 *.keras *.index.json);;Workloads and sessions (*.json);;All "
         "files (*)"));
  if (!path.isEmpty()) open(path);
}

void MainWindow::chooseFolder() {
  // A sharded checkpoint's folder (save_pretrained's output): its index, or its tensor files.
  const QString path = QFileDialog::getExistingDirectory(this, tr("Open checkpoint folder"));
  if (!path.isEmpty()) open(path);
}

void MainWindow::saveSession() {
  if (!m_doc.run) return statusBar()->showMessage(tr("Nothing to save: run a workload first."), 5000);
  const QString path = QFileDialog::getSaveFileName(this, tr("Save session"), QString(), tr("Sessions (*.json)"));
  if (path.isEmpty()) return;
  try {
    core::write_session(path.toStdString(), m_doc.source.toStdString(), *m_doc.run);
    statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
  } catch (const core::InputError& error) {
    reportExportFailure(tr("The session was not saved"), error);
  }
}

bool MainWindow::writeExport(const QString& path, const std::string& content, const QString& what) {
  try {
    core::write_text_file(path.toStdString(), content);
  } catch (const core::InputError& error) {
    reportExportFailure(tr("The %1 was not saved").arg(what), error);
    return false;
  }
  statusBar()->showMessage(tr("%1 saved to %2").arg(what.left(1).toUpper() + what.mid(1), path), 5000);
  return true;
}

void MainWindow::reportExportFailure(const QString& title, const std::exception& error) {
  m_last_warning = title + QStringLiteral(": ") + QString::fromUtf8(error.what());
  statusBar()->showMessage(m_last_warning, 10000);
  if (m_interactive) QMessageBox::warning(this, title, QString::fromUtf8(error.what()));
}

void MainWindow::exportReport() {
  if (!m_doc.run) return statusBar()->showMessage(tr("Nothing to report: run a workload first."), 5000);
  QString filter;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export report"), QString(), tr("HTML (*.html);;Markdown (*.md)"), &filter);
  if (path.isEmpty()) return;
  writeExport(path,
              path.endsWith(QStringLiteral(".md")) ? core::markdown_report(*m_doc.run, m_doc.diagnoses)
                                                   : core::html_report(*m_doc.run, m_doc.diagnoses),
              tr("report"));
}

void MainWindow::recordProgram() {
  if (!m_recorder) {
    m_recorder = new RecordDialog(this);
    connect(m_recorder, &RecordDialog::recorded, this, [this](const QString& path) { open(path); });
  }
  m_recorder->show();
  m_recorder->raise();
}

void MainWindow::exportTrace() {
  if (!m_doc.run) return statusBar()->showMessage(tr("Nothing to trace: run a workload first."), 5000);
  const QString path = QFileDialog::getSaveFileName(this, tr("Export trace"), QString(), tr("Chrome trace (*.json)"));
  if (path.isEmpty()) return;
  writeExport(path, core::chrome_trace_text(*m_doc.run), tr("trace"));
}

void MainWindow::exportView() {
  auto* view = static_cast<DocumentView*>(m_tabs->currentWidget());
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export view"), QString(), tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  QWidget* target = view->exportWidget();
  if (path.endsWith(QStringLiteral(".svg"))) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(target->size());
    svg.setViewBox(target->rect());
    svg.setTitle(m_tabs->tabText(m_tabs->currentIndex()));
    target->render(&svg);
    // QSvgGenerator reports no error: an empty or missing file is the sign.
    if (QFileInfo(path).size() == 0) {
      reportExportFailure(tr("The view was not saved"), std::runtime_error("could not write " + path.toStdString()));
    } else {
      statusBar()->showMessage(tr("View saved to %1").arg(path), 5000);
    }
  } else if (!target->grab().save(path)) {
    reportExportFailure(tr("The view was not saved"), std::runtime_error("could not write " + path.toStdString()));
  } else {
    statusBar()->showMessage(tr("View saved to %1").arg(path), 5000);
  }
}

bool MainWindow::saveViewScreenshots(const QString& dir) {
  QDir().mkpath(dir);
  bool ok = true;
  for (int i = 0; i < m_tabs->count(); ++i) {
    m_tabs->setCurrentIndex(i);
    QApplication::processEvents();
    const QString file = QDir(dir).filePath(m_tabs->widget(i)->objectName() + QStringLiteral(".png"));
    ok = grab().save(file) && ok;
  }
  m_tabs->setCurrentIndex(0);
  return ok;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  stopRun();
  QSettings settings;
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("windowState"), saveState());
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) open(urls.front().toLocalFile());
}

}  // namespace blasscope::ui
