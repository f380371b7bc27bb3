// The timeline's reservations: a backfill plan's window is painted hatched on its node's row
// (and nowhere else), labelled and explained with its blocked job, and a click on it selects
// that job; the job is not drawn again in a team's "planned" lane. An operator's window is on
// its node's row too, open-ended when it has no end, and selects nothing.
#include <QSignalSpy>
#include <QtTest>

#include "gantt_widget.h"

using namespace tessera;
using tessera::widgets::GanttWidget;

Q_DECLARE_METATYPE(tessera::JobId)

namespace {

constexpr Seconds kNow = 36000;

ClusterSnapshot nodes(std::initializer_list<const char*> names) {
  ClusterSnapshot s;
  s.now = kNow;
  for (const char* name : names) {
    NodeView n;
    n.name = name;
    s.nodes.push_back(n);
  }
  return s;
}

JobInfo job(JobId id, const char* name, const char* team, JobState state) {
  JobInfo j;
  j.row.job.id = id;
  j.row.job.name = name;
  j.row.job.team = team;
  j.row.job.estimatedRuntime = 3600;
  j.row.state = state;
  return j;
}

// Job 1 runs on n1 for the next hour; job 7 is blocked and holds GPUs 0 and 1 of n2 from then.
std::vector<JobInfo> jobs() {
  JobInfo running = job(1, "warmup", "alpha", JobState::Running);
  running.row.startTime = kNow - 1800;
  running.placement.push_back({"n1", {0}, -1});
  JobInfo blocked = job(7, "train-big", "beta", JobState::Pending);
  blocked.eta = kNow + 3600;
  return {running, blocked};
}

ReservationView backfill() {
  ReservationView r;
  r.id = "bf-7";
  r.kind = "backfill";
  r.job = 7;
  r.team = "beta";
  r.start = kNow + 3600;
  r.end = kNow + 7200;
  r.nodes = {{"n2", {0, 1}}};
  return r;
}

const GanttWidget::Bar* reservationBar(const GanttWidget& g, int index) {
  for (const auto& b : g.bars())
    if (b.reservation == index) return &b;
  return nullptr;
}

// Pixels of `color` inside `r`.
int count(const QImage& img, const QRectF& r, QColor color) {
  int n = 0;
  const QRect px = r.toAlignedRect().intersected(img.rect());
  for (int y = px.top(); y <= px.bottom(); ++y)
    for (int x = px.left(); x <= px.right(); ++x)
      if ((img.pixel(x, y) & 0xffffff) == (color.rgb() & 0xffffff)) ++n;
  return n;
}

}  // namespace

class TstGantt : public QObject {
  Q_OBJECT

 private slots:
  void backfillReservationIsPaintedOnItsNode() {
    ClusterSnapshot s = nodes({"n1", "n2", "n3"});
    s.reservations = {backfill()};
    GanttWidget g;
    g.resize(900, 200);
    g.setData(s, jobs());
    // n3 holds nothing; job 7 is on n2's row, so it has no "planned" lane.
    QCOMPARE(g.rowLabels(), QStringList({"n1", "n2"}));
    const GanttWidget::Bar* bar = reservationBar(g, 0);
    QVERIFY(bar);
    QCOMPARE(bar->row, 1);
    QCOMPARE(bar->job, JobId{7});
    QVERIFY(!bar->planned && !bar->openEnded);
    QVERIFY(std::abs(bar->rect.left() - g.xOf(kNow + 3600)) < 1.5);
    QVERIFY(std::abs(bar->rect.right() - g.xOf(kNow + 7200)) < 1.5);

    g.show();
    QVERIFY(QTest::qWaitForWindowExposed(&g));
    const QImage img = g.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QColor hatch = GanttWidget::reservationColor(s.reservations[0]);
    QVERIFY(count(img, bar->rect, hatch) > 20);
    // The same hours on n1's row: nothing of it there.
    const QRectF onN1 = bar->rect.translated(0, -(bar->rect.top() - g.bars()[0].rect.top()));
    QCOMPARE(count(img, onN1, hatch), 0);

    const QString tip = g.toolTipAt(bar->rect.center());
    QVERIFY2(tip.contains("job 7 train-big"), qPrintable(tip));
    QVERIFY2(tip.contains("beta"), qPrintable(tip));
    QVERIFY2(tip.contains("GPUs 0, 1 on n2"), qPrintable(tip));

    QSignalSpy selected(&g, &GanttWidget::jobSelected);
    QTest::mouseClick(&g, Qt::LeftButton, {}, bar->rect.center().toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).value<JobId>(), JobId{7});
  }

  void operatorWindowIsOnItsNodeAndSelectsNothing() {
    ClusterSnapshot s = nodes({"n1", "n2", "n3"});
    ReservationView window;
    window.id = "fw-upgrade";
    window.kind = "maintenance";
    window.start = kNow - 600;
    window.nodes = {{"n3", {0, 1, 2, 3}}};  // no end: open-ended
    s.reservations = {window};
    GanttWidget g;
    g.resize(900, 200);
    g.setData(s, jobs());
    // Without a reservation for job 7 its ETA keeps the team lane.
    QCOMPARE(g.rowLabels(), QStringList({"n1", "n3", "planned: beta"}));
    const GanttWidget::Bar* bar = reservationBar(g, 0);
    QVERIFY(bar);
    QCOMPARE(bar->row, 1);
    QCOMPARE(bar->job, kNoJob);
    QVERIFY(bar->openEnded);
    const QString tip = g.toolTipAt(bar->rect.center());
    QVERIFY2(tip.contains("Maintenance reservation fw-upgrade"), qPrintable(tip));
    QVERIFY2(tip.contains("open-ended"), qPrintable(tip));
    QVERIFY(!g.jobAt(bar->rect.center()));

    g.show();
    QVERIFY(QTest::qWaitForWindowExposed(&g));
    const QImage img = g.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QVERIFY(count(img, bar->rect, GanttWidget::reservationColor(window)) > 20);
  }
};

QTEST_MAIN(TstGantt)
#include "tst_gantt.moc"
