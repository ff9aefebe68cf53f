#include "call_timeline.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <functional>
#include <unordered_map>

#include "calls_model.h"
#include "nearly_sorted.h"
#include "record/routine_names.h"

namespace blasscope::ui {
namespace {

constexpr int kLabelWidth = 170, kRowHeight = 16, kLaneGap = 6, kMaxDepth = 6;
// Room after the end of the window: a call at its very end is drawn whole, not on the edge.
constexpr int kRightMargin = 6;

QColor colour_of(const record::CallRecord& c) {
  if (c.info != 0 || record::has_xerbla(c)) return QColor(0xc6, 0x28, 0x28);
  if (c.input_nan + c.input_inf + c.output_nan + c.output_inf > 0) return QColor(0xef, 0x6c, 0x00);
  // A stable hue per routine, kept away from the reds and oranges that mean trouble.
  const int hue = 90 + (static_cast<int>(c.routine) * 37 + static_cast<int>(c.precision) * 13) % 220;
  return QColor::fromHsv(hue, 110, 210);
}

}  // namespace

CallTimeline::CallTimeline(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(80);
  setToolTip(tr("Wheel: zoom · drag: pan · double-click: show everything"));
}

void CallTimeline::setRecording(const record::Recording* recording) {
  m_recording = recording;
  m_lanes.clear();
  m_unfinished.clear();
  if (recording) {
    // A call that never returned (a hang stopped by --timeout, a crash) ran as long as the
    // recorder measured (until its process ended), or, in an older session, until the end.
    const auto end_ns = recording->start_ns + static_cast<std::uint64_t>(std::max(0.0, recording->wall_seconds) * 1e9);
    for (record::CallRecord c : recording->running) {
      if (!c.duration_ns) c.duration_ns = end_ns > c.start_ns ? end_ns - c.start_ns : 0;
      m_unfinished.push_back(c);
    }
    std::vector<const record::CallRecord*> all;
    all.reserve(recording->calls.size() + m_unfinished.size());
    for (const auto& c : recording->calls) all.push_back(&c);
    for (const auto& c : m_unfinished) all.push_back(&c);
    // Callers by id, for the depth of nested calls: a recording without any (a million top-level
    // GEMMs) skips the map, a tenth of opening it.
    std::unordered_map<std::uint64_t, const record::CallRecord*> by_id;
    if (std::any_of(all.begin(), all.end(), [](const auto* c) { return c->parent != 0; })) {
      by_id.reserve(all.size());
      for (const auto* c : all) by_id.emplace(c->id, c);
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> lane_of;
    m_end = 1;
    m_begin = -1;
    for (const auto* call : all) {
      const record::CallRecord& c = *call;
      int depth = 0;
      for (auto p = c.parent; p && depth < kMaxDepth - 1; ++depth) {
        const auto it = by_id.find(p);
        if (it == by_id.end()) break;
        p = it->second->parent;
      }
      const auto key = std::make_pair(c.pid, c.tid);
      auto [it, added] = lane_of.emplace(key, m_lanes.size());
      if (added) m_lanes.push_back({c.pid, c.tid, 1, {}});
      Lane& lane = m_lanes[it->second];
      if (static_cast<int>(lane.levels.size()) <= depth) lane.levels.resize(static_cast<std::size_t>(depth) + 1);
      lane.levels[static_cast<std::size_t>(depth)].push_back(&c);
      lane.depth = std::max(lane.depth, depth + 1);
      const double end = static_cast<double>(c.start_ns + c.duration_ns) - static_cast<double>(recording->start_ns);
      m_end = std::max(m_end, end);
      const double begin = static_cast<double>(c.start_ns) - static_cast<double>(recording->start_ns);
      m_begin = m_begin < 0 ? begin : std::min(m_begin, begin);
    }
    for (Lane& lane : m_lanes) {
      for (auto& level : lane.levels) {
        const auto started_before = [](auto* a, auto* b) { return a->start_ns < b->start_ns; };
        sort_nearly_sorted(level.begin(), level.end(), started_before,
                           [&] { std::sort(level.begin(), level.end(), started_before); });
      }
    }
  }
  int height = 0;
  for (const Lane& lane : m_lanes) height += lane.depth * kRowHeight + kLaneGap;
  setMinimumHeight(std::max(80, height + 24));
  showAll();
}

void CallTimeline::showAll() {
  // From the first call to the last (the program's start-up before its first call is left out).
  m_from = std::max(0.0, m_begin);
  m_to = std::max(m_end, m_from + 1000);
  update();
}

double CallTimeline::timeAt(double x) const {
  const double w = std::max(1, width() - kLabelWidth - kRightMargin);
  return m_from + (x - kLabelWidth) / w * (m_to - m_from);
}

double CallTimeline::xAt(double t) const {
  const double w = std::max(1, width() - kLabelWidth - kRightMargin);
  return kLabelWidth + (t - m_from) / (m_to - m_from) * w;
}

int CallTimeline::laneTop(std::size_t lane) const {
  int top = 20;
  for (std::size_t i = 0; i < lane; ++i) top += m_lanes[i].depth * kRowHeight + kLaneGap;
  return top;
}

void CallTimeline::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!m_recording || m_lanes.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No calls were recorded."));
    return;
  }
  // Time axis: the window's start and end.
  p.setPen(palette().text().color());
  p.drawText(QRect(kLabelWidth, 2, width() - kLabelWidth - 4, 16), Qt::AlignLeft,
             QStringLiteral("%1 ms").arg(m_from * 1e-6, 0, 'f', 3));
  p.drawText(QRect(kLabelWidth, 2, width() - kLabelWidth - 4, 16), Qt::AlignRight,
             QStringLiteral("%1 ms").arg(m_to * 1e-6, 0, 'f', 3));
  const double start_ns = static_cast<double>(m_recording->start_ns);
  for (std::size_t l = 0; l < m_lanes.size(); ++l) {
    const Lane& lane = m_lanes[l];
    const int top = laneTop(l);
    p.setPen(palette().text().color());
    p.drawText(QRect(2, top, kLabelWidth - 6, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
               tr("pid %1 · tid %2").arg(lane.pid).arg(lane.tid));
    for (std::size_t d = 0; d < lane.levels.size(); ++d) {
      const auto& level = lane.levels[d];
      const int y = top + static_cast<int>(d) * kRowHeight;
      // The first call that can be visible: calls are sorted by start and rarely overlap.
      auto it = std::lower_bound(level.begin(), level.end(), m_from, [&](const record::CallRecord* c, double t) {
        return static_cast<double>(c->start_ns + c->duration_ns) - start_ns < t;
      });
      double last_x = -1;
      for (; it != level.end(); ++it) {
        const auto* c = *it;
        const double t0 = static_cast<double>(c->start_ns) - start_ns;
        if (t0 > m_to) break;
        const double x0 = std::max<double>(kLabelWidth, xAt(t0));
        const double x1 = std::min<double>(width() - kRightMargin + 1, xAt(t0 + static_cast<double>(c->duration_ns)));
        if (x1 - x0 < 1 && static_cast<int>(x0) == static_cast<int>(last_x)) continue;  // one pixel holds many
        last_x = x0;
        const QRectF box(x0, y + 1, std::max(1.0, x1 - x0), kRowHeight - 2);
        const bool unfinished = isUnfinished(c);
        p.fillRect(box, unfinished ? QColor(0xc6, 0x28, 0x28) : colour_of(*c));
        if (unfinished) p.fillRect(box, QBrush(QColor(255, 255, 255, 110), Qt::BDiagPattern));
        if (box.width() > 40) {
          p.setPen(Qt::black);
          const QString name = QString::fromStdString(record::routine_name(c->routine, c->precision));
          p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                     unfinished ? tr("%1 (never returned)").arg(name) : name);
        }
      }
    }
  }
}

