#pragma once

#include <QWidget>
#include <map>
#include <vector>

#include "record/recording.h"

namespace blasscope::ui {

// The recorded calls on a time axis: one lane per thread (named by process and thread), calls
// made inside another call drawn below it. The wheel zooms around the pointer, dragging pans,
// a double-click shows everything again; hovering a call tells what it was.
class CallTimeline : public QWidget {
  Q_OBJECT

 public:
  explicit CallTimeline(QWidget* parent = nullptr);
  void setRecording(const record::Recording* recording);
  // The visible time window, in nanoseconds since the recording started.
  std::pair<double, double> window() const { return {m_from, m_to}; }
  int laneCount() const { return static_cast<int>(m_lanes.size()); }
  QSize sizeHint() const override { return {600, 160}; }

 signals:
  void callClicked(std::uint64_t id);

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;
  bool event(QEvent* event) override;

 private:
  struct Lane {
    std::uint32_t pid = 0, tid = 0;
    int depth = 1;
    std::vector<std::vector<const record::CallRecord*>> levels;  // by nesting depth, sorted by start
  };
  const record::CallRecord* callAt(QPoint pos) const;
  double timeAt(double x) const;
  double xAt(double t) const;
  int laneTop(std::size_t lane) const;
  void showAll();

  // Whether `c` never returned (one of m_unfinished).
  bool isUnfinished(const record::CallRecord* c) const;

  const record::Recording* m_recording = nullptr;
  // The calls still running when the program ended, drawn up to its end.
  std::vector<record::CallRecord> m_unfinished;
  std::vector<Lane> m_lanes;
  double m_from = 0, m_to = 1, m_begin = 0, m_end = 1;  // ns since the recording started
  int m_dragX = -1;
  double m_dragFrom = 0, m_dragTo = 0;
};

}  // namespace blasscope::ui
