#include "dtype_flow_view.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainterPath>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace blasscope::ui {
namespace {

constexpr qreal kNodeWidth = 150, kNodeHeight = 44, kColumn = 230, kRow = 70;
constexpr int kOpRole = 0, kTensorRole = 1;

// Clicking an op node reports its index, a tensor node its name. The graph shrinks to fit a small window, down to a
// scale where its labels stay readable; past that it scrolls.
class ClickableView : public QGraphicsView {
 public:
  ClickableView(QGraphicsScene* scene, std::function<void(std::size_t)> op_clicked,
                std::function<void(const QString&)> tensor_clicked)
      : QGraphicsView(scene), m_clicked(std::move(op_clicked)), m_tensorClicked(std::move(tensor_clicked)) {}

  void fitScene() {
    const QRectF r = sceneRect();
    if (r.isEmpty()) return;
    const qreal fit = std::min(viewport()->width() / r.width(), viewport()->height() / r.height());
    const qreal scale = std::clamp(fit, 0.65, 1.0);
    setTransform(QTransform::fromScale(scale, scale));
  }

 protected:
  void resizeEvent(QResizeEvent* event) override {
    QGraphicsView::resizeEvent(event);
    fitScene();
  }

  void mousePressEvent(QMouseEvent* event) override {
    for (QGraphicsItem* item = itemAt(event->pos()); item; item = item->parentItem()) {
      if (item->data(kOpRole).isValid()) {
        m_clicked(item->data(kOpRole).toULongLong());
        break;
      }
      if (item->data(kTensorRole).isValid()) {
        m_tensorClicked(item->data(kTensorRole).toString());
        break;
      }
    }
    QGraphicsView::mousePressEvent(event);
  }

 private:
  std::function<void(std::size_t)> m_clicked;
  std::function<void(const QString&)> m_tensorClicked;
};

QGraphicsRectItem* node(QGraphicsScene* scene, QPointF at, const QString& title, const QString& subtitle,
                        const QColor& border, const QColor& fill, const QPalette& palette) {
  auto* rect = scene->addRect(0, 0, kNodeWidth, kNodeHeight, QPen(border, 2), QBrush(fill));
  rect->setPos(at);
  auto* text = new QGraphicsSimpleTextItem(title, rect);
  text->setBrush(palette.text());
  text->setPos(6, 4);
  auto* sub = new QGraphicsSimpleTextItem(subtitle, rect);
  sub->setBrush(palette.placeholderText());
  sub->setPos(6, 22);
  return rect;
}

// An op's output edge, straight down to the output node, labelled beside the line.
void outputEdge(QGraphicsScene* scene, QPointF from, QPointF to, const QString& label, const QColor& color) {
  scene->addLine(QLineF(from, to), QPen(color, 1.6))->setZValue(-2);
  auto* text = scene->addSimpleText(label);
  text->setZValue(1);
  text->setBrush(color);
  text->setPos((from + to) / 2 + QPointF(6, -text->boundingRect().height() / 2));
}

// An op's input edge, drawn in right angles so that it never crosses a node: the columns of
// nodes leave vertical gaps, and each edge takes its own lane (`lane_x`) in the gap beside its
// source. Its dtype label sits on an opaque patch, clear of the nodes.
void routedEdge(QGraphicsScene* scene, QPointF from, QPointF to, qreal lane_x, const QString& label,
                const QColor& color, const QColor& background) {
  QPainterPath path(from);
  const bool bent = std::abs(to.y() - from.y()) > 0.5;
  if (bent) {
    path.lineTo(lane_x, from.y());
    path.lineTo(lane_x, to.y());
  }
  path.lineTo(to);
  scene->addPath(path, QPen(color, 1.6))->setZValue(-2);
  auto* text = new QGraphicsSimpleTextItem(label);
  QFont font = text->font();
  font.setPointSizeF(font.pointSizeF() * 0.85);
  text->setFont(font);
  text->setBrush(color);
  const QRectF box = text->boundingRect();
  auto* patch = scene->addRect(box.adjusted(-1, 0, 1, 0), QPen(Qt::NoPen), QBrush(background));
  text->setParentItem(patch);
  patch->setZValue(1);
  // On the last stretch when it is long enough, else on the first, just right of the source.
  const bool on_last = bent && to.x() - lane_x >= box.width() + 8;
  patch->setPos(on_last ? QPointF(lane_x + 4, to.y() - box.height() - 1)
                        : QPointF(from.x() + 3, from.y() - box.height() - 1));
}

}  // namespace

