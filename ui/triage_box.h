#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;
class QUrl;

namespace blasscope::ui {

// "Paste an error": a traceback or log goes in, the diagnoses it shows come out, most likely
// first (title, matched line, the values read from it, cause and fix on hover), each with a
// link that runs the scenario reproducing it. Ctrl+Return or the button runs it.
class TriageBox : public QWidget {
  Q_OBJECT

 public:
  explicit TriageBox(QWidget* parent = nullptr);
  QPlainTextEdit* input() const { return m_input; }
  QPushButton* findButton() const { return m_find; }
  QTextBrowser* results() const { return m_results; }
  QLabel* summary() const { return m_summary; }
  // The diagnosis ids and scenarios (one each, "" where none) of the matches shown.
  const QStringList& matchIds() const { return m_ids; }
  const QStringList& matchScenarios() const { return m_scenarios; }
  // The link a match's "run the scenario" anchor carries ("scenario:nan-svd").
  static QUrl scenarioLink(const QString& id);

 public slots:
  void findCause();

 signals:
  void scenarioRequested(const QString& id);

 private:
  void openLink(const QUrl& url);

  QPlainTextEdit* m_input;
  QPushButton* m_find;
  QLabel* m_summary;
  QTextBrowser* m_results;
  QStringList m_ids;
  QStringList m_scenarios;
};

}  // namespace blasscope::ui
