// The console's queue tables and "why pending" panel: JobTableModel (in-place updates by job id,
// texts, sort values, drag to move in the queue), JobFilterProxy (pending/running views, team
// and text filters) and JobInspector (an Explanation laid out, links and buttons as signals).
//
// Fixtures are JobInfo / Explanation values written out by hand, so the golden dumps are
// deterministic; one test runs the models on what a real Backend answers for the demo cluster.
// Golden files live in tests/data/widgets; after an intended change of the texts regenerate
// them with
//   TESSERA_UPDATE_GOLDEN=1 ./tst_job_table_model
// and review the diff.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>
#include <set>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "golden.h"
#include "job_inspector.h"
#include "job_table_model.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;
using tessera::widgets::JobAction;
using tessera::widgets::JobFilterProxy;
using tessera::widgets::JobInspector;
using tessera::widgets::JobTableModel;
using StateFilter = JobFilterProxy::StateFilter;

using tessera::test::matchesGolden;

namespace {

constexpr Seconds kNow = 10000;

JobInfo makeJob(JobId id, const char* name, const char* team, const char* cls, int priority,
                WorkloadClass wc, int tasks, GpuRequest req, JobState state, Seconds submit) {
  JobInfo j;
  Job& job = j.row.job;
  job.id = id;
  job.name = name;
  job.team = team;
  job.priorityClass = cls;
  job.priority = priority;
  job.workloadClass = wc;
  job.tasks = tasks;
  job.perTask = std::move(req);
  job.submitTime = submit;
  j.row.state = state;
  j.priority = priority;
  return j;
}

GpuRequest whole(int n) {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Whole;
  r.gpus = n;
  return r;
}

GpuRequest mig(const char* profile) {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Mig;
  r.migProfile = profile;
  return r;
}

GpuRequest fraction(int milli) {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Fraction;
  r.milli = milli;
  r.vramMiB = 8192;
  return r;
}

// Seven jobs covering every column's cases: pending with and without ETA, gangs, MIG and
// fractional requests, running placements, finished jobs, a job without GPUs.
std::vector<JobInfo> fixture() {
  std::vector<JobInfo> jobs;
  {
    auto j = makeJob(101, "llm-pretrain", "nlp", "production-training", 900,
                     WorkloadClass::Training, 4, whole(8), JobState::Pending, kNow - 3725);
    j.queuePosition = 1;
    j.eta = kNow + 720;
    j.row.reason = literal("the gang needs 4 nodes with 8 free GPUs in one NVLink domain; 2 fit");
    j.blockedBy = "topology";
    j.external = ExternalJob{"4711", "PENDING", "JobHeldUser", {}};  // Slurm's reason is shown
    jobs.push_back(j);
  }
  {
    auto j = makeJob(102, "bert-serve", "search", "serving", 1000, WorkloadClass::Inference, 2,
                     mig("3g.40gb"), JobState::Running, 9000);
    j.row.startTime = 9045;
    j.placement = {{"inf-01", {4}, 0}, {"inf-01", {5}, 4}};
    jobs.push_back(j);
  }
  {
    auto j = makeJob(103, "notebook-ana", "vision", "experiment", 500, WorkloadClass::Interactive,
                     1, fraction(250), JobState::Pending, kNow - 10);
    j.queuePosition = 2;
    j.row.reason = literal("no node can host a task: 0/62 nodes fit; 48 no GPU share left");
    jobs.push_back(j);
  }
  {
    auto j = makeJob(104, "resnet-sweep", "vision", "experiment", 500, WorkloadClass::Batch, 1,
                     whole(4), JobState::Running, 1000);
    j.row.startTime = 5000;
    j.placement = {{"pod-a-01", {0, 1, 2, 3}, -1}};
    j.external = ExternalJob{"4712", "RUNNING", "None", {"pod-a-01"}};  // "None": no reason
    jobs.push_back(j);
  }
  {
    auto j = makeJob(105, "eval-nightly", "nlp", "spot", 100, WorkloadClass::Batch, 1, whole(2),
                     JobState::Completed, 100);
    j.row.startTime = 160;
    j.row.endTime = 3000;
    jobs.push_back(j);
  }
  {
    auto j = makeJob(106, "data-prep", "search", "experiment", 500, WorkloadClass::Batch, 8,
                     whole(8), JobState::Pending, kNow - 200000);
    j.queuePosition = 3;
    j.eta = kNow - 5;
    j.row.reason = literal("waiting for the next scheduling cycle");
    jobs.push_back(j);
  }
  {
    auto j = makeJob(107, "cpu-etl", "nlp", "spot", 100, WorkloadClass::Batch, 1, GpuRequest{},
                     JobState::Cancelled, 500);
    j.row.endTime = 900;
    jobs.push_back(j);
  }
  return jobs;
}

JobInfo* find(std::vector<JobInfo>& jobs, JobId id) {
  for (JobInfo& j : jobs)
    if (j.row.job.id == id) return &j;
  return nullptr;
}

// The header, then one line per row: every column's display text joined by " | ".
QString dump(const QAbstractItemModel& m) {
  QStringList lines;
  QStringList cells;
  for (int c = 0; c < m.columnCount(); ++c) cells << m.headerData(c, Qt::Horizontal).toString();
  lines << cells.join(QStringLiteral(" | "));
  for (int r = 0; r < m.rowCount(); ++r) {
    cells.clear();
    for (int c = 0; c < m.columnCount(); ++c) cells << m.index(r, c).data().toString();
    // No trailing blanks after empty last cells: editors strip them from golden files.
    QString line = cells.join(QStringLiteral(" | "));
    while (line.endsWith(QLatin1Char(' '))) line.chop(1);
    lines << line;
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

std::vector<JobId> idsOf(const QAbstractItemModel& m) {
  std::vector<JobId> ids;
  for (int r = 0; r < m.rowCount(); ++r)
    ids.push_back(m.index(r, 0).data(JobTableModel::JobIdRole).toULongLong());
  return ids;
}

std::set<JobId> idSet(const QAbstractItemModel& m) {
  const auto ids = idsOf(m);
  return {ids.begin(), ids.end()};
}

QString cell(const QAbstractItemModel& m, JobId id, int column) {
  for (int r = 0; r < m.rowCount(); ++r)
    if (m.index(r, 0).data(JobTableModel::JobIdRole).toULongLong() == id)
      return m.index(r, column).data().toString();
  return QStringLiteral("<no row>");
}

std::unique_ptr<QMimeData> jobMime(const QByteArray& id) {
  auto d = std::make_unique<QMimeData>();
  d->setData(JobTableModel::mimeType(), id);
  return d;
}

Explanation explanationFixture() {
  Explanation x;
  x.job = 101;
  x.state = JobState::Pending;
  x.dominantReason =
      literal("The gang needs 4 nodes with 8 free H100s in one NVLink domain; 2 have them.");
  x.nodeSummary = literal("2/62 nodes fit; 40 not enough free GPUs, 12 pool mismatch, 8 GPU model");
  x.filter.nodesChecked = 62;
  x.filter.fits = {{3, 1}, {4, 1}};
  x.filter.rejected[static_cast<size_t>(NodeReject::PoolMismatch)] = 12;
  x.filter.rejected[static_cast<size_t>(NodeReject::NotEnoughFreeGpus)] = 40;
  x.filter.rejected[static_cast<size_t>(NodeReject::GpuModelMismatch)] = 8;
  x.blockingJobs = {17, 23};
  x.blockingQueues = {"vision", "r&d"};
  x.queuePosition = 3;
  x.queueLength = 41;
  x.eta = kNow + 720;
  x.fragmentation = literal("8 GPUs free on pod-a, but the largest NVLink block is 4");
  x.counterfactuals = {
      {Counterfactual::Kind::Quota, literal("would start now if team nlp's H100 quota were +16")},
      {Counterfactual::Kind::Repartition,
       literal("would start now if inf-01/4 were repartitioned")},
      {Counterfactual::Kind::JobsEnd, literal("would start when jobs 17 and 23 end (in 12m)")}};
  x.history = {literal("t=6275 submitted by alice"), literal("t=6280 pending: topology")};
  return x;
}

template <typename T>
T* child(QWidget& w, const char* name) {
  T* c = w.findChild<T*>(QLatin1String(name));
  if (!c) qFatal("no child %s", name);
  return c;
}

// Every visible label by object name, the history and which actions are enabled.
QString dumpInspector(JobInspector& w) {
  QStringList lines;
  for (const char* name : {"title", "reason", "summary", "rejections", "queue", "blockers",
                           "fragmentation", "placement", "suggestions"}) {
    auto* l = child<QLabel>(w, name);
    if (!l->isHidden()) lines << QStringLiteral("%1: %2").arg(QLatin1String(name), l->text());
  }
  auto* history = child<QListWidget>(w, "history");
  for (int i = 0; i < history->count(); ++i)
    lines << QStringLiteral("history: ") + history->item(i)->text();
  QStringList enabled;
  for (const char* name : {"hold", "release", "preempt", "cancel", "setPriority"})
    if (child<QPushButton>(w, name)->isEnabled()) enabled << QLatin1String(name);
  lines << QStringLiteral("actions: ") + enabled.join(QLatin1Char(' '));
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace

class TstJobTableModel : public QObject {
  Q_OBJECT

 private slots:
  // ---- consistency through refreshes --------------------------------------------------------

  void modelTesterThroughUpdates() {
    JobTableModel model;
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);
    JobFilterProxy all;
    all.setSourceModel(&model);
    all.sort(JobTableModel::Wait, Qt::DescendingOrder);
    using Mode = QAbstractItemModelTester::FailureReportingMode;
    QAbstractItemModelTester t1(&model, Mode::Fatal);
    QAbstractItemModelTester t2(&pending, Mode::Fatal);
    QAbstractItemModelTester t3(&all, Mode::Fatal);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(idSet(pending), (std::set<JobId>{101, 103, 106}));
    QCOMPARE(idsOf(pending), (std::vector<JobId>{101, 103, 106}));

    // A second later: one job started, one is gone, two arrived, one changed its reason.
    find(jobs, 103)->row.state = JobState::Running;
    find(jobs, 103)->queuePosition = 0;
    find(jobs, 103)->row.startTime = kNow + 1;
    find(jobs, 106)->queuePosition = 2;
    find(jobs, 101)->queuePosition = 4;
    find(jobs, 101)->row.reason = literal("waiting for jobs 17, 23 to end");
    jobs.erase(jobs.begin() + 4);  // 105
    auto a = makeJob(108, "new-a", "nlp", "experiment", 500, WorkloadClass::Batch, 1, whole(1),
                     JobState::Pending, kNow + 1);
    a.queuePosition = 3;
    auto b = makeJob(109, "new-b", "vision", "experiment", 500, WorkloadClass::Batch, 1, whole(1),
                     JobState::Pending, kNow + 1);
    b.queuePosition = 1;
    jobs.insert(jobs.begin() + 1, a);
    jobs.push_back(b);
    model.setJobs(jobs, kNow + 1);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(idsOf(pending), (std::vector<JobId>{109, 106, 108, 101}));
    QCOMPARE(cell(model, 101, JobTableModel::Reason),
             QStringLiteral("waiting for jobs 17, 23 to end"));

    // Reordered, then emptied, then refilled.
    std::reverse(jobs.begin(), jobs.end());
    model.setJobs(jobs, kNow + 2);
    QCOMPARE(idsOf(model), (std::vector<JobId>{109, 107, 106, 104, 103, 102, 108, 101}));
    model.setJobs({}, kNow + 3);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(pending.rowCount(), 0);
    model.setJobs(fixture(), kNow + 4);
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(resets.count(), 0);  // never a reset: views keep selection and scroll
  }

  void inPlaceUpdateKeepsPersistentIndex() {
    JobTableModel model;
    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    QPersistentModelIndex p(model.index(model.rowOf(103), JobTableModel::Reason));
    QPersistentModelIndex gone(model.index(model.rowOf(105), 0));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

    jobs.erase(jobs.begin());      // 101 gone: 103 moves up a row
    jobs.erase(jobs.begin() + 3);  // 105 gone
    find(jobs, 103)->row.reason =
        literal("no node can host a task: 0/62 nodes fit; 62 GPUs reserved");
    jobs.insert(jobs.begin(),
                makeJob(110, "front", "nlp", "serving", 1000, WorkloadClass::Inference, 1, whole(1),
                        JobState::Pending, kNow));
    model.setJobs(jobs, kNow);
    QVERIFY(p.isValid());
    QCOMPARE(p.row(), model.rowOf(103));
    QCOMPARE(p.row(), 2);
    QCOMPARE(p.data().toString(),
             QStringLiteral("no node can host a task: 0/62 nodes fit; 62 GPUs reserved"));
    QVERIFY(!gone.isValid());
    QCOMPARE(resets.count(), 0);
    QCOMPARE(removed.count(), 2);  // two separate runs
    QCOMPARE(inserted.count(), 1);
    // The changed row is signalled, and only its changed columns.
    bool seen = false;
    for (const auto& args : changed) {
      const auto tl = args[0].value<QModelIndex>(), br = args[1].value<QModelIndex>();
      if (tl.row() <= p.row() && p.row() <= br.row()) {
        seen = true;
        QCOMPARE(tl.column(), int(JobTableModel::Reason));
        QCOMPARE(br.column(), int(JobTableModel::Reason));
      }
    }
    QVERIFY(seen);
  }

  void refreshSignalsOnlyWhatChanged() {
    JobTableModel model;
    const auto jobs = fixture();
    model.setJobs(jobs, kNow);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy layout(&model, &QAbstractItemModel::layoutChanged);
    QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
    model.setJobs(jobs, kNow);  // the same answer again: nothing to say
    QCOMPARE(changed.count(), 0);
    // A minute later: pending waits and ETAs change, running and finished rows do not.
    model.setJobs(jobs, kNow + 60);
    QVERIFY(changed.count() >= 1);
    std::set<int> rows;
    for (const auto& args : changed) {
      const auto tl = args[0].value<QModelIndex>(), br = args[1].value<QModelIndex>();
      QVERIFY(tl.column() >= JobTableModel::Wait);
      QVERIFY(br.column() <= JobTableModel::Eta);
      for (int r = tl.row(); r <= br.row(); ++r) rows.insert(r);
    }
    QVERIFY(rows.count(model.rowOf(101)));
    QVERIFY(rows.count(model.rowOf(103)));
    QVERIFY(rows.count(model.rowOf(106)));
    // Rows in between may be inside a merged range, but running rows at the edges are not.
    QVERIFY(!rows.count(model.rowOf(107)));
    QCOMPARE(cell(model, 101, JobTableModel::Wait), QStringLiteral("1h 03m"));
    QCOMPARE(cell(model, 101, JobTableModel::Eta), QStringLiteral("in 11m"));
    QCOMPARE(moved.count(), 0);
    QCOMPARE(layout.count(), 0);
  }

  void reorderMovesFewestRows() {
    JobTableModel model;
    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    QPersistentModelIndex first(model.index(0, 0));  // job 101
    QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    // The top job drops to the bottom: one move, not six.
    std::rotate(jobs.begin(), jobs.begin() + 1, jobs.end());
    model.setJobs(jobs, kNow);
    QCOMPARE(idsOf(model), (std::vector<JobId>{102, 103, 104, 105, 106, 107, 101}));
    QCOMPARE(moved.count(), 1);
    QCOMPARE(inserted.count(), 0);
    QCOMPARE(removed.count(), 0);
    QCOMPARE(first.row(), 6);
    QCOMPARE(first.data(JobTableModel::JobIdRole).toULongLong(), JobId{101});
    // Any permutation ends in the given order.
    std::vector<JobInfo> shuffled;
    for (int i : {4, 0, 6, 2, 5, 3, 1}) shuffled.push_back(jobs[static_cast<size_t>(i)]);
    model.setJobs(shuffled, kNow);
    std::vector<JobId> expected;
    for (const JobInfo& j : shuffled) expected.push_back(j.row.job.id);
    QCOMPARE(idsOf(model), expected);
    // Duplicated ids count once.
    shuffled.push_back(shuffled.front());
    model.setJobs(shuffled, kNow);
    QCOMPARE(idsOf(model), expected);
  }

  // ---- texts --------------------------------------------------------------------------------

  void goldenTable() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    QVERIFY(matchesGolden(QStringLiteral("job_table.txt"), dump(model)));
  }

  void goldenPendingView() {
    JobTableModel model;
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);
    model.setJobs(fixture(), kNow);
    QVERIFY(matchesGolden(QStringLiteral("job_table_pending.txt"), dump(pending)));
  }

  void cellTexts() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    // Independent of the golden file: the cases the issue names.
    QCOMPARE(cell(model, 101, JobTableModel::Request), QStringLiteral("4x 8 GPU"));
    QCOMPARE(cell(model, 102, JobTableModel::Request), QStringLiteral("2x 3g.40gb"));
    QCOMPARE(cell(model, 103, JobTableModel::Request), QStringLiteral("0.25 GPU"));
    QCOMPARE(cell(model, 104, JobTableModel::Request), QStringLiteral("4 GPU"));
    QCOMPARE(cell(model, 107, JobTableModel::Request), QStringLiteral("no GPU"));
    QCOMPARE(cell(model, 101, JobTableModel::Wait), QStringLiteral("1h 02m"));  // now - submit
    QCOMPARE(cell(model, 102, JobTableModel::Wait), QStringLiteral("45s"));     // start - submit
    QCOMPARE(cell(model, 106, JobTableModel::Wait), QStringLiteral("2d 7h"));
    QCOMPARE(cell(model, 101, JobTableModel::Eta), QStringLiteral("in 12m"));
    QCOMPARE(cell(model, 106, JobTableModel::Eta), QStringLiteral("now"));
    QCOMPARE(cell(model, 103, JobTableModel::Eta), QString());
    QCOMPARE(cell(model, 102, JobTableModel::QueuePosition), QString());
    QCOMPARE(cell(model, 103, JobTableModel::QueuePosition), QStringLiteral("2"));
    QCOMPARE(cell(model, 102, JobTableModel::Reason),
             QStringLiteral("inf-01/4 [3g.40gb@0], inf-01/5 [3g.40gb@4]"));
    QCOMPARE(cell(model, 104, JobTableModel::Reason), QStringLiteral("pod-a-01/0-3"));
    QCOMPARE(cell(model, 103, JobTableModel::State), QStringLiteral("pending"));
    QCOMPARE(cell(model, 103, JobTableModel::Workload), QStringLiteral("interactive"));
    // The tooltip carries the whole reason and the plugin that holds the job.
    const QModelIndex r = model.index(model.rowOf(101), JobTableModel::Reason);
    QCOMPARE(r.data(Qt::ToolTipRole).toString(),
             QStringLiteral("the gang needs 4 nodes with 8 free GPUs in one NVLink domain; 2 fit\n"
                            "Blocked by: topology"));
    QVERIFY(!model.index(0, JobTableModel::Name).data(Qt::ToolTipRole).isValid());
  }

