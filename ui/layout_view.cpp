#include "layout_view.h"

#include <QPainter>
#include <QScrollArea>

#include "operand_as_passed.h"
#include "report/inspect_text.h"

namespace blasscope::ui {

// Paints one record's operands as grids of cells: the storage order as an arrow, the leading
// dimension as the stride between rows (C) or columns (F), padding shaded.
class LayoutDiagram : public QWidget {
 public:
  void setRecord(const core::KernelRecord* record) {
    m_record = record;
    // Operands side by side, each as wide as its explanation.
    const int operands = record ? static_cast<int>(record->operands.size()) : 0;
    setMinimumSize(std::max(760, 20 + 280 * operands), record ? 330 : 200);
    update();
  }
  const core::KernelRecord* record() const { return m_record; }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (!m_record) return;
    const QColor text = palette().text().color();
    p.setPen(text);
    QString call = tr("op %1: %2").arg(m_record->op).arg(QString::fromStdString(m_record->kernel));
    if (m_record->call) {
      const auto& c = *m_record->call;
      call += tr(" · passed as %1, TransA=%2, TransB=%3, m=%4, n=%5, k=%6, lda=%7, ldb=%8, ldc=%9")
                  .arg(c.row_major ? QStringLiteral("CblasRowMajor") : QStringLiteral("CblasColMajor"),
                       c.trans_a ? QStringLiteral("Trans") : QStringLiteral("NoTrans"),
                       c.trans_b ? QStringLiteral("Trans") : QStringLiteral("NoTrans"))
                  .arg(c.m)
                  .arg(c.n)
                  .arg(c.k)
                  .arg(c.lda)
                  .arg(c.ldb)
                  .arg(c.ldc);
    }
    p.drawText(QRectF(10, 6, width() - 20, 40), Qt::AlignLeft | Qt::TextWordWrap, call);
    qreal x = 10;
    for (const auto& o : m_record->operands) {
      x = drawOperand(p, o, x, 50) + 30;
    }
  }

 private:
  // Draws the memory the library read (a working copy where one was made), not always the
  // workload tensor's own: see OperandAsPassed.
  qreal drawOperand(QPainter& p, const core::OperandRecord& o, qreal x0, qreal y0) {
    constexpr int kMaxCells = 6;
    constexpr qreal kCell = 18;
    constexpr qreal kTextWidth = 250;
    const OperandAsPassed passed = operand_as_passed(*m_record, o);
    const int rows = static_cast<int>(std::min<std::uint64_t>(passed.rows, kMaxCells));
    const int cols = static_cast<int>(std::min<std::uint64_t>(passed.cols, kMaxCells));
    const bool c_order = passed.order == core::MemoryOrder::C;
    const int padding = static_cast<int>(std::min<std::int64_t>(passed.padding, 2));
    const int shownRows = rows + (c_order ? 0 : padding);
    const int shownCols = cols + (c_order ? padding : 0);
    const QColor text = palette().text().color();
    const QColor cell = palette().alternateBase().color();
    const QColor pad(0xef, 0x6c, 0x00, 90);
    const qreal gridTop = y0 + 40;
    for (int r = 0; r < shownRows; ++r) {
      for (int c = 0; c < shownCols; ++c) {
        const bool isPad = c_order ? c >= cols : r >= rows;
        const QRectF box(x0 + c * kCell, gridTop + r * kCell, kCell - 2, kCell - 2);
        p.fillRect(box, isPad ? pad : cell);
        p.setPen(QPen(text, 0.5));
        p.drawRect(box);
      }
    }
    if (passed.copied) {  // a dashed frame: this memory is a copy, not the tensor itself
      p.setPen(QPen(QColor(0x6a, 0x1b, 0x9a), 1.5, Qt::DashLine));
      p.drawRect(QRectF(x0 - 4, gridTop - 4, shownCols * kCell + 6, shownRows * kCell + 6));
    }
    // The storage order: along rows for C, down columns for F.
    p.setPen(QPen(QColor(0x15, 0x65, 0xc0), 2));
    const QPointF start(x0 + kCell / 2, gridTop + kCell / 2);
    const QPointF end =
        c_order ? start + QPointF((shownCols - 1) * kCell, 0) : start + QPointF(0, (shownRows - 1) * kCell);
    p.drawLine(start, end);
    p.drawEllipse(end, 3, 3);
    p.setPen(text);
    const qreal width = std::max<qreal>(shownCols * kCell, kTextWidth);
    QString header = QStringLiteral("%1 '%2'").arg(QString::fromStdString(o.role), QString::fromStdString(o.tensor));
    p.drawText(QRectF(x0, y0, width, 18), Qt::AlignLeft, header);
    p.drawText(
        QRectF(x0, y0 + 18, width, 18), Qt::AlignLeft,
        tr("%1 %2, %3 order")
            .arg(QString::fromStdString(core::text(o.dtype)), QString::fromStdString(core::format_shape(o.shape)),
                 QString::fromStdString(core::text(o.order))));
    const qreal below = gridTop + 6 + shownRows * kCell + (passed.copied ? 4 : 0);
    const QRectF how(x0, below, width, 5 * 18);
    QRectF used;
    p.drawText(how, Qt::AlignLeft | Qt::TextWordWrap, QString::fromStdString(passed.how), &used);
    p.drawText(QRectF(x0, used.bottom() + 2, width, 2 * 18), Qt::AlignLeft | Qt::TextWordWrap,
               QString::fromStdString(passed.alignment));
    return x0 + width;
  }

  const core::KernelRecord* m_record = nullptr;
};

LayoutView::LayoutView(QWidget* parent) : DocumentView(parent), m_diagram(new LayoutDiagram) {
  auto* scroll = new QScrollArea;
  scroll->setWidget(m_diagram);
  scroll->setWidgetResizable(true);
  setContent(scroll);
  showEmpty(tr("Run a workload, then select an op: its operands' layout is drawn here."));
}

QWidget* LayoutView::exportWidget() {
  return m_diagram;
}

void LayoutView::setDocument(const RunDocument* doc) {
  m_doc = doc;
  m_diagram->setRecord(nullptr);
  if (!doc || !doc->run || doc->run->ops.empty()) {
    showEmpty(doc && doc->kind == RunDocument::Kind::Workload
                  ? tr("Not run yet: the layout shows the operands exactly as they were passed to BLAS.")
                  : tr("Run a workload, then select an op: its operands' layout is drawn here."));
    return;
  }
  // Start on the first op that has operands to draw.
  for (const auto& r : doc->run->ops) {
    if (!r.operands.empty()) {
      selectOp(r.op);
      break;
    }
  }
  showContent();
}

void LayoutView::selectOp(std::size_t op) {
  if (!m_doc || !m_doc->run) return;
  for (const auto& r : m_doc->run->ops) {
    if (r.op == op && !r.operands.empty()) {
      m_diagram->setRecord(&r);
      return;
    }
  }
}

std::size_t LayoutView::shownOp() const {
  return m_diagram->record() ? m_diagram->record()->op : 0;
}

int LayoutView::operandsDrawn() const {
  return m_diagram->record() ? static_cast<int>(m_diagram->record()->operands.size()) : 0;
}

}  // namespace blasscope::ui
