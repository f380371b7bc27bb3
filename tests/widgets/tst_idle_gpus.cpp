// The "Idle GPUs" panel: IdleGpuModel's jobs to reclaim (distinct jobs, their team and idle
// GPU-hours), the idle rule's controls and their settings, and the reclaim actions - confirmed,
// once per distinct job, as the inspector's job actions - on selected rows.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include "idle_gpu_model.h"
#include "idle_gpu_panel.h"

using namespace tessera;
using tessera::widgets::IdleGpuModel;
using tessera::widgets::IdleGpuPanel;
using tessera::widgets::JobAction;

namespace {

GpuView gpu(int index, std::vector<GpuView::Occupant> occupants, std::optional<double> util) {
  GpuView g;
  g.index = index;
  g.model = "H100";
  g.occupants = std::move(occupants);
  for (const auto& o : g.occupants) g.allocated += o.milli / 1000.0;
  g.util = util;
  if (util) g.smActive = *util / 2;
  return g;
}

GpuView::Occupant occupant(JobId job, const char* team, int milli = 1000) {
  return {job, milli, "", team, -1};
}

// n1: job 10 on GPUs 0 and 1 (idle), job 11 busy on GPU 2, jobs 12 and 13 sharing GPU 3 (idle),
// job 14 on GPU 4 without telemetry.
ClusterSnapshot snap(Seconds now) {
  ClusterSnapshot s;
  s.now = now;
  NodeView n;
  n.name = "n1";
  n.gpus = {gpu(0, {occupant(10, "alpha")}, 0.01), gpu(1, {occupant(10, "alpha")}, 0.03),
            gpu(2, {occupant(11, "beta")}, 0.9),
            gpu(3, {occupant(12, "gamma", 500), occupant(13, "delta", 250)}, 0.0),
            gpu(4, {occupant(14, "beta")}, std::nullopt)};
  s.nodes.push_back(n);
  return s;
}

// Two snapshots an hour apart: GPUs 0, 1 and 3 have been idle for the whole hour.
void fill(IdleGpuModel& m) {
  m.setSnapshot(snap(0));
  m.setSnapshot(snap(3600));
}

QString allText(const std::vector<IdleGpuModel::IdleJob>& jobs) {
  QStringList parts;
  for (const auto& j : jobs)
    parts << QStringLiteral("%1 %2 %3 %4").arg(j.job).arg(j.team).arg(j.gpus).arg(j.idleGpuHours);
  return parts.join(QStringLiteral("; "));
}

std::vector<std::pair<JobId, JobAction>> requests(const QSignalSpy& spy) {
  std::vector<std::pair<JobId, JobAction>> out;
  for (const auto& args : spy) out.emplace_back(args[0].value<JobId>(), args[1].value<JobAction>());
  return out;
}

void select(QTableView* view, const QList<int>& rows) {
  view->clearSelection();
  for (int r : rows)
    view->selectionModel()->select(view->model()->index(r, 0),
                                   QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

}  // namespace

class TstIdleGpus : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QLocale::setDefault(QLocale::c());  // "2.00 GPU-hours" whatever the machine's locale
  }

  void idleJobsAreDistinctWithTheirGpuHours() {
    IdleGpuModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    fill(m);
    QCOMPARE(m.rowCount(), 3);  // n1/0, n1/1, n1/3
    QCOMPARE(m.now(), Seconds{3600});
    // Every listed GPU of a job counts, selected or not: reclaiming the job frees them all.
    QCOMPARE(allText(m.idleJobs({0, 1, 2})),
             QStringLiteral("10 alpha 2 2; 12 gamma 1 0.5; 13 delta 1 0.25"));
    QCOMPARE(allText(m.idleJobs({1})), QStringLiteral("10 alpha 2 2"));
    QCOMPARE(allText(m.idleJobs({2, 0, 2})),
             QStringLiteral("12 gamma 1 0.5; 13 delta 1 0.25; 10 alpha 2 2"));
    QVERIFY(m.idleJobs({}).empty());
    QVERIFY(m.idleJobs({-1, 7}).empty());
    // Half an hour later GPU 1 got busy: job 10 is idle on one GPU for 1.5 hours.
    ClusterSnapshot later = snap(5400);
    later.nodes[0].gpus[1].util = 0.5;
    m.setSnapshot(later);
    QCOMPARE(allText(m.idleJobs({0})), QStringLiteral("10 alpha 1 1.5"));
  }

  void confirmationNamesJobTeamAndGpuHours() {
    IdleGpuModel m;
    fill(m);
    const QString preempt =
        IdleGpuPanel::confirmationText(JobAction::Preempt, m.idleJobs({0, 1, 2}));
    QCOMPARE(preempt, QStringLiteral("Preempt these 3 jobs holding idle GPUs?\n"
                                     "\n"
                                     "Job 10 of team alpha: 2.00 GPU-hours idle on 2 GPUs\n"
                                     "Job 12 of team gamma: 0.50 GPU-hours idle on 1 GPU\n"
                                     "Job 13 of team delta: 0.25 GPU-hours idle on 1 GPU\n"
                                     "\n"
                                     "Preempted jobs go back to the queue and lose the work done "
                                     "since their last checkpoint."));
    const QString cancel = IdleGpuPanel::confirmationText(JobAction::Cancel, m.idleJobs({0}));
    QVERIFY(cancel.startsWith(QStringLiteral("Cancel this job holding idle GPUs?\n")));
    QVERIFY(cancel.contains(QStringLiteral("Job 10 of team alpha: 2.00 GPU-hours idle")));
  }

