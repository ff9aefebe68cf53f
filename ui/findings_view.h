#pragma once

#include <QSplitter>

#include "analysis/finding.h"

class QTextBrowser;
class QTreeWidget;

namespace blasscope::ui {

// Lists findings (severity, id, tensor, evidence) and load errors; the selected finding's
// whole text shows beside the list, so long evidence is never cut off.
class FindingsView : public QSplitter {
  Q_OBJECT

 public:
  explicit FindingsView(QWidget* parent = nullptr);

  void showFindings(const std::vector<core::Finding>& findings);
  void showError(const QString& message);
  void showMessage(const QString& message);
  void clear();
  QTreeWidget* list() const { return m_list; }

 private:
  void showDetails();

  QTreeWidget* m_list;
  QTextBrowser* m_details;
};

}  // namespace blasscope::ui
