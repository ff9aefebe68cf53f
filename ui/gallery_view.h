#pragma once

#include <QWidget>

class QLineEdit;
class QTreeWidget;

namespace blasscope::ui {

class TriageBox;

// The built-in scenarios, grouped (from the articles, real failures, performance) and
// searchable; double-click or Enter runs one. Below them, "Paste an error" finds the
// diagnoses a traceback shows and runs the scenario that reproduces one.
class GalleryView : public QWidget {
  Q_OBJECT

 public:
  explicit GalleryView(QWidget* parent = nullptr);
  QTreeWidget* tree() const { return m_tree; }
  TriageBox* triageBox() const { return m_triage; }
  static QString groupOf(const QString& id);

 signals:
  void scenarioActivated(const QString& id);

 private:
  void filter(const QString& text);

  QLineEdit* m_search;
  QTreeWidget* m_tree;
  TriageBox* m_triage;
};

}  // namespace blasscope::ui
