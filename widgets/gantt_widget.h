#pragma once
// The console's timeline: one row per node that runs jobs, each running job a bar from its start
// to its expected end (start + estimated runtime; open-ended bars, without an estimate, fade out
// to the right). JobInfo does not carry the work a preempted job kept, so a resumed job's bar
// uses its full estimate from its last start.
//
// The snapshot's reservations are drawn on the node rows as hatched windows: the last backfill
// plan's hold for each blocked job (where and when it is expected to start, labelled with the
// job) and the operator's maintenance and team windows (labelled with their name). A pending job
// with an ETA but no reservation in the snapshot (a tesserad from before reservations were sent)
// is drawn as a hatched "planned start" bar in a lane per team below the nodes, since then only
// its time is known. Time runs left to right in engine time with a "now" line; hover shows a
// job's or reservation's details and a click on a bar emits jobSelected() (for a backfill
// reservation: its blocked job).
#include <QRectF>
#include <QWidget>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
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
    JobId job = kNoJob;  // kNoJob: an operator's reservation
    int row = 0;
    QRectF rect;             // widget coordinates
    bool planned = false;    // a pending job's planned start (hatched)
    bool openEnded = false;  // no runtime estimate: fades out
    int reservation = -1;    // index into the snapshot's reservations (-1: a job's bar)
  };
  [[nodiscard]] const std::vector<Bar>& bars() const { return bars_; }
  // The row labels top to bottom: node names, then "planned: TEAM" lanes.
  [[nodiscard]] QStringList rowLabels() const;
  [[nodiscard]] std::optional<JobId> jobAt(QPointF pos) const;
  [[nodiscard]] QString toolTipAt(QPointF pos) const;
  [[nodiscard]] double xOf(Seconds t) const;
  // The hatching of a reservation's window (its team's color; grey for maintenance).
  [[nodiscard]] static QColor reservationColor(const ReservationView& r);

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
    size_t job = 0;  // index into jobs_ (unused for a reservation)
    Seconds start = 0;
    std::optional<Seconds> end;
    bool planned = false;
    int lane = 0;          // sub-lane within the row, so overlapping bars stay apart
    int reservation = -1;  // index into snapshot_.reservations
  };
  struct Row {
    QString label;
    bool planned = false;
    int lanes = 1;
    std::vector<Item> items;
  };

  using NodeKey = std::pair<size_t, std::string>;  // snapshot order, name
  void buildRows();
  void addReservations(std::map<NodeKey, std::vector<Item>>& nodes,
                       const std::function<NodeKey(const std::string&)>& nodeRank) const;
  void layoutBars();
  [[nodiscard]] double rowTop(size_t row) const;
  [[nodiscard]] double rowHeight(const Row& r) const;
  [[nodiscard]] const JobInfo* jobOf(const Bar& b) const;
  [[nodiscard]] const JobInfo* jobById(JobId id) const;
  [[nodiscard]] QString jobToolTip(const Bar& b) const;
  [[nodiscard]] QString reservationToolTip(const Bar& b) const;
  void paintAxis(QPainter& p) const;
  void paintRows(QPainter& p) const;
  void paintBar(QPainter& p, const Bar& b) const;
  void paintReservation(QPainter& p, const Bar& b) const;
  void paintLabel(QPainter& p, const Bar& b, const QString& text, const QColor& color) const;

  ClusterSnapshot snapshot_;
  std::vector<JobInfo> jobs_;
  std::vector<Row> rows_;
  std::vector<Bar> bars_;
  Seconds before_ = 2 * 3600;
  Seconds after_ = 12 * 3600;
};

}  // namespace tessera::widgets