  void durations_data() {
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("negative") << qint64{-5} << "0s";
    QTest::newRow("0") << qint64{0} << "0s";
    QTest::newRow("59") << qint64{59} << "59s";
    QTest::newRow("60") << qint64{60} << "1m";
    QTest::newRow("3599") << qint64{3599} << "59m";
    QTest::newRow("3600") << qint64{3600} << "1h 00m";
    QTest::newRow("3h5m") << qint64{3 * 3600 + 5 * 60 + 9} << "3h 05m";
    QTest::newRow("1d") << qint64{86400} << "1d 0h";
    QTest::newRow("2d4h") << qint64{2 * 86400 + 4 * 3600 + 59} << "2d 4h";
  }

  void durations() {
    QFETCH(qint64, seconds);
    QFETCH(QString, text);
    QCOMPARE(JobTableModel::durationText(seconds), text);
  }

  void sortValues() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    auto sortOf = [&](JobId id, int col) {
      return model.index(model.rowOf(id), col).data(JobTableModel::SortRole);
    };
    QCOMPARE(sortOf(101, JobTableModel::Wait).toLongLong(), qint64{3725});
    QCOMPARE(sortOf(101, JobTableModel::Request).toDouble(), 32.0);
    QCOMPARE(sortOf(103, JobTableModel::Request).toDouble(), 0.25);
    QCOMPARE(sortOf(101, JobTableModel::PriorityClass).toInt(), 900);
    QCOMPARE(sortOf(101, JobTableModel::Eta).toLongLong(), kNow + 720);
    QCOMPARE(sortOf(101, JobTableModel::Id).toULongLong(), JobId{101});
    // Jobs outside the queue sort after every queued one.
    QVERIFY(sortOf(102, JobTableModel::QueuePosition).toInt() >
            sortOf(106, JobTableModel::QueuePosition).toInt());
    QVERIFY(sortOf(103, JobTableModel::Eta).toLongLong() >
            sortOf(101, JobTableModel::Eta).toLongLong());

