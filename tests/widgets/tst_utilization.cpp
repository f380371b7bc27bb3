// The utilization views: IdleGpuModel (idle-since tracking across snapshots, threshold, minimum
// duration, unknown telemetry never listed), UtilizationChart (point counts, telemetry lines
// hidden when absent, "no data" for a scope without series, the scope selector, pixels drawn),
// GanttWidget (bars painted, click selects the job; reservations: tst_gantt) and MetricFetcher
// (results on the GUI thread, the scope's series queried, errors, a real embedded Backend).
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtTest>

#include <QComboBox>
#include <QtCharts/QChart>

#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "gantt_widget.h"
#include "heatmap_widget.h"
#include "idle_gpu_model.h"
#include "service/backend.h"
#include "utilization_chart.h"
#include "workload/workload_spec.h"

using namespace tessera;
using tessera::widgets::GanttWidget;
using tessera::widgets::IdleGpuModel;
using tessera::widgets::MetricFetcher;
using tessera::widgets::MetricScope;
using tessera::widgets::UtilizationChart;

Q_DECLARE_METATYPE(tessera::JobId)

namespace {

GpuView gpu(int index, JobId job, const char* team, std::optional<double> util) {
  GpuView g;
  g.index = index;
  g.model = "H100";
  g.sharing = "exclusive";
  if (job != kNoJob) {
    g.occupants.push_back({job, 1000, "", team, -1});
    g.allocated = 1;
  }
  g.util = util;
  if (util) g.smActive = *util / 2;
  return g;
}

// n1: GPU 0 and 1 run jobs with telemetry, GPU 2 a job without telemetry, GPU 3 is free.
ClusterSnapshot snap(Seconds now, double util0, double util1, JobId job0 = 10) {
  ClusterSnapshot s;
  s.now = now;
  NodeView n;
  n.name = "n1";
  n.state = "up";
  n.gpus = {gpu(0, job0, "alpha", util0), gpu(1, 11, "beta", util1),
            gpu(2, 12, "beta", std::nullopt), gpu(3, kNoJob, "", 0.0)};
  s.nodes.push_back(n);
  return s;
}

MetricSeries series(const char* name, int points, double value, int64_t step = 60) {
  MetricSeries m;
  m.name = name;
  for (int i = 0; i < points; ++i) m.points.push_back({i * step + 3600, value + i % 3, 0, 0, 1});
  return m;
}

QImage grabOf(QWidget& w) {
  return w.grab().toImage().convertToFormat(QImage::Format_RGB32);
}

bool contains(const QImage& img, QRgb color) {
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if ((img.pixel(x, y) & 0xffffff) == (color & 0xffffff)) return true;
  return false;
}

int distinctColors(const QImage& img) {
  std::set<QRgb> colors;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) colors.insert(img.pixel(x, y));
  return static_cast<int>(colors.size());
}

JobInfo job(JobId id, const char* team, JobState state, Seconds start, std::optional<Seconds> est,
            std::vector<std::string> nodes) {
  JobInfo j;
  j.row.job.id = id;
  j.row.job.name = "job";
  j.row.job.team = team;
  j.row.job.estimatedRuntime = est;
  j.row.state = state;
  j.row.startTime = start;
  for (auto& n : nodes) j.placement.push_back({n, {0}, -1});
  return j;
}

std::shared_ptr<Backend> embedded(const QTemporaryDir& dir) {
  return test::openDemoBackend(dir.filePath("util.db"), 100);
}

}  // namespace

class TstUtilization : public QObject {
  Q_OBJECT

 private slots:
  void idleRunAnswersAnyThreshold() {
    widgets::IdleRun run;
    run.add(0, 0.9);
    run.add(60, 0.03);
    run.add(120, 0.01);
    QCOMPARE(run.idleSince(0.05), std::optional<Seconds>(60));
    QCOMPARE(run.idleSince(0.02), std::optional<Seconds>(120));
    QCOMPARE(run.idleSince(0.95), std::optional<Seconds>(0));
    QCOMPARE(run.idleSince(0.01), std::nullopt);
  }

