#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "file_loader.h"
#include "findings_view.h"
#include "report/inspect_text.h"
#include "tensor_table_model.h"

namespace blasscope::ui {
namespace {

constexpr int kPathRole = Qt::UserRole + 1;
const QString kFileFilter = QStringLiteral("Tensor files (*.npy *.npz *.safetensors);;All files (*)");

QString countOf(std::size_t count, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(count).arg(count == 1 ? one : many);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_model(new TensorTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_loader(new FileLoader(this)) {
  setWindowTitle(tr("BLAScope"));
  setAcceptDrops(true);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(Qt::UserRole);
  m_proxy->setFilterKeyColumn(TensorTableModel::Name);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  createWidgets();
  createActions();
  connectLoader();
  resize(1280, 760);
  statusBar()->showMessage(tr("Open a .npy, .npz or .safetensors file (Ctrl+O) or drop one here."));
}

MainWindow::~MainWindow() {
  m_loader->cancel();
}

void MainWindow::createWidgets() {
  m_files = new QListWidget;
  m_files->setMinimumWidth(180);
  m_table = new QTableView;
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(-1, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setAlternatingRowColors(true);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_findings = new FindingsView;
  m_summary = new QLabel;
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setWordWrap(true);
  m_filter = new QLineEdit;
  m_filter->setPlaceholderText(tr("Filter tensors by name (Ctrl+F)"));
  m_filter->setClearButtonEnabled(true);
  connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

  auto* center = new QWidget;
  auto* layout = new QVBoxLayout(center);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_summary);
  layout->addWidget(m_filter);
  layout->addWidget(m_table, 1);
  auto* vertical = new QSplitter(Qt::Vertical);
  vertical->addWidget(center);
  vertical->addWidget(m_findings);
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 1);
  auto* horizontal = new QSplitter(Qt::Horizontal);
  horizontal->addWidget(m_files);
  horizontal->addWidget(vertical);
  horizontal->setStretchFactor(1, 1);
  horizontal->setSizes({200, 1080});
  setCentralWidget(horizontal);
  connect(m_files, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) showFile(item->data(kPathRole).toString());
  });

  m_progress = new QProgressBar;
  m_progress->setMaximumWidth(240);
  m_progress->setRange(0, 1000);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setToolTip(tr("Stop reading this file (Esc)"));
  connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoad);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  setBusy(false);
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::chooseFiles);
  open->setShortcut(QKeySequence::Open);
  QAction* reload = file->addAction(tr("&Reload"), this, &MainWindow::reloadCurrent);
  reload->setShortcut(QKeySequence::Refresh);
  QAction* close = file->addAction(tr("&Close file"), this, &MainWindow::closeCurrent);
  close->setShortcut(QKeySequence::Close);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  QAction* find = view->addAction(tr("&Filter tensors"), this, [this] { m_filter->setFocus(); });
  find->setShortcut(QKeySequence::Find);
  QAction* cancel = view->addAction(tr("&Cancel loading"), this, &MainWindow::cancelLoad);
  cancel->setShortcut(Qt::Key_Escape);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About BLAScope"), this, [this] {
    QMessageBox::about(this, tr("About BLAScope"),
                       tr("<b>BLAScope</b> %1<br>Inspects the tensors behind failing or slow BLAS/LAPACK workloads: "
                          "dtype, shape, layout, alignment, and the NaN/Inf/subnormal values that make them fail.")
                           .arg(QStringLiteral(BLASSCOPE_VERSION)));
  });
  QToolBar* tools = addToolBar(tr("Main"));
  tools->setObjectName(QStringLiteral("mainToolBar"));
  tools->addAction(open);
  tools->addAction(reload);
}

