#include "calls_model.h"

#include <QColor>
#include <algorithm>
#include <climits>
#include <limits>

#include "nearly_sorted.h"
#include "record/routine_names.h"
#include "text/format.h"

namespace blasscope::ui {
namespace {

bool failed(const record::CallRecord& c) {
  return record::call_failed(c);
}

bool non_finite(const record::CallRecord& c) {
  return c.input_nan + c.input_inf + c.output_nan + c.output_inf > 0;
}

}  // namespace

QString CallsModel::sizesText(const record::CallRecord& c) {
  // SYRK has no M: C is N x N, A is N x K.
  if (c.routine == record::Routine::Syrk) return QStringLiteral("N %1 · K %2").arg(c.n).arg(c.k);
  if (c.routine == record::Routine::CudaMalloc)
    return QString::fromStdString(core::format_bytes(record::malloc_bytes(c)));
  // cublasCreate has no sizes, nor has an xerbla report recorded alone (no argument is known).
  if (c.routine == record::Routine::CublasCreate || c.routine == record::Routine::Xerbla) return {};
  QString text = QStringLiteral("%1 × %2").arg(c.m).arg(c.n);
  if (c.k) text += QStringLiteral(" × %1").arg(c.k);
  if (record::is_strided_batched(c.routine)) text += QObject::tr(" · batch %1").arg(static_cast<long long>(c.beta));
  return text;
}

namespace {

// The operands' pointer alignment in bytes ("A 64 · B 8"), for those the call records.
QString alignment(const record::CallRecord& c) {
  QStringList parts;
  const std::pair<char, std::uint8_t> operands[] = {{'A', c.align_a}, {'B', c.align_b}, {'C', c.align_c}};
  for (const auto& [name, code] : operands) {
    if (code) parts << QStringLiteral("%1 %2").arg(QLatin1Char(name)).arg(record::alignment_bytes(code));
  }
  return parts.join(QStringLiteral(" · "));
}

QString problem(const record::CallRecord& c) {
  QStringList parts;
  if (record::has_xerbla(c)) {
    parts << QObject::tr("%1 parameter %2")
                 .arg(QString::fromLatin1(c.xerbla_routine, static_cast<int>(strnlen(c.xerbla_routine, 8))))
                 .arg(c.xerbla_parameter);
  }
  if (c.info) parts << QObject::tr("INFO %1").arg(c.info);
  if (c.input_nan + c.input_inf) parts << QObject::tr("%1 NaN/Inf in").arg(c.input_nan + c.input_inf);
  if (c.output_nan + c.output_inf) parts << QObject::tr("%1 NaN/Inf out").arg(c.output_nan + c.output_inf);
  if (c.flags & record::kWorkspaceQuery) parts << QObject::tr("workspace query");
  if (c.flags & record::kLapacke) parts << QObject::tr("refused by LAPACKE");
  return parts.join(QStringLiteral(", "));
}

// A routine's place among every routine's name in alphabetical order.
int routine_rank(const record::CallRecord& c) {
  static const auto* const kRanks = [] {
    std::vector<std::pair<std::string, int>> names;
    for (std::uint32_t r = 0; r < record::kRoutineCount; ++r) {
      for (std::uint32_t p = 0; p < record::kPrecisionCount; ++p) {
        names.emplace_back(record::routine_name(static_cast<record::Routine>(r), static_cast<record::Precision>(p)),
                           static_cast<int>(r * record::kPrecisionCount + p));
      }
    }
    std::sort(names.begin(), names.end());
    auto* ranks = new std::vector<int>(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      (*ranks)[static_cast<std::size_t>(names[i].second)] = static_cast<int>(i);
    return ranks;
  }();
  const auto slot =
      static_cast<std::size_t>(c.routine) * record::kPrecisionCount + static_cast<std::size_t>(c.precision);
  return slot < kRanks->size() ? (*kRanks)[slot] : static_cast<int>(kRanks->size());
}

}  // namespace

CallsModel::CallsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CallsModel::setRecording(const record::Recording* recording) {
  m_recording = recording;
  rebuild();
}

void CallsModel::setFilter(const QString& routine, StatusFilter status) {
  m_routine = routine;
  m_status = status;
  rebuild();
}

// Rows index the finished calls, then the calls still running when the program ended (a hang,
// a crash: failures too, and the ones a capture made before they ran replays).
const record::CallRecord& CallsModel::at(std::uint32_t index) const {
  const auto& calls = m_recording->calls;
  return index < calls.size() ? calls[index] : m_recording->running[index - calls.size()];
}

bool CallsModel::isRunning(std::uint32_t index) const {
  return index >= m_recording->calls.size();
}

void CallsModel::rebuild() {
  beginResetModel();
  m_rows.clear();
  if (m_recording) {
    const std::string routine = m_routine.toStdString();
    const auto total = static_cast<std::uint32_t>(m_recording->calls.size() + m_recording->running.size());
    for (std::uint32_t i = 0; i < total; ++i) {
      const auto& c = at(i);
      if (!routine.empty() && record::routine_name(c.routine, c.precision) != routine) continue;
      if (m_status == StatusFilter::Failed && !failed(c) && !isRunning(i)) continue;
      if (m_status == StatusFilter::NonFinite && !non_finite(c)) continue;
      m_rows.push_back(i);
    }
    sortRows();
  }
  endResetModel();
}

void CallsModel::sort(int column, Qt::SortOrder order) {
  m_sortColumn = column;
  m_sortOrder = order;
  if (!m_recording) return;
  emit layoutAboutToBeChanged();
  const QModelIndexList before = persistentIndexList();
  std::vector<std::uint32_t> calls_before;
  for (const QModelIndex& index : before) calls_before.push_back(m_rows[static_cast<std::size_t>(index.row())]);
  // Back to start order from a column's: from the session's own order, which is nearly it.
  if (m_sortColumn < 0 || m_sortColumn >= ColumnCount) std::sort(m_rows.begin(), m_rows.end());
  sortRows();
  // Selections (the call shown in the replay panel) follow their calls to their new rows.
  std::vector<int> row_of(m_recording->calls.size() + m_recording->running.size(), -1);
  for (std::size_t row = 0; row < m_rows.size(); ++row) row_of[m_rows[row]] = static_cast<int>(row);
  QModelIndexList after;
  for (std::size_t i = 0; i < calls_before.size(); ++i) after << index(row_of[calls_before[i]], before[i].column());
  changePersistentIndexList(before, after);
  emit layoutChanged();
}

void CallsModel::sortRows() {
  if (m_sortColumn < 0 || m_sortColumn >= ColumnCount) {
    // In the order the calls started, a caller above the calls it made (the session has them in
    // the order they finished). Most sessions are in that order already: no sort, a look.
    const auto started_before = [this](std::uint32_t a, std::uint32_t b) {
      const std::uint64_t x = at(a).start_ns, y = at(b).start_ns;
      return x != y ? x < y : a < b;
    };
    sort_nearly_sorted(m_rows.begin(), m_rows.end(), started_before, [&] {
      // Many out of order (every nested call): sorted as (start, index) pairs side by side.
      std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed;
      keyed.reserve(m_rows.size());
      for (const std::uint32_t row : m_rows) keyed.emplace_back(at(row).start_ns, row);
      std::sort(keyed.begin(), keyed.end());
      for (std::size_t i = 0; i < keyed.size(); ++i) m_rows[i] = keyed[i].second;
    });
    return;
  }
  // One number a row: sizes by their product, the problem by how bad it is, a running call's time
  // as the longest.
  const auto key = [this](std::uint32_t index) -> double {
    const record::CallRecord& c = at(index);
    switch (m_sortColumn) {
      case Seq: return static_cast<double>(c.id);
      case Process: return c.pid;
      case Thread: return c.tid;
      case Routine: return routine_rank(c);
      case DType: return static_cast<double>(c.precision);
      case Sizes:  // SYRK has no M: C is N x N; cudaMalloc's size is its bytes
        if (c.routine == record::Routine::CudaMalloc) return static_cast<double>(record::malloc_bytes(c));
        return static_cast<double>(c.routine == record::Routine::Syrk ? c.n : c.m) * std::max(c.n, 1) *
               std::max(c.k, 1);
      case Alignment: return c.align_a * 256.0 * 256.0 + c.align_b * 256.0 + c.align_c;
      case Start: return static_cast<double>(c.start_ns);
      case Time: return isRunning(index) ? std::numeric_limits<double>::infinity() : static_cast<double>(c.duration_ns);
      case Info: return c.info;
      default:  // Problem
        return (isRunning(index) ? 4 : 0) + (failed(c) ? 2 : 0) + (non_finite(c) ? 1 : 0);
    }
  };
  const bool descending = m_sortOrder == Qt::DescendingOrder;
  std::stable_sort(m_rows.begin(), m_rows.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return descending ? key(b) < key(a) : key(a) < key(b); });
}

const record::CallRecord* CallsModel::callAt(int row) const {
  if (!m_recording || row < 0 || row >= static_cast<int>(m_rows.size())) return nullptr;
  return &at(m_rows[static_cast<std::size_t>(row)]);
}

int CallsModel::rowOfCall(std::uint64_t id) const {
  if (!m_recording) return -1;
  for (std::size_t row = 0; row < m_rows.size(); ++row) {
    if (at(m_rows[row]).id == id) return static_cast<int>(row);
  }
  return -1;
}

int CallsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CallsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CallsModel::data(const QModelIndex& index, int role) const {
  const record::CallRecord* c = callAt(index.row());
  if (!c) return {};
  const bool running = isRunning(m_rows[static_cast<std::size_t>(index.row())]);
  if (role == Qt::ForegroundRole && index.column() == Problem && (running || failed(*c) || non_finite(*c))) {
    return QColor(0xc6, 0x28, 0x28);
  }
  if (role == Qt::TextAlignmentRole && index.column() != Routine && index.column() != Problem) {
    return int(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == Routine && c->unlisted) {
    return tr(
        "%n call(s) made inside this one are counted in the routines' totals but not listed one by one "
        "(record with --nested-calls all to list them)",
        nullptr, static_cast<int>(std::min<std::uint32_t>(c->unlisted, INT_MAX)));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Seq: return static_cast<qulonglong>(c->id);
    case Process: return c->pid;
    case Thread: return c->tid;
    case Routine: {
      const QString name = QString::fromStdString(record::routine_name(c->routine, c->precision));
      // Rows come in the order calls finished, a call after those it made: the parent is named.
      const QString text =
          c->parent ? QStringLiteral("  ↳ %1 (in %2)").arg(name).arg(static_cast<qulonglong>(c->parent)) : name;
      return c->unlisted ? tr("%1 (+%2 unlisted inside)").arg(text).arg(c->unlisted) : text;
    }
    case DType: return QString::fromLatin1(record::call_dtype(*c));
    case Sizes: return sizesText(*c);
    case Alignment: return alignment(*c);
    case Start:
      return QStringLiteral("%1 ms").arg(
          static_cast<double>(c->start_ns > m_recording->start_ns ? c->start_ns - m_recording->start_ns : 0) * 1e-6, 0,
          'f', 3);
    case Time:
      return running ? tr("still running")
                     : QString::fromStdString(core::format_duration(static_cast<double>(c->duration_ns) * 1e-9));
    case Info: return (c->flags & record::kHasInfo) && !running ? QVariant(c->info) : QVariant(QStringLiteral("–"));
    case Problem: {
      const QString text = problem(*c);
      if (!running) return text;
      return text.isEmpty() ? tr("never returned") : tr("never returned, ") + text;
    }
    default: return {};
  }
}

QVariant CallsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const kTitles[ColumnCount] = {"Call",   "Process",           "Thread", "Routine", "Dtype",
                                                   "Sizes",  "Alignment (bytes)", "Start",  "Time",    "INFO",
                                                   "Problem"};
  return section >= 0 && section < ColumnCount ? tr(kTitles[section]) : QVariant();
}

}  // namespace blasscope::ui
