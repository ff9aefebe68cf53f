#include "profile_view.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "call_timeline.h"
#include "calls_model.h"
#include "record/routine_names.h"
#include "report/recording_report.h"
#include "text/format.h"

namespace blasscope::ui {
namespace {

QStandardItem* number_item(double value, const QString& text) {
  auto* item = new QStandardItem(text);
  item->setData(value, Qt::UserRole);  // sorted by value, not by text
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// "61.76 ms", "29.3 ns": the unit that fits, as the CLI's tables have it.
QString duration(double seconds) {
  return QString::fromStdString(core::format_duration(seconds));
}

QTableView* table(QAbstractItemModel* model) {
  auto* view = new QTableView;
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(22);
  view->horizontalHeader()->setStretchLastSection(true);
  view->setAlternatingRowColors(true);
  return view;
}

}  // namespace

ProfileView::ProfileView(QWidget* parent) : DocumentView(parent) {
  showEmpty(
      tr("Record a program to profile it:\n\nblasscope-cli record --output run.json -- python3 train.py\n\n"
         "then open run.json here (File ▸ Open, Ctrl+O)."));
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  m_summary = new QLabel;
  m_summary->setObjectName(QStringLiteral("summary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);

  m_routines = new QStandardItemModel(this);
  m_routines->setSortRole(Qt::UserRole);
  m_routinesTable = table(m_routines);
  m_routinesTable->setSortingEnabled(true);
  m_routinesTable->setObjectName(QStringLiteral("routines"));

  auto* callsBox = new QWidget;
  auto* callsLayout = new QVBoxLayout(callsBox);
  callsLayout->setContentsMargins(0, 0, 0, 0);
  auto* filters = new QHBoxLayout;
  m_routineFilter = new QComboBox;
  m_routineFilter->setToolTip(tr("Show the calls of one routine"));
  m_statusFilter = new QComboBox;
  m_statusFilter->addItems({tr("All calls"), tr("Failed (INFO ≠ 0 or xerbla)"), tr("NaN/Inf in or out")});
  m_statusFilter->setToolTip(tr("Show only the calls that failed, or that saw non-finite values"));
  filters->addWidget(new QLabel(tr("Calls of")));
  filters->addWidget(m_routineFilter);
  filters->addWidget(m_statusFilter);
  filters->addStretch();
  m_replay = new QPushButton(tr("Replay in worker"));
  m_replay->setObjectName(QStringLiteral("replay"));
  m_replay->setToolTip(
      tr("Open the selected call's capture (its inputs as they were before it ran) as a workload "
         "and run it in the worker, with every view"));
  m_replay->setEnabled(false);
  filters->addWidget(m_replay);
  callsLayout->addLayout(filters);
  m_calls = new CallsModel(this);
  m_callsTable = table(m_calls);
  m_callsTable->setObjectName(QStringLiteral("calls"));
  // Unsorted at first: the calls in the order they started (a caller above the calls it made).
  m_callsTable->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  m_callsTable->horizontalHeader()->setSortIndicatorClearable(true);  // a third click: back to that order
  m_callsTable->setSortingEnabled(true);
  m_callsTable->horizontalHeader()->setToolTip(tr("Click a column to sort the calls by it"));
  // What failed before where and how it was laid out: INFO and Problem stay in view on a
  // narrow window, Start and Alignment follow them.
  for (const int column : {CallsModel::Start, CallsModel::Alignment}) {
    QHeaderView* header = m_callsTable->horizontalHeader();
    header->moveSection(header->visualIndex(column), CallsModel::ColumnCount - 1);
  }
  m_statusFilter->setObjectName(QStringLiteral("statusFilter"));
  m_routineFilter->setObjectName(QStringLiteral("routineFilter"));
  callsLayout->addWidget(m_callsTable);

  m_timeline = new CallTimeline;
  m_timeline->setObjectName(QStringLiteral("timeline"));
  auto* timelineScroll = new QScrollArea;
  timelineScroll->setWidget(m_timeline);
  timelineScroll->setWidgetResizable(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_routinesTable);
  split->addWidget(timelineScroll);
  split->addWidget(callsBox);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 2);
  split->setStretchFactor(2, 3);
  layout->addWidget(split, 1);
  setContent(content);

  connect(m_timeline, &CallTimeline::callClicked, this, &ProfileView::selectCall);
  connect(m_callsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ProfileView::updateReplay);
  connect(m_replay, &QPushButton::clicked, this, [this] {
    const QString workload = captureOfSelectedCall();
    if (!workload.isEmpty()) emit replayRequested(workload);
  });
  connect(m_routineFilter, &QComboBox::currentIndexChanged, this, &ProfileView::applyFilter);
  connect(m_statusFilter, &QComboBox::currentIndexChanged, this, &ProfileView::applyFilter);
  connect(m_routinesTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) return;
            const QString routine = m_routines->item(current.row(), 0)->text();
            const int at = m_routineFilter->findText(routine);
            if (at >= 0) m_routineFilter->setCurrentIndex(at);
          });
}

void ProfileView::setDocument(const RunDocument* doc) {
  m_doc = doc;
  const record::Recording* r = doc && doc->recording ? &*doc->recording : nullptr;
  if (!r) {
    m_calls->setRecording(nullptr);
    m_timeline->setRecording(nullptr);
    showEmpty(
        tr("Record a program to profile it:\n\nblasscope-cli record --output run.json -- python3 train.py\n\n"
           "then open run.json here (File ▸ Open, Ctrl+O)."));
    return;
  }
  QStringList command;
  for (const auto& a : r->command) command << QString::fromStdString(a);
  QString status = QString::fromStdString(core::recording_status_text(*r)).toHtmlEscaped();
  if (r->timed_out || !r->signal.empty()) status = QStringLiteral("<span style='color:#c62828'>%1</span>").arg(status);
  // As the CLI says it: the calls that never returned are listed too, but not in the count.
  const QString unreturned =
      r->running.empty() ? QString() : tr(" (and %1 that had not returned)").arg(r->running.size());
  const QString processes = r->processes.size() == 1 ? tr("1 process") : tr("%1 processes").arg(r->processes.size());
  // One multi-argument arg(): a command holding "%2" must not take the next argument's place.
  QString summary = tr("<b>%1</b><br>%2 BLAS/LAPACK calls%3 in %4 · %5 · %6 s")
                        .arg(command.join(QLatin1Char(' ')).toHtmlEscaped(), QString::number(r->calls_total),
                             unreturned, processes, status, QString::number(r->wall_seconds, 'f', 3));
  if (r->calls_not_kept)
    summary += tr("<br>%1 calls are in the totals but not listed one by one").arg(r->calls_not_kept);
  if (const std::string unlisted = record::unlisted_note(*r); !unlisted.empty())
    summary += tr("<br>%1").arg(QString::fromStdString(unlisted).toHtmlEscaped());
  if (!r->problem.empty()) summary += tr("<br>%1").arg(QString::fromStdString(r->problem).toHtmlEscaped());
  m_summary->setText(summary);

  m_routines->clear();
  // The counts first (a narrow window still shows them), then the times. Calls that never
  // returned have a column of their own: the others count finished calls.
  QStringList headers{tr("Routine"), tr("Dtype"), tr("Calls"), tr("Failures"), tr("Total"),
                      tr("Self"),    tr("Share"), tr("Mean"),  tr("GFLOP/s"),  tr("Of peak")};
  const bool unfinished = !r->running.empty();
  if (unfinished) headers.insert(4, tr("Unfinished"));
  m_routines->setHorizontalHeaderLabels(headers);
  double self_total = 0;
  for (const auto& t : r->routines) self_total += t.self_seconds;
  const std::vector<record::RoutineTotal> routines = record::with_unfinished(*r);
  std::map<std::pair<record::Routine, record::Precision>, std::uint64_t> listedCalls;  // finished ones, as Calls
  if (r->calls_unlisted) {
    for (const record::CallRecord& c : r->calls) ++listedCalls[{c.routine, c.precision}];
  }
  for (const auto& t : routines) {
    const QString name = QString::fromStdString(record::routine_name(t.routine, t.precision));
    auto* routine = new QStandardItem(name);
    routine->setData(name, Qt::UserRole);
    const double mean = record::mean_seconds(t);
    const double share = self_total > 0 ? 100 * t.self_seconds / self_total : 0;
    const double working = record::working_seconds(t);  // without the workspace queries
    const double gflops = t.gflop > 0 && working > 0 ? t.gflop / working : 0;
    const bool single = t.precision == record::Precision::S || t.precision == record::Precision::C;
    const double peak = record::is_gpu(t.routine) ? 0 : single ? r->peak_gflops_fp32 : r->peak_gflops_fp64;
    const double of_peak = peak > 0 ? 100 * gflops / peak : 0;
    auto* failures = number_item(static_cast<double>(t.failures), QString::number(t.failures));
    if (t.failures) failures->setForeground(QColor(0xc6, 0x28, 0x28));
    const bool timed = t.calls > 0;  // a routine whose only call never returned has no times
    const auto timed_text = [timed](const QString& text) { return timed ? text : QStringLiteral("–"); };
    QList<QStandardItem*> row{
        routine, new QStandardItem(QString::fromStdString(record::total_dtype(t))),
        number_item(static_cast<double>(t.calls), QString::number(t.calls)), failures,
        number_item(t.seconds, timed_text(duration(t.seconds))),
        number_item(t.self_seconds, timed_text(duration(t.self_seconds))),
        number_item(share, timed_text(QStringLiteral("%1%").arg(share, 0, 'f', 1))),
        // A routine that only sized workspaces did no work to average.
        number_item(mean, t.calls > t.queries ? timed_text(duration(mean)) : QStringLiteral("–")),
        // Four significant digits, as the CLI's table: a small GEMM's 0.0136 GFLOP/s is not 0.00.
        number_item(gflops, gflops > 0 ? QString::fromStdString(core::format_number(gflops)) : QStringLiteral("–")),
        number_item(of_peak, of_peak > 0 ? QString::fromStdString(core::format_number(of_peak)) + QLatin1Char('%')
                                         : QStringLiteral("–"))};
    QStringList callsTip;
    if (t.queries) {
      callsTip << tr("%1 of them workspace queries (LWORK = -1), which only size LAPACK's workspace: left "
                     "out of Mean")
                      .arg(t.queries);
    }
    const std::uint64_t listed = listedCalls[{t.routine, t.precision}];
    if (r->calls_unlisted && listed < t.calls) {
      callsTip << tr("%1 of them listed in the calls below; the others were made inside other calls and are "
                     "counted here only")
                      .arg(listed);
    }
    if (!callsTip.isEmpty()) row[2]->setToolTip(callsTip.join(QStringLiteral("\n")));
    if (unfinished) {
      // With how long they had run: a hang's time is in no other column.
      auto* count = number_item(
          t.unfinished_seconds,
          t.unfinished ? tr("%1 (ran %2)").arg(t.unfinished).arg(duration(t.unfinished_seconds)) : QStringLiteral("0"));
      if (t.unfinished) {
        count->setForeground(QColor(0xc6, 0x28, 0x28));
        count->setToolTip(tr("%n call(s) of %1 had not returned when the program ended, after running %2 in all "
                             "(not in Total, Self or Mean, which count finished calls)",
                             nullptr, static_cast<int>(t.unfinished))
                              .arg(name, duration(t.unfinished_seconds)));
      }
      row.insert(4, count);
    }
    m_routines->appendRow(row);
  }
  // By self time; where a call never returned, by how long those had run: the hang (or the
  // crash) is the finding, and its time is in no other column.
  m_routinesTable->sortByColumn(unfinished ? 4 : 5, Qt::DescendingOrder);
  m_routinesTable->resizeColumnsToContents();

  const QSignalBlocker block(m_routineFilter);
  m_routineFilter->clear();
  m_routineFilter->addItem(tr("every routine"), QString());
  for (const auto& t : routines) {
    const QString name = QString::fromStdString(record::routine_name(t.routine, t.precision));
    m_routineFilter->addItem(name, name);
  }
  m_calls->setRecording(r);
  m_timeline->setRecording(r);
  applyFilter();
  // One process or one thread says nothing in every row: their columns make room for the rest.
  const auto differ = [&r](auto field) {
    if (r->calls.empty() && r->running.empty()) return false;
    const auto first = field(r->calls.empty() ? r->running.front() : r->calls.front());
    const auto same_as_first = [&](const record::CallRecord& c) { return field(c) == first; };
    return !std::all_of(r->calls.begin(), r->calls.end(), same_as_first) ||
           !std::all_of(r->running.begin(), r->running.end(), same_as_first);
  };
  m_callsTable->setColumnHidden(CallsModel::Process,
                                !differ([](const record::CallRecord& c) { return c.pid; }) && r->processes.size() <= 1);
  m_callsTable->setColumnHidden(CallsModel::Thread, !differ([](const record::CallRecord& c) { return c.tid; }));
  m_callsTable->resizeColumnsToContents();
  // "dgelsd (+82 unlisted inside)" need not take the width of the columns after it.
  constexpr int kRoutineWidth = 180;
  if (m_callsTable->columnWidth(CallsModel::Routine) > kRoutineWidth)
    m_callsTable->setColumnWidth(CallsModel::Routine, kRoutineWidth);
  showContent();
}

void ProfileView::selectCall(quint64 id) {
  if (!m_doc || !m_doc->recording) return;
  const record::Recording& r = *m_doc->recording;
  const auto is_it = [id](const record::CallRecord& c) { return c.id == id; };
  // A call the recording does not list (only counted, or not kept) leaves the filters alone.
  if (std::none_of(r.calls.begin(), r.calls.end(), is_it) && std::none_of(r.running.begin(), r.running.end(), is_it))
    return;
  if (m_calls->rowOfCall(id) < 0) {  // filtered out: show every call
    m_routineFilter->setCurrentIndex(0);
    m_statusFilter->setCurrentIndex(0);
  }
  const int row = m_calls->rowOfCall(id);
  if (row < 0) return;
  m_callsTable->selectRow(row);
  m_callsTable->scrollTo(m_calls->index(row, 0));
}

QString ProfileView::captureOfSelectedCall() const {
  const record::CallRecord* call = m_calls->callAt(m_callsTable->currentIndex().row());
  if (!call || !m_doc || !m_doc->recording) return {};
  for (const auto& capture : m_doc->recording->captures) {
    if (capture.call == call->id) return QString::fromStdString(capture.workload);
  }
  return {};
}

void ProfileView::updateReplay() {
  const QString workload = captureOfSelectedCall();
  m_replay->setEnabled(!workload.isEmpty());
  m_replay->setToolTip(workload.isEmpty() ? tr("Select a captured call (a failing call of the recording) to replay it")
                                          : tr("Run %1 in the worker").arg(workload));
}

void ProfileView::applyFilter() {
  const auto status = static_cast<CallsModel::StatusFilter>(std::max(0, m_statusFilter->currentIndex()));
  m_calls->setFilter(m_routineFilter->currentData().toString(), status);
  updateReplay();
}

}  // namespace blasscope::ui
