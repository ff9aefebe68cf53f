#pragma once

#include <QLabel>
#include <QStackedLayout>
#include <QWidget>

#include "run_document.h"

namespace blasscope::ui {

// A view of the current document. When it has nothing to show it says why, in place of
// its content; selecting an op or a tensor anywhere selects it here.
class DocumentView : public QWidget {
  Q_OBJECT

 public:
  explicit DocumentView(QWidget* parent = nullptr) : QWidget(parent), m_stack(new QStackedLayout(this)) {
    m_empty = new QLabel;
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setMargin(24);
    m_stack->addWidget(m_empty);
  }

  virtual void setDocument(const RunDocument* doc) = 0;
  virtual void selectOp(std::size_t) {}
  virtual void selectTensorNamed(const QString&) {}
  virtual void selectCall(quint64) {}  // a recorded call, by id
  // The widget to export as PNG/SVG (a chart or a drawing), or the whole view.
  virtual QWidget* exportWidget() { return this; }
  bool isShowingContent() const { return m_stack->currentIndex() == 1; }
  QString emptyText() const { return m_empty->text(); }

 signals:
  void opSelected(std::size_t op);
  void tensorSelected(const QString& name);

 protected:
  void setContent(QWidget* content) { m_stack->addWidget(content); }
  void showEmpty(const QString& why) {
    m_empty->setText(why);
    m_stack->setCurrentIndex(0);
  }
  void showContent() { m_stack->setCurrentIndex(1); }

 private:
  QStackedLayout* m_stack;
  QLabel* m_empty;
};

}  // namespace blasscope::ui