void MainWindow::connectLoader() {
  connect(m_loader, &FileLoader::described, this, [this](const QString&, const core::InspectReport& report) {
    m_model->setTensors(report.tensors);
    showSummary(report);
    m_findings->showMessage(tr("Scanning values…"));
  });
  connect(m_loader, &FileLoader::tensorScanned, m_model, &TensorTableModel::updateTensor);
  connect(m_loader, &FileLoader::progress, this, [this](qint64 done, qint64 total) {
    m_progress->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 1000);
  });
  connect(m_loader, &FileLoader::finished, this, [this](const core::InspectReport& report) {
    m_reports.insert(QString::fromStdString(report.file), report);
    m_findings->showFindings(report.findings);
    setBusy(false);
    statusBar()->showMessage(tr("Read %1: %2, %3.")
                                 .arg(QFileInfo(QString::fromStdString(report.file)).fileName(),
                                      countOf(report.tensors.size(), tr("tensor"), tr("tensors")),
                                      countOf(report.findings.size(), tr("finding"), tr("findings"))),
                             8000);
  });
  connect(m_loader, &FileLoader::failed, this, [this](const QString& path, const QString& message) {
    setBusy(false);
    m_model->clear();
    m_summary->setText(QStringLiteral("<b>%1</b>").arg(path.toHtmlEscaped()));
    m_findings->showError(message);
    statusBar()->showMessage(tr("Could not read %1: %2").arg(QFileInfo(path).fileName(), message));
  });
  connect(m_loader, &FileLoader::cancelled, this, [this] {
    setBusy(false);
    m_findings->showMessage(tr("Loading cancelled: values not scanned. Reload (F5) to try again."));
    statusBar()->showMessage(tr("Cancelled."), 5000);
  });
}

void MainWindow::openFiles(const QStringList& paths) {
  QListWidgetItem* last = nullptr;
  for (const QString& path : paths) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    last = nullptr;
    for (int i = 0; i < m_files->count(); ++i) {
      if (m_files->item(i)->data(kPathRole).toString() == absolute) last = m_files->item(i);
    }
    if (!last) {
      last = new QListWidgetItem(QFileInfo(absolute).fileName(), m_files);
      last->setData(kPathRole, absolute);
      last->setToolTip(absolute);
    }
  }
  if (last) m_files->setCurrentItem(last);
}

void MainWindow::saveScreenshotWhenIdle(const QString& pngPath) {
  auto save = [this, pngPath] {
    QTimer::singleShot(300, this, [this, pngPath] {
      if (!grab().save(pngPath)) qWarning("could not write screenshot %s", qPrintable(pngPath));
      QApplication::quit();
    });
  };
  if (!m_loader->isBusy()) return save();
  connect(m_loader, &FileLoader::finished, this, save);
  connect(m_loader, &FileLoader::failed, this, save);
}

void MainWindow::showFile(const QString& path) {
  setWindowTitle(tr("%1 — BLAScope").arg(QFileInfo(path).fileName()));
  const auto cached = m_reports.constFind(path);
  if (cached != m_reports.constEnd()) {
    m_loader->cancel();
    m_model->setTensors(cached->tensors);
    showSummary(*cached);
    m_findings->showFindings(cached->findings);
    return;
  }
  m_model->clear();
  m_summary->setText(tr("Reading <b>%1</b>…").arg(path.toHtmlEscaped()));
  m_findings->clear();
  setBusy(true);
  m_loader->load(path);
}

void MainWindow::chooseFiles() {
  const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open tensor files"), QString(), kFileFilter);
  if (!paths.isEmpty()) openFiles(paths);
}

void MainWindow::reloadCurrent() {
  const QString path = currentPath();
  if (path.isEmpty()) return;
  m_reports.remove(path);
  showFile(path);
}

void MainWindow::closeCurrent() {
  const int row = m_files->currentRow();
  if (row < 0) return;
  m_loader->cancel();
  m_reports.remove(currentPath());
  delete m_files->takeItem(row);
  if (m_files->count() == 0) {
    m_model->clear();
    m_summary->clear();
    m_findings->clear();
    setWindowTitle(tr("BLAScope"));
  }
}

void MainWindow::cancelLoad() {
  if (m_loader->isBusy()) m_loader->cancel();
}

void MainWindow::showSummary(const core::InspectReport& report) {
  QString text =
      tr("<b>%1</b> — %2, %3, %4")
          .arg(QString::fromStdString(report.file).toHtmlEscaped(), QString::fromUtf8(core::name(report.format).data()),
               countOf(report.tensors.size(), tr("tensor"), tr("tensors")),
               QString::fromStdString(core::format_bytes(report.file_size)));
  for (const auto& [key, value] : report.metadata) {
    text += QStringLiteral("<br>%1 = %2")
                .arg(QString::fromStdString(key).toHtmlEscaped(), QString::fromStdString(value).toHtmlEscaped());
  }
  m_summary->setText(text);
}

void MainWindow::setBusy(bool busy) {
  m_progress->setVisible(busy);
  m_cancel->setVisible(busy);
  if (busy) m_progress->setValue(0);
}

QString MainWindow::currentPath() const {
  const QListWidgetItem* item = m_files->currentItem();
  return item ? item->data(kPathRole).toString() : QString();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) paths << url.toLocalFile();
  }
  openFiles(paths);
}

}  // namespace blasscope::ui