  void ruleControlsApplyAndPersist() {
    QSettings().remove(QStringLiteral("idle"));
    IdleGpuModel m;
    IdleGpuPanel panel(&m);
    QCOMPARE(panel.thresholdBox()->value(), 5);
    QCOMPARE(panel.minimumBox()->value(), 0);
    fill(m);
    QCOMPARE(m.rowCount(), 3);
    panel.thresholdBox()->setValue(2);  // GPU 1 at 3 % is no longer idle
    QCOMPARE(m.threshold(), 0.02);
    QCOMPARE(m.rowCount(), 2);
    panel.minimumBox()->setValue(90);  // idle for an hour only: nothing listed
    QCOMPARE(m.minimumIdle(), Seconds{90 * 60});
    QCOMPARE(m.rowCount(), 0);
    QCOMPARE(QSettings().value(QStringLiteral("idle/thresholdPercent")).toInt(), 2);
    QCOMPARE(QSettings().value(QStringLiteral("idle/minimumMinutes")).toInt(), 90);

    // The next panel (the next start) applies the saved rule.
    IdleGpuModel fresh;
    IdleGpuPanel again(&fresh);
    QCOMPARE(again.thresholdBox()->value(), 2);
    QCOMPARE(again.minimumBox()->value(), 90);
    QCOMPARE(fresh.threshold(), 0.02);
    QCOMPARE(fresh.minimumIdle(), Seconds{90 * 60});
    QSettings().remove(QStringLiteral("idle"));
  }

  void reclaimOncePerDistinctJob() {
    QSettings().remove(QStringLiteral("idle"));
    IdleGpuModel m;
    IdleGpuPanel panel(&m);
    panel.resize(900, 300);
    panel.show();
    fill(m);
    QStringList asked;
    bool answer = true;
    panel.setConfirm([&](const QString& title, const QString& text) {
      asked << title + QLatin1Char('|') + text;
      return answer;
    });
    QSignalSpy spy(&panel, &IdleGpuPanel::actionRequested);
    auto* view = panel.view();
    QVERIFY(view->actions().contains(panel.preemptAction()));  // the context menu
    QVERIFY(view->actions().contains(panel.cancelAction()));

    // Nothing selected: nothing to reclaim, the actions are off.
    QVERIFY(!panel.preemptAction()->isEnabled());
    QCOMPARE(panel.reclaim(JobAction::Preempt), 0);
    QVERIFY(asked.isEmpty());

    // Both GPUs of job 10 and the shared GPU: three jobs, each once.
    select(view, {0, 1, 2});
    QVERIFY(panel.preemptAction()->isEnabled());
    panel.preemptAction()->trigger();
    QCOMPARE(asked.size(), 1);
    QVERIFY(asked[0].startsWith(QStringLiteral("Preempt idle jobs|")));
    QVERIFY(asked[0].contains(QStringLiteral("Job 10 of team alpha: 2.00 GPU-hours")));
    QCOMPARE(requests(spy),
             (std::vector<std::pair<JobId, JobAction>>{
                 {10, JobAction::Preempt}, {12, JobAction::Preempt}, {13, JobAction::Preempt}}));
    QVERIFY(spy[0][2].toString().isEmpty());

    // Declined: nothing is sent.
    spy.clear();
    answer = false;
    select(view, {1});
    panel.cancelAction()->trigger();
    QCOMPARE(asked.size(), 2);
    QVERIFY(asked[1].startsWith(QStringLiteral("Cancel idle jobs|")));
    QCOMPARE(spy.count(), 0);
    answer = true;
    QCOMPARE(panel.reclaim(JobAction::Cancel), 1);
    QCOMPARE(requests(spy), (std::vector<std::pair<JobId, JobAction>>{{10, JobAction::Cancel}}));

    // The view's sort does not change which jobs a row holds.
    spy.clear();
    view->sortByColumn(IdleGpuModel::UtilColumn, Qt::DescendingOrder);  // n1/1 (3 %) first
    select(view, {0});
    QCOMPARE(allText(panel.selectedJobs()), QStringLiteral("10 alpha 2 2"));
    view->sortByColumn(IdleGpuModel::UtilColumn, Qt::AscendingOrder);  // n1/3 (0 %) first
    select(view, {0});
    QCOMPARE(allText(panel.selectedJobs()), QStringLiteral("12 gamma 1 0.5; 13 delta 1 0.25"));

    // Rows that leave the list leave the selection: the actions follow.
    m.setMinimumIdle(2 * 3600);
    QCOMPARE(m.rowCount(), 0);
    QVERIFY(!panel.cancelAction()->isEnabled());
  }

  void doubleClickShowsTheJob() {
    IdleGpuModel m;
    IdleGpuPanel panel(&m);
    fill(m);
    QSignalSpy spy(&panel, &IdleGpuPanel::jobActivated);
    auto* view = panel.view();
    view->sortByColumn(IdleGpuModel::GpuColumn, Qt::AscendingOrder);
    // What the view emits on a double-click (synthetic double-clicks are unreliable offscreen).
    emit view->doubleClicked(view->model()->index(2, 0));  // n1/3: jobs 12, 13
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy[0][0].value<JobId>(), JobId{12});
  }
};

QTEST_MAIN(TstIdleGpus)
#include "tst_idle_gpus.moc"
