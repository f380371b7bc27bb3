// The console's Overview model over a hand-made snapshot and job list: checked by
// QAbstractItemModelTester through every update, and for its figures - capacity and the gap,
// pending jobs grouped by their reason's kind (other numbers, same row; the clause a reason
// starts with decides), free GPUs no job can use by cause, the largest idle allocation, nodes out
// with their reason, the executor.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "core/engine_text.h"
#include "overview_model.h"

using namespace tessera;
using widgets::OverviewModel;

namespace {

GpuView gpu(int index, double allocated, std::optional<double> util, JobId job = kNoJob) {
  GpuView g;
  g.index = index;
  g.allocated = allocated;
  g.util = util;
  g.smActive = util;
  if (job != kNoJob)
    g.occupants.push_back({job, static_cast<int>(allocated * 1000), {}, "nlp", -1});
  return g;
}

// Node a (up): GPU 0 held by job 7 and idle (2 %), GPU 1 held by job 8 and busy (70 %), GPUs
// 2-3 free. Node b (down, "psu"): two free GPUs. Node c (draining): GPU 0 faulted, GPU 1 free.
ClusterSnapshot snapshot() {
  ClusterSnapshot s;
  s.now = 1000;
  NodeView a{"a", "up", {}, "p", "l", "s", {}, {}};
  a.gpus = {gpu(0, 1, 0.02, 7), gpu(1, 1, 0.7, 8), gpu(2, 0, 0), gpu(3, 0, 0)};
  NodeView b{"b", "down", literal("psu"), "p", "l", "s", {}, {}};
  b.gpus = {gpu(0, 0, std::nullopt), gpu(1, 0, std::nullopt)};
  NodeView c{"c", "draining", literal("Xid 79"), "p", "l", "s", {}, {}};
  c.gpus = {gpu(0, 0, std::nullopt), gpu(1, 0, std::nullopt)};
  c.gpus[0].fault = GpuView::Fault{79, "fallen off the bus", 900, std::nullopt};
  s.nodes = {a, b, c};
  s.gpusTotal = 8;
  s.gpusAllocated = 2;
  return s;
}

JobInfo pending(JobId id, Text reason) {
  JobInfo j;
  j.row.job.id = id;
  j.row.state = JobState::Pending;
  j.row.reason = std::move(reason);
  return j;
}

// The figure labelled `label` in `section`, or "" when there is none.
QString value(const OverviewModel& m, OverviewModel::Section section, const QString& label) {
  const QModelIndex parent = m.index(section, 0);
  for (int r = 0; r < m.rowCount(parent); ++r)
    if (m.index(r, 0, parent).data().toString() == label)
      return m.index(r, 1, parent).data().toString();
  return {};
}

}  // namespace

class TstOverviewModel : public QObject {
  Q_OBJECT