    JobFilterProxy byRequest;
    byRequest.setSourceModel(&model);
    byRequest.sort(JobTableModel::Request, Qt::DescendingOrder);
    QCOMPARE(idsOf(byRequest).front(), JobId{106});  // 8 x 8 GPUs
    QCOMPARE(idsOf(byRequest).back(), JobId{107});   // no GPU
    byRequest.sort(JobTableModel::QueuePosition);
    const auto ids = idsOf(byRequest);
    QCOMPARE((std::vector<JobId>(ids.begin(), ids.begin() + 3)),
             (std::vector<JobId>{101, 103, 106}));
  }

  void headers() {
    JobTableModel model;
    QCOMPARE(model.columnCount(), 13);
    const QStringList expected{
        "Job",   "Name", "Team",  "Priority", "Workload",           "Tasks",    "Request",
        "State", "Wait", "Queue", "ETA",      "Reason / placement", "Slurm job"};
    for (int c = 0; c < model.columnCount(); ++c)
      QCOMPARE(model.headerData(c, Qt::Horizontal).toString(), expected[c]);
    QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
    QVERIFY(!model.headerData(JobTableModel::ColumnCount, Qt::Horizontal).isValid());
    QVERIFY(!model.data(model.index(0, 0)).isValid());  // no rows yet
  }

  // ---- drag to move in the queue ------------------------------------------------------------

  void dragFlagsAndMime() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    const QModelIndex pendingRow = model.index(model.rowOf(103), JobTableModel::Name);
    const QModelIndex runningRow = model.index(model.rowOf(102), JobTableModel::Name);
    QVERIFY(model.flags(pendingRow).testFlag(Qt::ItemIsDragEnabled));
    QVERIFY(model.flags(pendingRow).testFlag(Qt::ItemIsDropEnabled));
    QVERIFY(!model.flags(runningRow).testFlag(Qt::ItemIsDragEnabled));
    QVERIFY(!model.flags(runningRow).testFlag(Qt::ItemIsDropEnabled));
    QVERIFY(model.flags({}).testFlag(Qt::ItemIsDropEnabled));
    QCOMPARE(model.mimeTypes(), QStringList{QStringLiteral("application/x-tessera-job")});
    QCOMPARE(model.supportedDropActions(), Qt::DropActions(Qt::MoveAction));

    std::unique_ptr<QMimeData> d(model.mimeData({runningRow, pendingRow}));
    QVERIFY(d);
    QVERIFY(d->hasFormat(QStringLiteral("application/x-tessera-job")));
    QCOMPARE(d->data(QStringLiteral("application/x-tessera-job")), QByteArray("103"));
    QVERIFY(!model.mimeData({runningRow}));  // running jobs do not move
  }

  void dropEmitsMoveRequested() {
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    QSignalSpy spy(&model, &JobTableModel::moveRequested);
    const auto d = jobMime("106");
    const int row101 = model.rowOf(101);
    // Onto a row: ahead of that job.
    QVERIFY(model.dropMimeData(d.get(), Qt::MoveAction, -1, -1, model.index(row101, 3)));
    // Between rows: ahead of the row below the drop.
    QVERIFY(model.dropMimeData(d.get(), Qt::MoveAction, model.rowOf(103), 0, {}));
    // Past the last row or on empty space: to the bottom.
    QVERIFY(model.dropMimeData(d.get(), Qt::MoveAction, model.rowCount(), 0, {}));
    QVERIFY(model.dropMimeData(d.get(), Qt::MoveAction, -1, -1, {}));
    QCOMPARE(spy.count(), 4);
    const std::vector<std::pair<JobId, JobId>> expected{{106, 101}, {106, 103}, {106, 0}, {106, 0}};
    for (size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(spy[static_cast<int>(i)][0].value<JobId>(), expected[i].first);
      QCOMPARE(spy[static_cast<int>(i)][1].value<JobId>(), expected[i].second);
    }
    QCOMPARE(idsOf(model).front(), JobId{101});  // the model did not reorder itself

    // Refused: onto a running job, itself, a running or unknown job dragged, other formats,
    // copies.
    spy.clear();
    QVERIFY(!model.dropMimeData(d.get(), Qt::MoveAction, -1, -1, model.index(model.rowOf(102), 0)));
    QVERIFY(!model.dropMimeData(d.get(), Qt::MoveAction, -1, -1, model.index(model.rowOf(106), 0)));
    QVERIFY(!model.dropMimeData(jobMime("102").get(), Qt::MoveAction, -1, -1, {}));
    QVERIFY(!model.dropMimeData(jobMime("999").get(), Qt::MoveAction, -1, -1, {}));
    QVERIFY(!model.dropMimeData(jobMime("abc").get(), Qt::MoveAction, -1, -1, {}));
    QMimeData text;
    text.setText(QStringLiteral("106"));
    QVERIFY(!model.dropMimeData(&text, Qt::MoveAction, -1, -1, {}));
    QVERIFY(!model.dropMimeData(d.get(), Qt::CopyAction, -1, -1, {}));
    QVERIFY(!model.dropMimeData(nullptr, Qt::MoveAction, -1, -1, {}));
    QVERIFY(
        !model.canDropMimeData(d.get(), Qt::MoveAction, -1, -1, model.index(model.rowOf(102), 0)));
    QVERIFY(model.canDropMimeData(d.get(), Qt::MoveAction, -1, -1, model.index(row101, 0)));
    QCOMPARE(spy.count(), 0);
  }

  void dragThroughPendingView() {
    JobTableModel model;
    JobFilterProxy pending;
    pending.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    pending.sort(JobTableModel::QueuePosition);
    model.setJobs(fixture(), kNow);
    QCOMPARE(idsOf(pending), (std::vector<JobId>{101, 103, 106}));
    QSignalSpy spy(&model, &JobTableModel::moveRequested);
    // Drag the third job of the view onto the first, as a view would call it.
    std::unique_ptr<QMimeData> d(pending.mimeData({pending.index(2, 0)}));
    QVERIFY(d);
    QCOMPARE(d->data(JobTableModel::mimeType()), QByteArray("106"));
    QVERIFY(pending.dropMimeData(d.get(), Qt::MoveAction, -1, -1, pending.index(0, 0)));
    QVERIFY(pending.dropMimeData(d.get(), Qt::MoveAction, pending.rowCount(), 0, {}));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy[0][0].value<JobId>(), JobId{106});
    QCOMPARE(spy[0][1].value<JobId>(), JobId{101});
    QCOMPARE(spy[1][1].value<JobId>(), JobId{0});
  }

  // ---- filter proxy -------------------------------------------------------------------------

  void filterByStateTeamText_data() {
    QTest::addColumn<int>("state");
    QTest::addColumn<QString>("team");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<quint64>>("ids");
    QTest::newRow("all") << int(StateFilter::All) << QString() << QString()
                         << QList<quint64>{101, 102, 103, 104, 105, 106, 107};
    QTest::newRow("pending") << int(StateFilter::Pending) << QString() << QString()
                             << QList<quint64>{101, 103, 106};
    QTest::newRow("running") << int(StateFilter::Running) << QString() << QString()
                             << QList<quint64>{102, 104};
    QTest::newRow("active") << int(StateFilter::Active) << QString() << QString()
                            << QList<quint64>{101, 102, 103, 104, 106};
    QTest::newRow("finished") << int(StateFilter::Finished) << QString() << QString()
                              << QList<quint64>{105, 107};
    QTest::newRow("team vision") << int(StateFilter::All) << "vision" << QString()
                                 << QList<quint64>{103, 104};
    QTest::newRow("pending nlp") << int(StateFilter::Pending) << "nlp" << QString()
                                 << QList<quint64>{101};
    QTest::newRow("text name") << int(StateFilter::All) << QString() << "SERVE"
                               << QList<quint64>{102};
    QTest::newRow("text id") << int(StateFilter::All) << QString() << "104" << QList<quint64>{104};
    QTest::newRow("text team") << int(StateFilter::All) << QString() << " search "
                               << QList<quint64>{102, 106};
    QTest::newRow("text and state")
        << int(StateFilter::Running) << QString() << "sea" << QList<quint64>{102};
    QTest::newRow("nothing") << int(StateFilter::All) << "nlp"
                             << "vision" << QList<quint64>{};
  }

  void filterByStateTeamText() {
    QFETCH(int, state);
    QFETCH(QString, team);
    QFETCH(QString, text);
    QFETCH(QList<quint64>, ids);
    JobTableModel model;
    model.setJobs(fixture(), kNow);
    JobFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setStateFilter(static_cast<StateFilter>(state));
    proxy.setTeamFilter(team);
    proxy.setSearchText(text);
    proxy.sort(JobTableModel::Id);
    std::vector<JobId> expected(ids.begin(), ids.end());
    QCOMPARE(idsOf(proxy), expected);
  }

  void filterFollowsUpdates() {
    JobTableModel model;
    JobFilterProxy pending, running;
    for (auto* p : {&pending, &running}) p->setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    running.setStateFilter(StateFilter::Running);
    auto jobs = fixture();
    model.setJobs(jobs, kNow);
    QCOMPARE(pending.rowCount(), 3);
    QCOMPARE(running.rowCount(), 2);
    find(jobs, 103)->row.state = JobState::Running;
    find(jobs, 103)->row.startTime = kNow;
    model.setJobs(jobs, kNow + 1);
    QCOMPARE(idSet(pending), (std::set<JobId>{101, 106}));
    QCOMPARE(idSet(running), (std::set<JobId>{102, 103, 104}));
    pending.setStateFilter(StateFilter::All);
    pending.setTeamFilter(QStringLiteral("vision"));
    QCOMPARE(pending.teamFilter(), QStringLiteral("vision"));
    QCOMPARE(idSet(pending), (std::set<JobId>{103, 104}));
  }

  // ---- a real engine's answers --------------------------------------------------------------

  void demoBackendJobs() {
    QTemporaryDir dir;
    BackendConfig c;
    c.database = dir.filePath(QStringLiteral("queue.db")).toStdString();
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.runCycles = false;
    c.clock = [] { return Seconds{5000}; };
    auto opened = Backend::open(c);
    QVERIFY2(opened, opened ? "" : opened.error().str().c_str());
    Backend& b = **opened;
    std::vector<Job> submit = demoWorkload()->jobs;
    for (Job& j : submit) j.id = kNoJob;
    // A job that waits for good, so both views have rows.
    Job big = test::demoJobThatWaits();
    submit.push_back(big);
    test::ok(test::await<std::vector<JobId>>(
        [&](auto r) { b.submit(submit, Caller{}, std::nullopt, r); }));
    test::ok(test::await<CycleStats>([&](auto r) { b.cycleNow(r); }));
    JobFilter f;
    f.activeOnly = true;
    f.limit = 10000;
    const JobPage page = test::ok(test::await<JobPage>([&](auto r) { b.jobs(f, r); }));
    QCOMPARE(page.jobs.size(), submit.size());

    JobTableModel model;
    JobFilterProxy pending, running;
    QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester t2(&pending, QAbstractItemModelTester::FailureReportingMode::Fatal);
    pending.setSourceModel(&model);
    running.setSourceModel(&model);
    pending.setStateFilter(StateFilter::Pending);
    running.setStateFilter(StateFilter::Running);
    pending.sort(JobTableModel::QueuePosition);
    model.setJobs(page.jobs, 5000);
    QCOMPARE(model.rowCount(), static_cast<int>(page.jobs.size()));
    QVERIFY(pending.rowCount() > 0);
    QVERIFY(running.rowCount() > 0);
    QCOMPARE(pending.rowCount() + running.rowCount(), model.rowCount());
    // The pending view in queue order: 1, 2, 3, ...
    for (int r = 0; r < pending.rowCount(); ++r)
      QCOMPARE(pending.index(r, JobTableModel::QueuePosition).data().toString(),
               QString::number(r + 1));
    for (int r = 0; r < running.rowCount(); ++r) {
      const QString where = running.index(r, JobTableModel::Reason).data().toString();
      QVERIFY2(where.contains(QLatin1Char('/')), qPrintable(where));  // "node/gpus"
    }

    // The first pending job explained: the inspector shows the engine's words.
    const JobId first = pending.index(0, 0).data(JobTableModel::JobIdRole).toULongLong();
    const Explanation x =
        test::ok(test::await<Explanation>([&](auto r) { b.explainJob(first, r); }));
    JobInspector w;
    w.setNow(5000);
    w.setExplanation(x);
    QCOMPARE(child<QLabel>(w, "reason")->text(),
             QString::fromStdString(x.dominantReason.english()));
    QVERIFY(!x.dominantReason.empty());
    QCOMPARE(w.job(), first);
    QVERIFY(child<QLabel>(w, "queue")->text().startsWith(QStringLiteral("Queue position 1 of ")));
    b.stop();
  }

  // ---- the inspector ------------------------------------------------------------------------

  void inspectorGolden() {
    JobInspector w;
    w.setPriorityClasses({QStringLiteral("serving"), QStringLiteral("experiment")});
    w.setNow(kNow);
    w.setExplanation(explanationFixture());
    QVERIFY(matchesGolden(QStringLiteral("job_inspector.txt"), dumpInspector(w)));
  }

  void inspectorShowsExplanation() {
    JobInspector w;
    const Explanation x = explanationFixture();
    w.setExplanation(x);
    QCOMPARE(child<QLabel>(w, "reason")->text(),
             QString::fromStdString(x.dominantReason.english()));
    // Larger than the body text: it is what the operator came for.
    QVERIFY(child<QLabel>(w, "reason")->font().pointSizeF() >
            child<QLabel>(w, "summary")->font().pointSizeF());
    QCOMPARE(
        JobInspector::rejectionLines(x.filter),
        (QStringList{"40 not enough free GPUs", "12 pool mismatch", "8 GPU model not allowed"}));
    QCOMPARE(child<QLabel>(w, "summary")->text(), QStringLiteral("2 of 62 nodes fit"));
    // Without setNow the ETA is absolute; with it, relative.
    QCOMPARE(child<QLabel>(w, "queue")->text(),
             QStringLiteral("Queue position 3 of 41 \u00b7 ETA at 10720 s"));
    w.setNow(kNow);
    QCOMPARE(child<QLabel>(w, "queue")->text(),
             QStringLiteral("Queue position 3 of 41 \u00b7 ETA in 12m"));
    QVERIFY(child<QLabel>(w, "blockers")->text().contains(QStringLiteral("r&amp;d")));
    QCOMPARE(child<QListWidget>(w, "history")->count(), 2);
    QVERIFY(child<QLabel>(w, "placement")->isHidden());

    // The engine's summary stands in when it gave no counts.
    Explanation plain = x;
    plain.filter = {};
    w.setExplanation(plain);
    QCOMPARE(child<QLabel>(w, "summary")->text(), QString::fromStdString(x.nodeSummary.english()));
    QVERIFY(child<QLabel>(w, "rejections")->isHidden());
  }

  // On a Slurm cluster: Slurm's job id in its column (sorted by number), and Slurm's state and
  // reason beside Tessera's in the Reason column only where they disagree (Tessera holds its
  // pending jobs in Slurm, so a pending job held there is Slurm agreeing).
  void slurmBesideTessera() {
    JobTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::vector<JobInfo> jobs = fixture();
    find(jobs, 102)->external = ExternalJob{"4713", "PENDING", "Resources", {}};  // not started
    find(jobs, 103)->external = ExternalJob{"4714", "PENDING", "BadConstraints", {}};
    model.setJobs(jobs, kNow);
    QCOMPARE(cell(model, 101, JobTableModel::ClusterJob),
             QStringLiteral("4711 PENDING: JobHeldUser"));
    QCOMPARE(cell(model, 101, JobTableModel::Reason),
             QStringLiteral("the gang needs 4 nodes with 8 free GPUs in one NVLink domain; 2 fit"));
    QCOMPARE(cell(model, 104, JobTableModel::Reason), QStringLiteral("pod-a-01/0-3"));
    QCOMPARE(cell(model, 102, JobTableModel::Reason),
             QStringLiteral("inf-01/4 [3g.40gb@0], inf-01/5 [3g.40gb@4] \u00b7 Slurm PENDING: "
                            "Resources"));
    QVERIFY(cell(model, 103, JobTableModel::Reason)
                .endsWith(QStringLiteral(" \u00b7 Slurm PENDING: BadConstraints")));
    // Slurm ids sort as numbers: 4711 before 4712 before 4713 before 4714, jobs without last.
    const int col = JobTableModel::ClusterJob;
    auto sortKey = [&](JobId id) {
      return model.index(model.rowOf(id), col).data(JobTableModel::SortRole);
    };
    QVERIFY(sortKey(101).toLongLong() < sortKey(104).toLongLong());
    QVERIFY(sortKey(104).toLongLong() < sortKey(103).toLongLong());
    QVERIFY(sortKey(103).toLongLong() < sortKey(105).toLongLong());

    // The inspector gives the selected job's Slurm side, and says when it is not Tessera's.
    JobInspector w;
    w.setClusterJobs(jobs);
    Explanation x = explanationFixture();
    w.setExplanation(x);
    QCOMPARE(child<QLabel>(w, "clusterJob")->text(),
             QStringLiteral("Slurm job 4711: PENDING: JobHeldUser"));
    x.job = 102;
    x.state = JobState::Running;
    w.setExplanation(x);
    QCOMPARE(
        child<QLabel>(w, "clusterJob")->text(),
        QStringLiteral("Slurm job 4713: PENDING: Resources\nSlurm differs from Tessera's state "
                       "(running)"));
    // A refresh that sees Slurm start it updates the panel; a job without a Slurm job shows none.
    find(jobs, 102)->external->state = "RUNNING";
    find(jobs, 102)->external->reason = "None";
    w.setClusterJobs(jobs);
    QCOMPARE(child<QLabel>(w, "clusterJob")->text(), QStringLiteral("Slurm job 4713: RUNNING"));
    x.job = 106;
    w.setExplanation(x);
    QVERIFY(child<QLabel>(w, "clusterJob")->isHidden());
  }

  // The inspector shows the limits an MPS job's server enforces, in the variables MPS reads; a
  // job of another kind shows none, and the line follows the job lists.
  void inspectorShowsEnforcedMpsLimits() {
    GpuRequest mps;
    mps.kind = GpuRequest::Kind::Mps;
    mps.mpsThreads = 25;
    mps.vramMiB = 8192;
    std::vector<JobInfo> jobs{makeJob(101, "notebook", "search", "dev", 10,
                                      WorkloadClass::Interactive, 1, mps, JobState::Running, 100),
                              makeJob(102, "train", "search", "dev", 10, WorkloadClass::Training, 1,
                                      whole(1), JobState::Running, 100)};
    JobInspector w;
    w.setClusterJobs(jobs);
    Explanation x = explanationFixture();
    w.setExplanation(x);
    auto* limits = child<QLabel>(w, "mpsLimits");
    QVERIFY(!limits->isHidden());
    QCOMPARE(limits->text(),
             QStringLiteral("MPS limits per task: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25, "
                            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M"));
    x.job = 102;
    w.setExplanation(x);
    QVERIFY(limits->isHidden());
    // A refresh that no longer lists the MPS job drops its line.
    x.job = 101;
    w.setExplanation(x);
    jobs.erase(jobs.begin());
    w.setClusterJobs(jobs);
    QVERIFY(limits->isHidden());
    w.clear();
    QVERIFY(limits->isHidden());
  }

  void inspectorLinksEmitSignals() {
    JobInspector w;
    w.setExplanation(explanationFixture());
    QSignalSpy jobs(&w, &JobInspector::jobActivated);
    QSignalSpy suggestions(&w, &JobInspector::suggestionActivated);
    auto* blockers = child<QLabel>(w, "blockers");
    auto* sugg = child<QLabel>(w, "suggestions");
    QVERIFY(blockers->text().contains(QStringLiteral("href=\"job:23\"")));
    QVERIFY(sugg->text().contains(QStringLiteral("href=\"suggest:1\"")));
    // What a click on the link does: QLabel emits linkActivated with the href.
    emit blockers->linkActivated(QStringLiteral("job:23"));
    QCOMPARE(jobs.count(), 1);
    QCOMPARE(jobs[0][0].value<JobId>(), JobId{23});
    emit sugg->linkActivated(QStringLiteral("suggest:1"));
    QCOMPARE(suggestions.count(), 1);
    const auto c = suggestions[0][0].value<Counterfactual>();
    QCOMPARE(c.kind, Counterfactual::Kind::Repartition);
    QCOMPARE(c.text.english(), std::string("would start now if inf-01/4 were repartitioned"));
    // Out of range or malformed links are ignored.
    emit sugg->linkActivated(QStringLiteral("suggest:9"));
    emit sugg->linkActivated(QStringLiteral("suggest:x"));
    emit blockers->linkActivated(QStringLiteral("http://example.com"));
    QCOMPARE(suggestions.count(), 1);
    QCOMPARE(jobs.count(), 1);
  }

  void inspectorActionsEmitSignals() {
    JobInspector w;
    QSignalSpy actions(&w, &JobInspector::actionRequested);
    // Nothing shown: nothing to act on.
    QVERIFY(!child<QPushButton>(w, "cancel")->isEnabled());
    w.setPriorityClasses({QStringLiteral("serving"), QStringLiteral("experiment")});
    w.setExplanation(explanationFixture());
    QTest::mouseClick(child<QPushButton>(w, "hold"), Qt::LeftButton);
    child<QComboBox>(w, "priorityClass")->setCurrentIndex(1);
    QTest::mouseClick(child<QPushButton>(w, "setPriority"), Qt::LeftButton);
    QCOMPARE(actions.count(), 2);
    QCOMPARE(actions[0][0].value<JobId>(), JobId{101});
    QCOMPARE(actions[0][1].value<JobAction>(), JobAction::Hold);
    QCOMPARE(actions[0][2].toString(), QString());
    QCOMPARE(actions[1][1].value<JobAction>(), JobAction::SetPriority);
    QCOMPARE(actions[1][2].toString(), QStringLiteral("experiment"));
    QVERIFY(!child<QPushButton>(w, "preempt")->isEnabled());

    // A running job: preempt, not hold.
    Explanation running = explanationFixture();
    running.state = JobState::Running;
    running.placement = literal("pod-a-01/0-7");
    w.setExplanation(running);
    QVERIFY(child<QPushButton>(w, "preempt")->isEnabled());
    QVERIFY(!child<QPushButton>(w, "hold")->isEnabled());
    QCOMPARE(child<QLabel>(w, "placement")->text(), QStringLiteral("Placed on pod-a-01/0-7"));
    QTest::mouseClick(child<QPushButton>(w, "preempt"), Qt::LeftButton);
    QCOMPARE(actions.count(), 3);
    QCOMPARE(actions[2][1].value<JobAction>(), JobAction::Preempt);

    w.clear();
    QCOMPARE(w.job(), kNoJob);
    QCOMPARE(child<QLabel>(w, "title")->text(), QStringLiteral("No job selected"));
    QVERIFY(child<QLabel>(w, "reason")->isHidden());
    for (const char* b : {"hold", "release", "preempt", "cancel", "setPriority"})
      QVERIFY2(!child<QPushButton>(w, b)->isEnabled(), b);
    QCOMPARE(child<QListWidget>(w, "history")->count(), 0);
  }
};

QTEST_MAIN(TstJobTableModel)
#include "tst_job_table_model.moc"