  void idleModelTracksAcrossSnapshots() {
    IdleGpuModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setSnapshot(snap(100, 0.01, 0.9));
    // Only GPU 0: GPU 1 is busy, GPU 2 has no telemetry (unknown is not idle), GPU 3 is free.
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.gpuKey(0), QStringLiteral("n1/0"));
    QCOMPARE(m.idleSince(0), std::optional<Seconds>(100));
    QCOMPARE(m.index(0, IdleGpuModel::JobsColumn).data().toString(), QStringLiteral("10"));
    QCOMPARE(m.index(0, IdleGpuModel::TeamColumn).data().toString(), QStringLiteral("alpha"));
    QCOMPARE(m.index(0, 0).data(IdleGpuModel::JobIdRole).toULongLong(), 10ull);
    QCOMPARE(m.rowOf("n1/2"), -1);

    m.setSnapshot(snap(160, 0.02, 0.03));
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.idleSince(m.rowOf("n1/0")), std::optional<Seconds>(100));  // still idle
    QCOMPARE(m.idleSince(m.rowOf("n1/1")), std::optional<Seconds>(160));
    QCOMPARE(m.index(m.rowOf("n1/0"), IdleGpuModel::IdleForColumn).data().toString(),
             QStringLiteral("1m"));

    m.setSnapshot(snap(220, 0.04, 0.01));
    m.setThreshold(0.03);  // GPU 0 at 4% is no longer idle; GPU 1 was at 3% until 220
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.idleSince(m.rowOf("n1/1")), std::optional<Seconds>(220));
    m.setThreshold(0.05);  // the history is kept: back to the earlier starts
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.idleSince(m.rowOf("n1/0")), std::optional<Seconds>(100));
    QCOMPARE(m.idleSince(m.rowOf("n1/1")), std::optional<Seconds>(160));

    m.setMinimumIdle(100);  // at 220: GPU 0 idle 120 s, GPU 1 only 60 s
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.gpuKey(0), QStringLiteral("n1/0"));
    m.setMinimumIdle(0);

    // A new job on GPU 0 starts a new run; a busy sample ends GPU 1's.
    m.setSnapshot(snap(280, 0.0, 0.5, 13));
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.idleSince(0), std::optional<Seconds>(280));
    QCOMPARE(m.index(0, 0).data(IdleGpuModel::JobIdRole).toULongLong(), 13ull);

    // Telemetry gone: nothing is listed, rather than everything.
    ClusterSnapshot dark = snap(340, 0.0, 0.0, 13);
    for (auto& g : dark.nodes[0].gpus) g.util.reset();
    m.setSnapshot(dark);
    QCOMPARE(m.rowCount(), 0);
  }

  void chartShowsSeriesAndHidesMissingTelemetry() {
    UtilizationChart c;
    c.resize(700, 560);
    c.setSeries(series("gpus_allocated", 30, 300), series("gpus_busy", 30, 200),
                series("gpus_sm_active", 30, 120), series("gpus_tensor_active", 30, 60));
    using L = UtilizationChart::Line;
    QCOMPARE(c.line(L::Allocated)->count(), 30);
    QCOMPARE(c.line(L::Busy)->count(), 30);
    QCOMPARE(c.line(L::Effective)->count(), 30);
    QCOMPARE(c.line(L::Tensor)->count(), 30);
    QVERIFY(c.line(L::Busy)->isVisible());
    QVERIFY(c.line(L::Effective)->isVisible());
    QVERIFY(c.line(L::Tensor)->isVisible());
    QVERIFY(c.gapArea()->isVisible());
    QCOMPARE(c.gapArea()->upperSeries()->count(), 30);
    QVERIFY(c.telemetryNote().isEmpty());
    c.show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    const QImage img = grabOf(*c.utilizationView());
    QVERIFY(distinctColors(img) > 20);

    // No telemetry: lines hidden with a note, never drawn as zero.
    c.setSeries(series("gpus_allocated", 30, 300), MetricSeries{}, MetricSeries{}, MetricSeries{});
    QVERIFY(c.line(L::Allocated)->isVisible());
    QVERIFY(!c.line(L::Busy)->isVisible());
    QVERIFY(!c.line(L::Effective)->isVisible());
    QVERIFY(!c.line(L::Tensor)->isVisible());
    QVERIFY(!c.gapArea()->isVisible());
    QVERIFY(!c.telemetryNote().isEmpty());
    c.setSeries(series("gpus_allocated", 30, 300), series("gpus_busy", 30, 200), MetricSeries{},
                MetricSeries{});
    QVERIFY(c.line(L::Busy)->isVisible());
    QVERIFY(!c.line(L::Effective)->isVisible());
    QVERIFY(c.telemetryNote().contains("SM"));
    QVERIFY(c.telemetryNote().contains("tensor"));
    // A database from before tensor telemetry: only that line goes.
    c.setSeries(series("gpus_allocated", 30, 300), series("gpus_busy", 30, 200),
                series("gpus_sm_active", 30, 120), MetricSeries{});
    QVERIFY(c.line(L::Effective)->isVisible());
    QVERIFY(!c.line(L::Tensor)->isVisible());
    QVERIFY(c.telemetryNote().contains("tensor"));
    QVERIFY(!c.telemetryNote().contains("SM"));
  }

  void scopeWithoutSeriesSaysNoData() {
    UtilizationChart c;
    c.setScopes({}, {"llm"});
    c.setScope({MetricScope::Kind::Team, "llm"});
    // An older database has no per-team series: every line hidden, never a flat zero.
    c.setSeries(MetricSeries{}, MetricSeries{}, MetricSeries{}, MetricSeries{});
    using L = UtilizationChart::Line;
    for (L l : {L::Allocated, L::Busy, L::Effective, L::Tensor}) {
      QVERIFY(!c.line(l)->isVisible());
      QCOMPARE(c.line(l)->count(), 0);
    }
    QVERIFY(!c.gapArea()->isVisible());
    QVERIFY2(c.telemetryNote().contains("No data for Team: llm"), qPrintable(c.telemetryNote()));
  }

  void scopeSelectorOffersPoolsAndTeams() {
    UtilizationChart c;
    QCOMPARE(c.scopeBox()->count(), 1);
    QCOMPARE(c.scope(), MetricScope{});
    std::vector<MetricScope> changes;
    connect(&c, &UtilizationChart::scopeChanged, this,
            [&](const MetricScope& s) { changes.push_back(s); });
    c.setScopes({"dev", "training"}, {"llm", "research"});
    QCOMPARE(c.scopeBox()->count(), 5);
    QCOMPARE(c.scopeBox()->itemText(1), QStringLiteral("Pool: dev"));
    QCOMPARE(c.scopeBox()->itemText(3), QStringLiteral("Team: llm"));
    QVERIFY(changes.empty());  // still the cluster

    c.setSeries(series("gpus_allocated", 30, 300), series("gpus_busy", 30, 200),
                series("gpus_sm_active", 30, 120), series("gpus_tensor_active", 30, 60));
    c.scopeBox()->setCurrentIndex(3);  // as the user picks it
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(changes[0], (MetricScope{MetricScope::Kind::Team, "llm"}));
    QVERIFY(c.utilizationView()->chart()->title().startsWith("Team: llm"));
    // The cluster's lines are not shown under the team's title while its series load.
    QCOMPARE(c.line(UtilizationChart::Line::Allocated)->count(), 0);

    c.setScopes({"dev", "training"}, {"llm", "research"});  // the same answer: nothing changes
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(c.scope(), (MetricScope{MetricScope::Kind::Team, "llm"}));
    c.setScopes({"dev"}, {"ads", "llm"});  // another session: llm is still offered
    QCOMPARE(c.scope(), (MetricScope{MetricScope::Kind::Team, "llm"}));
    QCOMPARE(changes.size(), size_t{1});
    c.setScopes({"dev"}, {"ads"});  // gone: back to the cluster, announced
    QCOMPARE(c.scope(), MetricScope{});
    QCOMPARE(changes.size(), size_t{2});
    QCOMPARE(changes[1], MetricScope{});
  }

  // A low chart gives its titles' room to the plot and legend from the moment it is shown, also
  // when it was resized before (the console lays its docks out before showing the window): the
  // titles waited for the first data.
  void lowChartShowsNoTitleOnceShown() {
    UtilizationChart c;
    c.resize(900, 260);
    QVERIFY(!c.utilizationView()->chart()->title().isEmpty());  // hidden: titled
    c.show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    QCOMPARE(c.utilizationView()->chart()->title(), QString());
    QCOMPARE(c.teamView()->chart()->title(), QString());
    QVERIFY(!c.utilizationView()->toolTip().isEmpty());  // the title is in the tooltip
    c.hide();
    c.resize(900, 600);
    c.show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    QVERIFY(!c.utilizationView()->chart()->title().isEmpty());
  }

  void scopeSeriesNames() {
    QCOMPARE(MetricScope{}.series("gpus_busy"), std::string("gpus_busy"));
    QCOMPARE((MetricScope{MetricScope::Kind::Pool, "dev"}.series("gpus_busy")),
             std::string("gpus_busy{pool=\"dev\"}"));
    QCOMPARE((MetricScope{MetricScope::Kind::Team, "llm"}.series("gpus_tensor_active")),
             std::string("gpus_tensor_active{team=\"llm\"}"));
    QCOMPARE(MetricScope::ofAllocatedSeries("gpus_allocated{team=\"llm\"}"),
             std::optional(MetricScope{MetricScope::Kind::Team, "llm"}));
    QCOMPARE(MetricScope::ofAllocatedSeries("gpus_allocated{pool=\"dev\"}"),
             std::optional(MetricScope{MetricScope::Kind::Pool, "dev"}));
    QCOMPARE(MetricScope::ofAllocatedSeries("gpus_busy{team=\"llm\"}"), std::nullopt);
    QCOMPARE(MetricScope::ofAllocatedSeries("gpus_allocated"), std::nullopt);
  }

  void teamChartStacksInTeamColors() {
    UtilizationChart c;
    c.resize(700, 560);
    c.setTeamSeries({{"alpha", series("team_gpus{team=\"alpha\"}", 20, 50)},
                     {"beta", series("team_gpus{team=\"beta\"}", 10, 30)}});
    QCOMPARE(c.teamAreas().size(), size_t{2});
    // Both on the union of times; beta stacked on alpha.
    QCOMPARE(c.teamAreas()[1]->upperSeries()->count(), 20);
    QCOMPARE(c.teamAreas()[1]->lowerSeries()->at(0).y(),
             c.teamAreas()[0]->upperSeries()->at(0).y());
    QCOMPARE(c.teamAreas()[1]->upperSeries()->at(0).y(), 80.0);
    QCOMPARE(c.teamAreas()[0]->brush().color(), widgets::heatmapTeamColor("alpha"));
    c.show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    const QImage img = grabOf(*c.teamView());
    QVERIFY(contains(img, widgets::heatmapTeamColor("alpha").rgb()));
    QVERIFY(contains(img, widgets::heatmapTeamColor("beta").rgb()));
    c.setTeamSeries({});
    QVERIFY(c.teamAreas().empty());
  }

  void ganttPaintsBarsAndSelectsOnClick() {
    ClusterSnapshot s;
    s.now = 36000;
    for (const char* name : {"n1", "n2", "n3"}) {
      NodeView n;
      n.name = name;
      s.nodes.push_back(n);
    }
    std::vector<JobInfo> jobs = {
        job(1, "alpha", JobState::Running, 36000 - 3600, 7200, {"n1"}),
        job(2, "beta", JobState::Running, 36000 - 1800, std::nullopt, {"n2", "n2"}),
        job(3, "beta", JobState::Pending, 0, 3600, {}),
        job(4, "alpha", JobState::Pending, 0, 3600, {}),  // no ETA: not drawn
    };
    jobs[2].eta = 36000 + 3600;
    GanttWidget g;
    g.resize(900, 200);
    g.setData(s, jobs);
    QCOMPARE(g.rowLabels(), QStringList({"n1", "n2", "planned: beta"}));
    QCOMPARE(g.bars().size(), size_t{3});
    const auto barOf = [&](JobId id) {
      for (const auto& b : g.bars())
        if (b.job == id) return b;
      return GanttWidget::Bar{};
    };
    QVERIFY(barOf(2).openEnded);
    QVERIFY(barOf(3).planned);
    // Job 1 started an hour ago and should end an hour from now: the bar spans the now line.
    QVERIFY(barOf(1).rect.left() < g.xOf(36000) && barOf(1).rect.right() > g.xOf(36000));
    QVERIFY(std::abs(barOf(1).rect.right() - g.xOf(36000 + 3600)) < 1.5);

    g.show();
    QVERIFY(QTest::qWaitForWindowExposed(&g));
    const QImage img = grabOf(g);
    const QPoint inBar1 = (barOf(1).rect.topRight() + QPointF(-4, 4)).toPoint();
    QCOMPARE(QColor(img.pixel(inBar1)), widgets::heatmapTeamColor("alpha"));
    QVERIFY(contains(img, widgets::heatmapTeamColor("beta").rgb()));

    QSignalSpy selected(&g, &GanttWidget::jobSelected);
    QTest::mouseClick(&g, Qt::LeftButton, {}, barOf(3).rect.center().toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).value<JobId>(), JobId{3});
    QTest::mouseClick(&g, Qt::LeftButton, {}, QPoint(5, 5));  // the axis: nothing
    QCOMPARE(selected.count(), 1);
    QVERIFY(g.toolTipAt(barOf(1).rect.center()).contains("alpha"));
    QVERIFY(g.toolTipAt(QPointF(2, 150)).isEmpty());
  }

  void fetcherDeliversOnGuiThread() {
    std::atomic<int> calls{0};
    auto fake = [&calls](MetricQuery q, Reply<MetricAnswer> reply) {
      ++calls;
      // Replies from a thread of their own, as a session's would come.
      std::thread([q = std::move(q), reply = std::move(reply)] {
        MetricAnswer a;
        if (q.series.empty())
          a.names = {"cycle_ms", "gpus_allocated", "gpus_busy", "team_gpus{team=\"alpha\"}"};
        else
          a.series = series(q.series.c_str(), q.series == "gpus_allocated" ? 12 : 5, 1);
        reply(std::move(a));
      }).detach();
    };
    MetricFetcher f(fake);
    bool onGui = false;
    int allocatedPoints = -1, busyPoints = -1, smPoints = -1;
    std::vector<std::pair<QString, MetricSeries>> teams;
    bool done = false;
    connect(&f, &MetricFetcher::seriesReady, this,
            [&](const MetricSeries& a, const MetricSeries& b, const MetricSeries& sm) {
              onGui = QThread::currentThread() == qApp->thread();
              allocatedPoints = int(a.points.size());
              busyPoints = int(b.points.size());
              smPoints = int(sm.points.size());
            });
    connect(&f, &MetricFetcher::teamSeriesReady, this, [&](const auto& t) {
      teams = t;
      done = true;
    });
    QCOMPARE(f.scope(), MetricScope{});
    f.fetch(0, 0, 100);
    QTRY_VERIFY(done);
    QVERIFY(onGui);
    QCOMPARE(calls.load(), 4);  // names, then the three series the store has
    QCOMPARE(allocatedPoints, 12);
    QCOMPARE(busyPoints, 5);
    QCOMPARE(smPoints, 0);  // not recorded: empty, so the chart hides it
    QCOMPARE(teams.size(), size_t{1});
    QCOMPARE(teams[0].first, QStringLiteral("alpha"));
    QCOMPARE(MetricFetcher::teamOfSeries("team_gpus{team=\"a b\"}"), QStringLiteral("a b"));
    QVERIFY(MetricFetcher::teamOfSeries("gpus_busy").isEmpty());
  }

  void fetcherQueriesTheScopesSeries() {
    std::mutex mutex;
    std::set<std::string> queried;
    auto fake = [&](MetricQuery q, Reply<MetricAnswer> reply) {
      {
        std::lock_guard lock(mutex);
        queried.insert(q.series);
      }
      std::thread([q = std::move(q), reply = std::move(reply)] {
        MetricAnswer a;
        if (q.series.empty())
          a.names = {"gpus_allocated",
                     "gpus_busy",
                     "gpus_tensor_active",
                     "gpus_allocated{pool=\"dev\"}",
                     "gpus_allocated{team=\"llm\"}",
                     "gpus_allocated{team=\"research\"}",
                     "gpus_busy{team=\"llm\"}",
                     "gpus_sm_active{team=\"llm\"}",
                     "gpus_tensor_active{team=\"llm\"}",
                     "team_gpus{team=\"llm\"}"};
        else
          a.series =
              series(q.series.c_str(), q.series.find("tensor") != std::string::npos ? 7 : 3, 1);
        reply(std::move(a));
      }).detach();
    };
    MetricFetcher f(fake);
    UtilizationChart chart;
    connect(&f, &MetricFetcher::seriesReady, &chart, &UtilizationChart::setSeries);
    connect(&f, &MetricFetcher::scopesReady, &chart, &UtilizationChart::setScopes);
    QStringList pools, teams;
    connect(&f, &MetricFetcher::scopesReady, this, [&](const QStringList& p, const QStringList& t) {
      pools = p;
      teams = t;
    });
    QSignalSpy ready(&f, &MetricFetcher::teamSeriesReady);

    f.setScope({MetricScope::Kind::Team, "llm"});
    f.fetch(0);
    QTRY_COMPARE(ready.count(), 1);
    QTRY_COMPARE(pools, QStringList({"dev"}));
    QCOMPARE(teams, QStringList({"llm", "research"}));
    {
      std::lock_guard lock(mutex);
      QCOMPARE(queried, (std::set<std::string>{
                            "", "gpus_allocated{team=\"llm\"}", "gpus_busy{team=\"llm\"}",
                            "gpus_sm_active{team=\"llm\"}", "gpus_tensor_active{team=\"llm\"}",
                            "team_gpus{team=\"llm\"}"}));
      queried.clear();
    }
    // The chart learnt the scopes; the team's lines, the tensor line among them, are drawn.
    QCOMPARE(chart.scopeBox()->count(), 4);
    QCOMPARE(chart.line(UtilizationChart::Line::Tensor)->count(), 7);
    QVERIFY(chart.line(UtilizationChart::Line::Tensor)->isVisible());

    // The cluster has no SM-active series here: not queried, and drawn as missing.
    f.setScope({});
    f.fetch(0);
    QTRY_COMPARE(ready.count(), 2);
    std::lock_guard lock(mutex);
    QCOMPARE(queried, (std::set<std::string>{"", "gpus_allocated", "gpus_busy",
                                             "gpus_tensor_active", "team_gpus{team=\"llm\"}"}));
    QVERIFY(!chart.line(UtilizationChart::Line::Effective)->isVisible());
  }

  void fetcherReportsErrorsAndStaysQuietWhenGone() {
    auto failing = [](MetricQuery, Reply<MetricAnswer> reply) {
      reply(ApiError{ErrorKind::Unavailable, "no database"});
    };
    MetricFetcher f(failing);
    QSignalSpy failed(&f, &MetricFetcher::fetchFailed);
    f.fetch(0);
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("no database"));

    auto slow = [](MetricQuery, Reply<MetricAnswer> reply) {
      std::thread([reply = std::move(reply)] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        reply(MetricAnswer{});
      }).detach();
    };
    bool delivered = false;
    {
      MetricFetcher gone(slow);
      connect(&gone, &MetricFetcher::seriesReady, this, [&] { delivered = true; });
      gone.fetch(0);
    }
    QTest::qWait(200);
    QVERIFY(!delivered);
  }

  void fetcherWorksOnARealBackend() {
    QTemporaryDir dir;
    auto backend = embedded(dir);
    MetricFetcher f([backend](MetricQuery q, Reply<MetricAnswer> r) {
      backend->metrics(std::move(q), std::move(r));
    });
    UtilizationChart chart;
    connect(&f, &MetricFetcher::seriesReady, &chart, &UtilizationChart::setSeries);
    connect(&f, &MetricFetcher::teamSeriesReady, &chart, &UtilizationChart::setTeamSeries);
    QSignalSpy ready(&f, &MetricFetcher::teamSeriesReady);
    QSignalSpy failed(&f, &MetricFetcher::fetchFailed);
    f.fetch(0);
    QTRY_COMPARE(ready.count() + failed.count(), 1);
    QCOMPARE(failed.count(), 0);
  }

  // A simulated-live backend records per-team telemetry: the team scope gets a tensor line.
  void teamScopeOnASimulatedBackend() {
    QTemporaryDir dir;
    BackendConfig c;
    c.database = dir.filePath("sim.db").toStdString();
    c.mode = BackendMode::SimulatedLive;
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.runCycles = false;
    c.clock = [] { return Seconds{3600}; };
    auto opened = Backend::open(c);
    QVERIFY(opened);
    std::shared_ptr<Backend> backend = std::move(*opened);
    std::vector<Job> jobs = c.tenants.jobs;
    for (Job& j : jobs) j.id = kNoJob;
    std::promise<void> submitted, cycled;
    backend->submit(jobs, Caller{}, std::nullopt, [&](auto) { submitted.set_value(); });
    submitted.get_future().wait();
    backend->cycleNow([&](auto) { cycled.set_value(); });
    cycled.get_future().wait();

    MetricFetcher f([backend](MetricQuery q, Reply<MetricAnswer> r) {
      backend->metrics(std::move(q), std::move(r));
    });
    UtilizationChart chart;
    connect(&f, &MetricFetcher::seriesReady, &chart, &UtilizationChart::setSeries);
    connect(&f, &MetricFetcher::scopesReady, &chart, &UtilizationChart::setScopes);
    connect(&chart, &UtilizationChart::scopeChanged, &f, [&f](const MetricScope& s) {
      f.setScope(s);
      f.fetch(0);
    });
    QSignalSpy ready(&f, &MetricFetcher::seriesReady);
    f.fetch(0);
    QTRY_COMPARE(ready.count(), 1);
    const int llm = chart.scopeBox()->findText(QStringLiteral("Team: llm"));
    QVERIFY(llm > 0);
    QVERIFY(chart.scopeBox()->findText(QStringLiteral("Pool: training")) > 0);
    chart.scopeBox()->setCurrentIndex(llm);
    QTRY_COMPARE(ready.count(), 2);
    using L = UtilizationChart::Line;
    QVERIFY(chart.line(L::Tensor)->count() > 0);
    QVERIFY(chart.line(L::Tensor)->isVisible());
    QVERIFY(chart.line(L::Tensor)->at(0).y() > 0);
    QVERIFY(chart.line(L::Tensor)->at(0).y() <= chart.line(L::Allocated)->at(0).y());
    QVERIFY(chart.telemetryNote().isEmpty());
  }
};

QTEST_MAIN(TstUtilization)
#include "tst_utilization.moc"