bool CallTimeline::isUnfinished(const record::CallRecord* c) const {
  // std::less: a total order even for pointers into other arrays.
  const std::less<const record::CallRecord*> before;
  return !m_unfinished.empty() && !before(c, m_unfinished.data()) &&
         before(c, m_unfinished.data() + m_unfinished.size());
}

const record::CallRecord* CallTimeline::callAt(QPoint pos) const {
  if (!m_recording || pos.x() < kLabelWidth) return nullptr;
  const double t = timeAt(pos.x()) + static_cast<double>(m_recording->start_ns);
  const double slack = (m_to - m_from) / std::max(1, width() - kLabelWidth - kRightMargin) * 2;  // two pixels
  for (std::size_t l = 0; l < m_lanes.size(); ++l) {
    const int top = laneTop(l);
    const int d = (pos.y() - top) / kRowHeight;
    if (pos.y() < top || d >= static_cast<int>(m_lanes[l].levels.size())) continue;
    for (const auto* c : m_lanes[l].levels[static_cast<std::size_t>(d)]) {
      const double s = static_cast<double>(c->start_ns);
      if (s - slack <= t && t <= s + static_cast<double>(c->duration_ns) + slack) return c;
    }
  }
  return nullptr;
}

bool CallTimeline::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    if (const auto* c = callAt(help->pos())) {
      QString text =
          tr("call %1: %2").arg(c->id).arg(QString::fromStdString(record::routine_name(c->routine, c->precision)));
      const QString sizes = CallsModel::sizesText(*c);
      if (!sizes.isEmpty()) text += QStringLiteral(", ") + sizes;
      text += isUnfinished(c) ? tr("\nnever returned: still running %1 s after it started, when the program ended")
                                    .arg(static_cast<double>(c->duration_ns) * 1e-9, 0, 'f', 3)
                              : tr("\n%1 µs").arg(static_cast<double>(c->duration_ns) * 1e-3, 0, 'f', 1);
      if (c->flags & record::kHasInfo) text += tr(", INFO %1").arg(c->info);
      if (record::has_xerbla(*c)) text += tr(", xerbla parameter %1").arg(c->xerbla_parameter);
      QToolTip::showText(help->globalPos(), text, this);
    } else {
      QToolTip::showText(help->globalPos(), toolTip(), this);
    }
    return true;
  }
  return QWidget::event(event);
}

void CallTimeline::wheelEvent(QWheelEvent* event) {
  const double pivot = timeAt(event->position().x());
  const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
  const double span = std::clamp((m_to - m_from) * factor, 1000.0, m_end * 1.5);
  const double share = (pivot - m_from) / (m_to - m_from);
  m_from = pivot - share * span;
  m_to = m_from + span;
  update();
}

void CallTimeline::mousePressEvent(QMouseEvent* event) {
  m_dragX = static_cast<int>(event->position().x());
  m_dragFrom = m_from;
  m_dragTo = m_to;
  if (const auto* c = callAt(event->position().toPoint())) emit callClicked(c->id);
}

void CallTimeline::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton) || m_dragX < 0) return;
  const double per_pixel = (m_dragTo - m_dragFrom) / std::max(1, width() - kLabelWidth - kRightMargin);
  const double shift = (m_dragX - event->position().x()) * per_pixel;
  m_from = m_dragFrom + shift;
  m_to = m_dragTo + shift;
  update();
}

void CallTimeline::mouseDoubleClickEvent(QMouseEvent*) {
  showAll();
}

}  // namespace blasscope::ui
