#pragma once
// The console's timeline: one row per node that runs jobs, each running job a bar from its start
// to its expected end (start + estimated runtime; open-ended bars, without an estimate, fade out
// to the right). JobInfo does not carry the work a preempted job kept, so a resumed job's bar
// uses its full estimate from its last start.
//
// Pending jobs with an ETA are drawn as hatched "planned start" bars. The snapshot does not say
// where a pending job will run, so they are not put on nodes: each team with planned starts gets
// its own lane below the nodes. Time runs left to right in engine time with a "now" line; hover
// shows a job's details and a click on a bar emits jobSelected().
#include <QRectF>
#include <QWidget>

#include <optional>
#include <vector>

#include "service/session.h"

class QPainter;

namespace tessera::widgets {

class GanttWidget : public QWidget {
  Q_OBJECT
 public:
  explicit GanttWidget(QWidget* parent = nullptr);
  ~GanttWidget() override;

  void setData(const ClusterSnapshot& snapshot, const std::vector<JobInfo>& jobs);
  // The visible time range around the snapshot's now; default 2 h back, 12 h ahead.
  void setTimeWindow(Seconds before, Seconds after);

  // A bar as laid out: for tests and for the console to scroll to a job.
  struct Bar {
    JobId job = kNoJob;
    int row = 0;
    QRectF rect;             // widget coordinates
    bool planned = false;    // a pending job's planned start (hatched)
    bool openEnded = false;  // no runtime estimate: fades out
  };
  [[nodiscard]] const std::vector<Bar>& bars() const { return bars_; }
  // The row labels top to bottom: node names, then "planned: TEAM" lanes.
  [[nodiscard]] QStringList rowLabels() const;
  [[nodiscard]] std::optional<JobId> jobAt(QPointF pos) const;
  [[nodiscard]] QString toolTipAt(QPointF pos) const;
  [[nodiscard]] double xOf(Seconds t) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {240, 80}; }

 signals:
  void jobSelected(tessera::JobId job);

 protected:
  bool event(QEvent* e) override;
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  // A bar before layout: its row and time span.
  struct Item {
    size_t job = 0;  // index into jobs_
    Seconds start = 0;
    std::optional<Seconds> end;
    bool planned = false;
    int lane = 0;  // sub-lane within the row, so overlapping bars stay apart
  };
  struct Row {
    QString label;
    bool planned = false;
    int lanes = 1;
    std::vector<Item> items;
  };

  void buildRows();
  void layoutBars();
  [[nodiscard]] double rowTop(size_t row) const;
  [[nodiscard]] double rowHeight(const Row& r) const;
  [[nodiscard]] const JobInfo* jobOf(const Bar& b) const;
  void paintAxis(QPainter& p) const;
  void paintRows(QPainter& p) const;
  void paintBar(QPainter& p, const Bar& b) const;

  ClusterSnapshot snapshot_;
  std::vector<JobInfo> jobs_;
  std::vector<Row> rows_;
  std::vector<Bar> bars_;
  Seconds before_ = 2 * 3600;
  Seconds after_ = 12 * 3600;
};

}  // namespace tessera::widgets
