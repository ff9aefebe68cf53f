#pragma once

#include <QString>
#include <map>

#include "document_view.h"

class QGraphicsScene;
class QGraphicsView;
class QGraphicsRectItem;

namespace blasscope::ui {

// The workload as a graph, tensors -> ops -> outputs, with the dtype on every edge. Casts and
// promotions, mismatches and overflowing or lossy casts are highlighted; clicking an op or a
// tensor selects it everywhere.
class DtypeFlowView : public DocumentView {
  Q_OBJECT

 public:
  explicit DtypeFlowView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  void selectOp(std::size_t op) override;
  void selectTensorNamed(const QString& name) override;
  QWidget* exportWidget() override;
  int opNodes() const { return static_cast<int>(m_opNodes.size()); }
  int tensorNodes() const { return m_tensorNodes; }
  int edges() const { return m_edges; }

 private:
  QGraphicsScene* m_scene;
  QGraphicsView* m_view;
  std::map<std::size_t, QGraphicsRectItem*> m_opNodes;
  std::map<QString, QGraphicsRectItem*> m_tensorNodeItems;
  int m_tensorNodes = 0;
  int m_edges = 0;
};

}  // namespace blasscope::ui
