// "Group by team" in the queue tables: JobGroupProxy over JobTableModel / JobFilterProxy (the
// tree, its consistency through refreshes with QAbstractItemModelTester, mapping to source rows,
// sorting and filtering inside groups, drag and drop through team rows) and JobQueueView (the
// toggle, its setting, expansion and selection kept).
//
// Golden files live in tests/data/widgets; after an intended change of the texts regenerate
// them with
//   TESSERA_UPDATE_GOLDEN=1 ./tst_job_group_proxy
// and review the diff.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QFile>
#include <QHeaderView>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <algorithm>
#include <map>
#include <memory>

#include "golden.h"
#include "job_group_proxy.h"
#include "job_queue_view.h"
#include "job_table_model.h"

using namespace tessera;
using tessera::widgets::JobFilterProxy;
using tessera::widgets::JobGroupProxy;
using tessera::widgets::JobQueueView;
using tessera::widgets::JobTableModel;
using StateFilter = JobFilterProxy::StateFilter;
using Mode = QAbstractItemModelTester::FailureReportingMode;

using tessera::test::matchesGolden;

namespace {

constexpr Seconds kNow = 10000;

GpuRequest whole(int n) {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Whole;
  r.gpus = n;
  return r;
}

GpuRequest fraction(int milli) {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Fraction;
  r.milli = milli;
  r.vramMiB = 8192;
  return r;
}

JobInfo makeJob(JobId id, const char* name, const char* team, int tasks, GpuRequest req,
                JobState state, Seconds submit, int queuePosition = 0) {
  JobInfo j;
  Job& job = j.row.job;
  job.id = id;
  job.name = name;
  job.team = team;
  job.priorityClass = "experiment";
  job.workloadClass = WorkloadClass::Batch;
  job.tasks = tasks;
  job.perTask = std::move(req);
  job.submitTime = submit;
  j.row.state = state;
  j.queuePosition = queuePosition;
  if (state == JobState::Running) {
    j.row.startTime = submit + 60;
    j.placement = {{"pod-a-01", {0}, -1}};
  } else if (state == JobState::Pending) {
    j.row.reason = literal("waiting for the next scheduling cycle");
  }
  return j;
}

// Three teams, pending and running jobs; the queue order (positions) differs from the id order.
std::vector<JobInfo> fixture() {
  return {
      makeJob(201, "llm-pretrain", "nlp", 4, whole(8), JobState::Pending, kNow - 3600, 2),
      makeJob(202, "bert-serve", "search", 1, whole(2), JobState::Running, 9000),
      makeJob(203, "notebook", "vision", 1, fraction(250), JobState::Pending, kNow - 10, 1),
      makeJob(204, "resnet", "vision", 1, whole(4), JobState::Running, 1000),
      makeJob(205, "eval", "nlp", 1, whole(2), JobState::Pending, kNow - 600, 4),
      makeJob(206, "data-prep", "search", 2, whole(8), JobState::Pending, kNow - 200, 3),
      makeJob(207, "tokenize", "nlp", 1, whole(1), JobState::Running, 5000),
  };
}

JobInfo* find(std::vector<JobInfo>& jobs, JobId id) {
  for (JobInfo& j : jobs)
    if (j.row.job.id == id) return &j;
  return nullptr;
}

JobId jobOf(const QModelIndex& i) {
  return i.data(JobTableModel::JobIdRole).toULongLong();
}

// The header, then the tree: team rows at the left, their jobs indented; every column's text
// joined by " | ".
QString dumpTree(const QAbstractItemModel& m) {
  QStringList lines;
  QStringList cells;
  for (int c = 0; c < m.columnCount(); ++c) cells << m.headerData(c, Qt::Horizontal).toString();
  lines << cells.join(QStringLiteral(" | "));
  auto row = [&](const QModelIndex& parent, int r, const QString& indent) {
    cells.clear();
    for (int c = 0; c < m.columnCount(); ++c) cells << m.index(r, c, parent).data().toString();
    QString line = indent + cells.join(QStringLiteral(" | "));
    while (line.endsWith(QLatin1Char(' '))) line.chop(1);  // editors strip trailing blanks
    lines << line;
  };
  for (int r = 0; r < m.rowCount(); ++r) {
    row({}, r, QString());
    const QModelIndex parent = m.index(r, 0);
    for (int k = 0; k < m.rowCount(parent); ++k) row(parent, k, QStringLiteral("    "));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

// Team -> its jobs as the proxy shows them.
std::map<QString, std::vector<JobId>> groupsOf(const JobGroupProxy& p) {
  std::map<QString, std::vector<JobId>> out;
  for (int r = 0; r < p.rowCount(); ++r) {
    const QModelIndex g = p.index(r, 0);
    auto& jobs = out[p.teamOf(g)];
    for (int k = 0; k < p.rowCount(g); ++k) jobs.push_back(jobOf(p.index(k, 0, g)));
  }
  return out;
}

// What the groups must be: every source row once, under its team, in the source's order; teams
// sorted by name; and every job row maps to its source row and back.
void verifyAgainstSource(const JobGroupProxy& p) {
  const QAbstractItemModel* src = p.sourceModel();
  std::map<QString, std::vector<JobId>> expected;
  for (int r = 0; r < src->rowCount(); ++r) {
    const QModelIndex i = src->index(r, 0);
    expected[i.data(JobTableModel::TeamRole).toString()].push_back(jobOf(i));
  }
  QCOMPARE(groupsOf(p), expected);
  QStringList teams;
  for (int r = 0; r < p.rowCount(); ++r) teams << p.teamOf(p.index(r, 0));
  QVERIFY(std::is_sorted(teams.begin(), teams.end()));
  for (int r = 0; r < p.rowCount(); ++r) {
    const QModelIndex g = p.index(r, 0);
    QVERIFY(p.isGroup(g));
    QVERIFY(!p.mapToSource(g).isValid());
    for (int k = 0; k < p.rowCount(g); ++k) {
      for (int c : {0, int(JobTableModel::Reason)}) {
        const QModelIndex job = p.index(k, c, g);
        const QModelIndex s = p.mapToSource(job);
        QVERIFY(s.isValid());
        QCOMPARE(s.column(), c);
        QCOMPARE(jobOf(s), jobOf(job));
        QCOMPARE(s.data().toString(), job.data().toString());
        QCOMPARE(p.mapFromSource(s), job);
        QCOMPARE(p.indexOfJob(jobOf(job), c), job);
      }
    }
  }
}

std::unique_ptr<QMimeData> jobMime(JobId id) {
  auto d = std::make_unique<QMimeData>();
  d->setData(JobTableModel::mimeType(), QByteArray::number(id));
  return d;
}

}  // namespace

class TstJobGroupProxy : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // ---- the tree ------------------------------------------------------------------------------

  void groupedGolden() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    JobFilterProxy all;
    all.setSourceModel(&model);
    all.sort(JobTableModel::Id);
    JobGroupProxy groups;
    groups.setSourceModel(&all);
    groups.setGroupByTeam(true);
    groups.setTeamGpusHeld({{QStringLiteral("nlp"), 1}, {QStringLiteral("search"), 2.5}});
    QVERIFY(matchesGolden(QStringLiteral("job_groups.txt"), dumpTree(groups)));
    QCOMPARE(groups.groupSummary(0), QStringLiteral("nlp — 3 jobs · 35 GPUs requested · 1 held"));
    QCOMPARE(groups.groupSummary(2), QStringLiteral("vision — 2 jobs · 4.25 GPUs requested"));
    QCOMPARE(groups.index(1, JobTableModel::Team).data().toString(), QStringLiteral("search"));
    QCOMPARE(groups.index(1, 0).data(JobGroupProxy::GroupRole).toBool(), true);
    QCOMPARE(groups.index(0, 0, groups.index(1, 0)).data(JobGroupProxy::GroupRole).toBool(), false);
    QVERIFY(!groups.index(0, 0).data(JobTableModel::JobIdRole).isValid());

    // Flat: the source's rows as they are.
    groups.setGroupByTeam(false);
    QCOMPARE(groups.rowCount(), 7);
    for (int r = 0; r < 7; ++r) {
      QVERIFY(!groups.hasChildren(groups.index(r, 0)));
      QCOMPARE(jobOf(groups.index(r, 0)), jobOf(all.index(r, 0)));
      QCOMPARE(groups.mapToSource(groups.index(r, 3)), all.index(r, 3));
    }
  }

