#pragma once

#include <QTreeWidget>

#include "analysis/finding.h"

namespace blasscope::ui {

// Lists findings (severity, id, tensor, message) and load errors, newest file first.
class FindingsView : public QTreeWidget {
  Q_OBJECT

 public:
  explicit FindingsView(QWidget* parent = nullptr);

  void showFindings(const std::vector<core::Finding>& findings);
  void showError(const QString& message);
  void showMessage(const QString& message);
};

}  // namespace blasscope::ui