DtypeFlowView::DtypeFlowView(QWidget* parent) : DocumentView(parent), m_scene(new QGraphicsScene(this)) {
  m_view = new ClickableView(
      m_scene,
      [this](std::size_t op) {
        selectOp(op);
        emit opSelected(op);
      },
      [this](const QString& name) {
        selectTensorNamed(name);
        emit tensorSelected(name);
      });
  m_view->setRenderHint(QPainter::Antialiasing);
  m_view->setDragMode(QGraphicsView::ScrollHandDrag);
  setContent(m_view);
  showEmpty(tr("Open a workload or a scenario to see how dtypes flow through its ops."));
}

QWidget* DtypeFlowView::exportWidget() {
  return m_view;
}

void DtypeFlowView::setDocument(const RunDocument* doc) {
  m_scene->clear();
  m_opNodes.clear();
  m_tensorNodeItems.clear();
  m_tensorNodes = m_edges = 0;
  if (!doc || !doc->workload || !doc->plan) {
    showEmpty(doc && doc->kind == RunDocument::Kind::TensorFile
                  ? tr("A tensor file has no ops: the dtype flow needs a workload.")
                  : tr("Open a workload or a scenario to see how dtypes flow through its ops."));
    return;
  }
  const QPalette pal = palette();
  const bool dark = pal.window().color().lightness() < 128;
  const QColor tensorFill = dark ? QColor(0x2b, 0x3a, 0x4a) : QColor(0xe8, 0xf0, 0xfe);
  const QColor opFill = dark ? QColor(0x33, 0x33, 0x33) : QColor(0xfa, 0xfa, 0xfa);
  const QColor ok(0x2e, 0x7d, 0x32), bad(0xc6, 0x28, 0x28), warn(0xef, 0x6c, 0x00), neutral = pal.text().color();
  auto dtypeOf = [&](const std::string& name) {
    const auto it = doc->plan->tensors.find(name);
    return it != doc->plan->tensors.end() && it->second.known
               ? QString::fromStdString(std::string(core::name(it->second.dtype)))
               : QStringLiteral("?");
  };
  std::map<std::string, QPointF> outlet;  // where each tensor's edges start
  std::map<int, int> lanes;               // lanes taken in the gap right of each outlet column
  qreal y = 0;
  for (const auto& spec : doc->workload->tensors) {
    auto* n = node(m_scene, {0, y}, QString::fromStdString(spec.name), dtypeOf(spec.name), neutral, tensorFill, pal);
    n->setData(kTensorRole, QString::fromStdString(spec.name));
    m_tensorNodeItems[QString::fromStdString(spec.name)] = n;
    outlet[spec.name] = n->pos() + QPointF(kNodeWidth, kNodeHeight / 2);
    ++m_tensorNodes;
    y += kRow;
  }
  for (const auto& op : doc->workload->ops) {
    const core::KernelRecord* record = nullptr;
    if (doc->run) {
      for (const auto& r : doc->run->ops) {
        if (r.op == op.index && (!record || r.device == core::Device::Cpu)) record = &r;
      }
    }
    QColor border = neutral;
    QString status = tr("not run");
    if (record) {
      status = QString::fromStdString(core::text(record->status));
      border = record->status == core::OpStatus::Ok ? ok : record->status == core::OpStatus::Skipped ? warn : bad;
      if (record->cast_overflow > 0 || record->cast_inexact > 0) border = warn;
    }
    const qreal column = kColumn * static_cast<qreal>(op.index + 1);
    const qreal rowY = 2 * kRow * static_cast<qreal>(op.index);  // room for the output below
    auto* opNode =
        node(m_scene, {column, rowY},
             QStringLiteral("%1 %2").arg(op.index).arg(QString::fromStdString(std::string(core::name(op.kind)))),
             status, border, opFill, pal);
    opNode->setData(kOpRole, static_cast<qulonglong>(op.index));
    m_opNodes[op.index] = opNode;
    const bool mismatch = record && record->error_kind == core::ErrorKind::DtypeMismatch;
    std::vector<QPointF> sources;
    std::vector<QString> labels;
    for (const std::string* input : {&op.a, &op.b, &op.c, &op.pivots}) {
      if (input->empty() || !outlet.count(*input)) continue;
      sources.push_back(outlet[*input]);
      labels.push_back(dtypeOf(*input));
    }
    for (std::size_t i = 0; i < sources.size(); ++i) {
      // Inputs enter at their own heights, so their last stretches stay apart.
      const qreal slot = sources.size() == 1 ? kNodeHeight / 2
                                             : 7 + 30 * static_cast<qreal>(i) / static_cast<qreal>(sources.size() - 1);
      const QPointF inlet = opNode->pos() + QPointF(0, slot);
      const qreal gap = sources[i].x() < kNodeWidth + 1 ? kColumn - kNodeWidth : kColumn - kNodeWidth * 1.35;
      const int lane = lanes[static_cast<int>(sources[i].x())]++;
      const qreal lane_x = sources[i].x() + std::fmod(10 + 7 * static_cast<qreal>(lane), gap - 6);
      routedEdge(m_scene, sources[i], inlet, lane_x, labels[i], mismatch ? bad : neutral, pal.base().color());
      ++m_edges;
    }
    if (record && !record->casts.empty()) {
      QStringList casts;
      for (const auto& c : record->casts) casts << QString::fromStdString(c);
      auto* note = m_scene->addSimpleText(tr("promoted: %1").arg(casts.join(QStringLiteral("; "))));
      note->setBrush(warn);
      // Right of the op, where the graph leaves room: below it are the output edge and its label.
      note->setPos(opNode->pos() + QPointF(kNodeWidth + 8, (kNodeHeight - note->boundingRect().height()) / 2));
    }
    // The output sits below its op and feeds later ops.
    const bool in_place = op.out == op.a || op.out == op.c;
    if (!in_place || !outlet.count(op.out)) {
      auto* out = node(m_scene, opNode->pos() + QPointF(kNodeWidth * 0.35, kRow * 1.05), QString::fromStdString(op.out),
                       dtypeOf(op.out), neutral, tensorFill, pal);
      out->setZValue(-1);
      out->setData(kTensorRole, QString::fromStdString(op.out));
      m_tensorNodeItems[QString::fromStdString(op.out)] = out;
      ++m_tensorNodes;
      const bool lossy = record && (record->cast_overflow > 0 || record->cast_inexact > 0);
      outputEdge(m_scene, opNode->pos() + QPointF(kNodeWidth / 2, kNodeHeight),
                 out->pos() + QPointF(kNodeWidth * 0.15, 0), dtypeOf(op.out) + (lossy ? tr(" (lossy)") : QString()),
                 lossy ? warn : neutral);
      ++m_edges;
      outlet[op.out] = out->pos() + QPointF(kNodeWidth, kNodeHeight / 2);
    }
  }
  m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-20, -20, 20, 20));
  showContent();
  static_cast<ClickableView*>(m_view)->fitScene();
}

namespace {

// One node drawn thick (the selection), every other at the normal width.
template <typename Key>
void emphasise(const std::map<Key, QGraphicsRectItem*>& nodes, const Key* selected) {
  for (const auto& [key, node] : nodes) {
    QPen pen = node->pen();
    pen.setWidthF(selected && key == *selected ? 4.5 : 2);
    node->setPen(pen);
  }
}

}  // namespace

void DtypeFlowView::selectOp(std::size_t op) {
  emphasise(m_opNodes, &op);
  emphasise<QString>(m_tensorNodeItems, nullptr);
  if (const auto it = m_opNodes.find(op); it != m_opNodes.end()) m_view->ensureVisible(it->second);
}

void DtypeFlowView::selectTensorNamed(const QString& name) {
  emphasise<std::size_t>(m_opNodes, nullptr);
  emphasise(m_tensorNodeItems, &name);
  if (const auto it = m_tensorNodeItems.find(name); it != m_tensorNodeItems.end()) m_view->ensureVisible(it->second);
}

}  // namespace blasscope::ui