  void mapsJobRowsToSourceRows() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);
    JobGroupProxy groups;
    groups.setSourceModel(&pending);
    groups.setGroupByTeam(true);
    verifyAgainstSource(groups);
    // Inside a team, the source's (queue) order: 201 (2nd) before 205 (4th).
    QCOMPARE(groupsOf(groups)[QStringLiteral("nlp")], (std::vector<JobId>{201, 205}));
    const QModelIndex nlp = groups.groupIndex(QStringLiteral("nlp"));
    QVERIFY(nlp.isValid());
    const QModelIndex second = groups.index(1, 0, nlp);
    QCOMPARE(groups.mapToSource(second).row(), 3);  // 205 is the 4th pending job
    QCOMPARE(groups.mapToSource(second), pending.index(3, 0));
    QVERIFY(!groups.groupIndex(QStringLiteral("nobody")).isValid());
    QVERIFY(!groups.indexOfJob(202).isValid());  // running: filtered out below
    QCOMPARE(groups.parent(second), nlp);
  }

  // ---- following the source ------------------------------------------------------------------

  void modelTesterThroughUpdates() {
    JobTableModel model;
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);
    JobFilterProxy all;
    all.setSourceModel(&model);
    all.sort(JobTableModel::Wait, Qt::DescendingOrder);
    JobGroupProxy overPending, overAll, overModel;
    overPending.setSourceModel(&pending);
    overAll.setSourceModel(&all);
    overModel.setSourceModel(&model);
    for (auto* p : {&overPending, &overAll, &overModel}) p->setGroupByTeam(true);
    QAbstractItemModelTester t1(&overPending, Mode::Fatal);
    QAbstractItemModelTester t2(&overAll, Mode::Fatal);
    QAbstractItemModelTester t3(&overModel, Mode::Fatal);
    QSignalSpy resets(&overPending, &QAbstractItemModel::modelReset);
    auto verifyAll = [&] {
      for (auto* p : {&overPending, &overAll, &overModel}) verifyAgainstSource(*p);
    };

    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    verifyAll();
    QCOMPARE(overPending.rowCount(), 3);

    // Jobs arrive: one for a team already shown, one for a new team.
    jobs.push_back(makeJob(208, "arrived", "nlp", 1, whole(1), JobState::Pending, kNow, 5));
    jobs.push_back(makeJob(209, "first-of-team", "ads", 1, whole(2), JobState::Pending, kNow, 6));
    model.setJobs(jobs, kNow + 1);
    verifyAll();
    QCOMPARE(overPending.teamOf(overPending.index(0, 0)), QStringLiteral("ads"));

    // Jobs finish (leave the list) and start (leave the pending view): search empties there.
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                              [](const JobInfo& j) { return j.row.job.id == 209; }),
               jobs.end());
    find(jobs, 206)->row.state = JobState::Running;
    find(jobs, 206)->queuePosition = 0;
    model.setJobs(jobs, kNow + 2);
    verifyAll();
    QVERIFY(!overPending.groupIndex(QStringLiteral("search")).isValid());
    QVERIFY(!overPending.groupIndex(QStringLiteral("ads")).isValid());

    // Jobs move teams: one into an existing team, one into a team of its own.
    find(jobs, 201)->row.job.team = "vision";
    find(jobs, 207)->row.job.team = "robotics";
    model.setJobs(jobs, kNow + 3);
    verifyAll();
    QCOMPARE(groupsOf(overPending)[QStringLiteral("vision")], (std::vector<JobId>{203, 201}));

    // The queue reorders: inside the groups too.
    find(jobs, 203)->queuePosition = 9;
    find(jobs, 205)->queuePosition = 1;
    model.setJobs(jobs, kNow + 4);
    verifyAll();
    QCOMPARE(groupsOf(overPending)[QStringLiteral("vision")], (std::vector<JobId>{201, 203}));

    // Everything leaves, then comes back; grouping off and on.
    model.setJobs({}, kNow + 5);
    verifyAll();
    QCOMPARE(overPending.rowCount(), 0);
    model.setJobs(fixture(), kNow + 6);
    verifyAll();
    QCOMPARE(resets.count(), 0);  // refreshes never reset: views keep selection and expansion
    overPending.setGroupByTeam(false);
    QCOMPARE(overPending.rowCount(), pending.rowCount());
    model.setJobs(jobs, kNow + 7);
    QCOMPARE(overPending.rowCount(), pending.rowCount());
    for (int r = 0; r < pending.rowCount(); ++r)
      QCOMPARE(jobOf(overPending.index(r, 0)), jobOf(pending.index(r, 0)));
    overPending.setGroupByTeam(true);
    verifyAll();
    QCOMPARE(resets.count(), 2);
  }

  void persistentIndexesFollowTheirJobs() {
    JobTableModel model;
    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);
    JobGroupProxy groups;
    groups.setSourceModel(&pending);
    groups.setGroupByTeam(true);
    QPersistentModelIndex job205(groups.indexOfJob(205, JobTableModel::Reason));
    QPersistentModelIndex team(groups.groupIndex(QStringLiteral("vision")));
    QVERIFY(job205.isValid() && team.isValid());
    QCOMPARE(job205.row(), 1);
    // 205 moves to the head of the queue, a new team sorts before vision.
    find(jobs, 205)->queuePosition = 1;
    find(jobs, 201)->queuePosition = 5;
    jobs.push_back(makeJob(210, "new", "robotics", 1, whole(1), JobState::Pending, kNow, 6));
    find(jobs, 205)->row.reason = literal("next in line");
    model.setJobs(jobs, kNow + 1);
    QVERIFY(job205.isValid());
    QCOMPARE(job205.row(), 0);
    QCOMPARE(job205.data().toString(), QStringLiteral("next in line"));
    QCOMPARE(groups.teamOf(team), QStringLiteral("vision"));
    QCOMPARE(team.row(), 3);  // nlp, robotics, search, vision
  }

  void sortAndFilterInsideGroups() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    JobFilterProxy all;
    all.setSourceModel(&model);
    JobGroupProxy groups;
    groups.setSourceModel(&all);
    groups.setGroupByTeam(true);
    QAbstractItemModelTester tester(&groups, Mode::Fatal);
    // The view sorts through the proxy: the filter below sorts, the groups follow.
    groups.sort(JobTableModel::Id, Qt::DescendingOrder);
    QCOMPARE(groupsOf(groups)[QStringLiteral("nlp")], (std::vector<JobId>{207, 205, 201}));
    groups.sort(JobTableModel::Id, Qt::AscendingOrder);
    QCOMPARE(groupsOf(groups)[QStringLiteral("nlp")], (std::vector<JobId>{201, 205, 207}));
    all.setSearchText(QStringLiteral("-"));  // llm-pretrain (nlp), bert-serve, data-prep (search)
    verifyAgainstSource(groups);
    QCOMPARE(groups.rowCount(), 2);
    all.setSearchText(QString());
    all.setStateFilter(StateFilter::Running);
    verifyAgainstSource(groups);
    QCOMPARE(groupsOf(groups)[QStringLiteral("search")], (std::vector<JobId>{202}));
    all.setTeamFilter(QStringLiteral("vision"));
    QCOMPARE(groups.rowCount(), 1);
    QCOMPARE(groups.groupSummary(0), QStringLiteral("vision — 1 job · 4 GPUs requested"));
    all.setTeamFilter(QString());
    all.setStateFilter(StateFilter::All);
    verifyAgainstSource(groups);
  }

  // ---- actions and drags ---------------------------------------------------------------------

  void teamRowsAreNotActionable() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    JobGroupProxy groups;
    groups.setSourceModel(&pending);
    groups.setGroupByTeam(true);
    const QModelIndex team = groups.groupIndex(QStringLiteral("nlp"));
    QCOMPARE(groups.flags(team), Qt::ItemFlags(Qt::ItemIsEnabled));
    const QModelIndex job = groups.index(0, 0, team);
    QVERIFY(groups.flags(job) & Qt::ItemIsSelectable);
    QVERIFY(groups.flags(job) & Qt::ItemIsDragEnabled);
    QCOMPARE(groups.mimeData({team}), nullptr);
    std::unique_ptr<QMimeData> d(groups.mimeData({team, job}));
    QVERIFY(d);
    QCOMPARE(d->data(JobTableModel::mimeType()), QByteArray::number(jobOf(job)));
    QCOMPARE(groups.headerData(JobTableModel::Team, Qt::Horizontal).toString(),
             QStringLiteral("Team"));
  }

  void dropsMapToQueueMoves() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);  // 203, 201, 206, 205
    JobGroupProxy groups;
    groups.setSourceModel(&pending);
    groups.setGroupByTeam(true);  // nlp: 201 205 · search: 206 · vision: 203
    QSignalSpy moves(&model, &JobTableModel::moveRequested);
    const QModelIndex nlp = groups.groupIndex(QStringLiteral("nlp"));
    const QModelIndex search = groups.groupIndex(QStringLiteral("search"));
    const auto drag = jobMime(203);
    auto lastMove = [&moves] {
      const auto args = moves.takeLast();
      return std::pair<JobId, JobId>{args[0].value<JobId>(), args[1].value<JobId>()};
    };
    // Onto a job: ahead of it.
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, -1, -1, groups.index(1, 0, nlp)));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 205}));
    // Between the jobs of a team: ahead of the one below.
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, 1, 0, nlp));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 205}));
    // After a team's last job: ahead of the job that follows it in the queue (206 -> 205).
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, 1, 0, search));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 205}));
    QVERIFY(groups.dropMimeData(jobMime(206).get(), Qt::MoveAction, 2, 0, nlp));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{206, 0}));  // 205 is last: the bottom
    // Between teams: ahead of the next team's first job; below everything: the bottom.
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, 1, 0, {}));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 206}));
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, 3, 0, {}));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 0}));
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, -1, -1, {}));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 0}));
    // Onto a team row: no job there to go ahead of.
    QVERIFY(!groups.canDropMimeData(drag.get(), Qt::MoveAction, -1, -1, nlp));
    QVERIFY(!groups.dropMimeData(drag.get(), Qt::MoveAction, -1, -1, nlp));
    QCOMPARE(moves.count(), 0);

    // Flat, as the table always did.
    groups.setGroupByTeam(false);
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, 2, 0, {}));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 206}));
    QVERIFY(groups.dropMimeData(drag.get(), Qt::MoveAction, -1, -1, groups.index(3, 0)));
    QCOMPARE(lastMove(), (std::pair<JobId, JobId>{203, 205}));
  }

  // ---- the view ------------------------------------------------------------------------------

  void viewTogglesAndKeepsState() {
    QSettings().remove(QStringLiteral("test/groupByTeam"));
    JobTableModel model;
    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    JobFilterProxy all;
    all.setSourceModel(&model);
    JobQueueView view(&all);
    view.resize(900, 400);
    view.show();
    view.setSettingsKey(QStringLiteral("test/groupByTeam"));
    QVERIFY(!view.groupByTeam());
    QVERIFY(!view.rootIsDecorated());
    QVERIFY(view.selectJob(205));
    QCOMPARE(view.currentJob(), JobId{205});

    view.groupByTeamAction()->trigger();
    QVERIFY(view.groupByTeam());
    QVERIFY(view.rootIsDecorated());
    QCOMPARE(QSettings().value(QStringLiteral("test/groupByTeam")).toBool(), true);
    QCOMPARE(view.currentJob(), JobId{205});  // the selection survived the regrouping
    auto* groups = view.groups();
    const QModelIndex nlp = groups->groupIndex(QStringLiteral("nlp"));
    QVERIFY(view.isExpanded(nlp));
    QVERIFY(view.isFirstColumnSpanned(nlp.row(), {}));
    QVERIFY(view.selectionModel()->isRowSelected(1, nlp));

    // A collapsed team stays collapsed through refreshes, even when it comes back.
    const QModelIndex vision = groups->groupIndex(QStringLiteral("vision"));
    view.collapse(vision);
    auto without = jobs;
    without.erase(std::remove_if(without.begin(), without.end(),
                                 [](const JobInfo& j) { return j.row.job.team == "vision"; }),
                  without.end());
    without.push_back(makeJob(211, "late", "ads", 1, whole(1), JobState::Pending, kNow, 7));
    model.setJobs(without, kNow + 1);
    QVERIFY(!groups->groupIndex(QStringLiteral("vision")).isValid());
    QVERIFY(view.isExpanded(groups->groupIndex(QStringLiteral("ads"))));
    QVERIFY(view.isFirstColumnSpanned(groups->groupIndex(QStringLiteral("ads")).row(), {}));
    model.setJobs(jobs, kNow + 2);
    QVERIFY(!view.isExpanded(groups->groupIndex(QStringLiteral("vision"))));
    QVERIFY(view.isExpanded(groups->groupIndex(QStringLiteral("nlp"))));
    QCOMPARE(view.currentJob(), JobId{205});

    // The summary follows the first visible column, where a spanned row draws.
    const QString summary = groups->groupSummary(0);
    view.header()->setSectionHidden(0, true);
    view.grab();  // painting picks the column
    QCOMPARE(groups->summaryColumn(), 1);
    QCOMPARE(groups->index(0, 1).data().toString(), summary);
    QVERIFY(groups->index(0, 0).data().toString().isEmpty());
    view.header()->moveSection(view.header()->visualIndex(JobTableModel::Team), 0);
    view.grab();
    QCOMPARE(groups->summaryColumn(), int(JobTableModel::Team));
    QCOMPARE(groups->index(0, JobTableModel::Team).data().toString(), summary);
    view.header()->setSectionHidden(0, false);
    view.grab();
    QCOMPARE(groups->summaryColumn(), int(JobTableModel::Team));
    view.header()->moveSection(view.header()->visualIndex(0), 0);
    view.grab();
    QCOMPARE(groups->summaryColumn(), 0);

    // On a team row there is no job to act on.
    view.setCurrentIndex(groups->groupIndex(QStringLiteral("search")));
    QCOMPARE(view.currentJob(), kNoJob);

    // The setting comes back in a new view; grouping off again.
    JobQueueView again(&all);
    again.setSettingsKey(QStringLiteral("test/groupByTeam"));
    QVERIFY(again.groupByTeam());
    QVERIFY(again.groupByTeamAction()->isChecked());
    view.setGroupByTeam(false);
    QVERIFY(!view.groupByTeamAction()->isChecked());
    QCOMPARE(QSettings().value(QStringLiteral("test/groupByTeam")).toBool(), false);
    QCOMPARE(view.model()->rowCount(), 7);
  }
};

QTEST_MAIN(TstJobGroupProxy)
#include "tst_job_group_proxy.moc"
