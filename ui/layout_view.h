#pragma once

#include "document_view.h"

namespace blasscope::ui {

class LayoutDiagram;

// Per operand of the selected op: C/F order, shape, leading dimension and padding, address
// alignment, and the transposes BLAS uses, drawn so that "lda" can be seen.
class LayoutView : public DocumentView {
  Q_OBJECT

 public:
  explicit LayoutView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  void selectOp(std::size_t op) override;
  QWidget* exportWidget() override;
  std::size_t shownOp() const;
  int operandsDrawn() const;

 private:
  const RunDocument* m_doc = nullptr;
  LayoutDiagram* m_diagram;
};

}  // namespace blasscope::ui