 private slots:
  void figuresFromTheSnapshotAndJobs() {
    OverviewModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(snapshot());
    model.setJobs(
        {pending(1, phrase(text::kQuotaUses, "nlp", "8", "8", "H100")),
         pending(2, clauseList({phrase(text::kQuotaUses, "cv", "2", "4", "A100"),
                                literal("something else")})),
         pending(3, phrase(text::kHeld)),
         pending(4, phrase(text::kQuotaBorrowLimit,
                           phrase(text::kQuotaUses, "llm", "8", "8", "H100"), "4", "8"))});

    QCOMPARE(model.rowCount(), int(OverviewModel::SectionCount));
    QCOMPARE(value(model, OverviewModel::Capacity, "GPUs"), QString("8"));
    QCOMPARE(value(model, OverviewModel::Capacity, "Allocated"), QString("2.0 GPUs (25 %)"));
    // Busy: 0.02 + 0.7 of the two held GPUs; the gap is what is held and not busy.
    QCOMPARE(value(model, OverviewModel::Capacity, "Busy"), QString("0.7 GPUs (9 %)"));
    QCOMPARE(value(model, OverviewModel::Capacity, "Allocated but idle (gap)"),
             QString("1.3 GPUs (16 %)"));

    // Three quota sentences with other numbers, one extended with what the team may borrow, are
    // one row (the larger first), the hold another; each row carries the kind the queue is
    // filtered by.
    const QModelIndex reasons = model.index(OverviewModel::Pending, 0);
    QCOMPARE(model.rowCount(reasons), 2);
    QCOMPARE(model.index(0, 0, reasons).data().toString(),
             QString("team … uses … of its … guaranteed … GPUs"));
    QCOMPARE(model.index(0, 1, reasons).data().toString(), QString("3"));
    QCOMPARE(model.index(0, 0, reasons).data(OverviewModel::ReasonKindRole).toString(),
             QString(text::kQuotaUses));
    QCOMPARE(model.index(1, 0, reasons).data().toString(), QString("held by an operator"));
    QCOMPARE(model.index(1, 1, reasons).data().toString(), QString("1"));

    // Free but unusable: node b's two GPUs, c's free GPU (draining), c's faulted GPU.
    QCOMPARE(value(model, OverviewModel::Stranded, "Free on nodes down or draining"),
             QString("3.0 GPUs"));
    QCOMPARE(value(model, OverviewModel::Stranded, "Free on faulted GPUs"), QString("1.0 GPUs"));

    // Job 7's GPU idles at 2 %; job 8's is busy.
    const QModelIndex idle = model.index(OverviewModel::Idle, 0);
    QCOMPARE(model.rowCount(idle), 1);
    QCOMPARE(model.index(0, 0, idle).data().toString(), QString("Job 7 (nlp)"));
    QCOMPARE(model.index(0, 0, idle).data(OverviewModel::JobIdRole).toULongLong(), 7ULL);

    QCOMPARE(value(model, OverviewModel::Nodes, "GPU faults"), QString("1"));
    QCOMPARE(value(model, OverviewModel::Nodes, "Nodes down"), QString("1"));
    QCOMPARE(value(model, OverviewModel::Nodes, "Nodes draining or drained"), QString("1"));
    QCOMPARE(value(model, OverviewModel::Nodes, "b"), QString("psu"));
    QCOMPARE(value(model, OverviewModel::Nodes, "c"), QString("Xid 79"));

    QCOMPARE(value(model, OverviewModel::Executor, "Executor"),
             QString("none (the engine's own simulation)"));
    ClusterSnapshot slurm = snapshot();
    slurm.executor = {"slurm", "ready", {}, 990};
    model.setSnapshot(slurm);
    QCOMPARE(value(model, OverviewModel::Executor, "Executor"), QString("slurm"));
    QCOMPARE(value(model, OverviewModel::Executor, "State"), QString("ready"));
    QVERIFY(value(model, OverviewModel::Executor, "Last sync").startsWith("10"));
  }

  // On a Slurm cluster a node can be out for Slurm (its drain, the executor's hold) and for an
  // operator at once: the row names each hold with its owner, Slurm by the executor's name.
  void nodeHoldsWithTheirOwners() {
    OverviewModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ClusterSnapshot s = snapshot();
    s.executor = {"slurm", "ready", {}, 990};
    NodeView& b = s.nodes[1];
    b.holds = {{"executor", {}, literal("NHC: ib0 down"), true, 800},
               {"operator", {}, literal("psu"), false, 900}};
    NodeView& c = s.nodes[2];
    c.holds = {{"gpu-fault", "c/0", literal("Xid 79"), false, 900}};
    model.setSnapshot(s);
    QCOMPARE(value(model, OverviewModel::Nodes, "b"),
             QString("slurm: down (NHC: ib0 down) \u00b7 operator: draining (psu)"));
    QCOMPARE(value(model, OverviewModel::Nodes, "c"),
             QString("GPU fault: draining [c/0] (Xid 79)"));
    // Without an executor the hold's owner is the role's own word.
    s.executor = {};
    model.setSnapshot(s);
    QVERIFY(value(model, OverviewModel::Nodes, "b").startsWith("executor: down"));
  }

  // Without telemetry the busy figures say so instead of showing zero.
  void noTelemetryIsNotZero() {
    OverviewModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ClusterSnapshot s = snapshot();
    for (NodeView& n : s.nodes)
      for (GpuView& g : n.gpus) g.util.reset();
    model.setSnapshot(s);
    QCOMPARE(value(model, OverviewModel::Capacity, "Busy"), QString("no telemetry"));
    QCOMPARE(value(model, OverviewModel::Capacity, "Allocated but idle (gap)"), QString());
    QCOMPARE(model.rowCount(model.index(OverviewModel::Idle, 0)), 0);
  }
};

QTEST_MAIN(TstOverviewModel)
#include "tst_overview_model.moc"
