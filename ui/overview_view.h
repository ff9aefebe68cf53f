#pragma once

#include "document_view.h"

class QTableView;

namespace blasscope::ui {

class OpsModel;

// The workload as a list of ops: status, kernel, shape, time and the top diagnosis.
class OverviewView : public DocumentView {
  Q_OBJECT

 public:
  explicit OverviewView(QWidget* parent = nullptr);
  void setDocument(const RunDocument* doc) override;
  void selectOp(std::size_t op) override;
  OpsModel* model() const { return m_model; }

 private:
  OpsModel* m_model;
  QTableView* m_table;
  QLabel* m_header;
};

}  // namespace blasscope::ui
