// Node filter: which demo nodes can host a task, and the per-cause rejection counts.
// Expected numbers come from reading resources/demo-cluster.yaml (see the comments per case).
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "scheduler/node_filter.h"

using namespace tessera;

namespace {

Job wholeGpuJob(int tasks, int gpus) {
  Job j;
  j.id = 1;
  j.tasks = tasks;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = gpus;
  return j;
}

int tasksOn(const NodeFilterResult& r, const Cluster& c, const char* node) {
  for (auto [id, tasks] : r.fits)
    if (c.node(id).name == node) return tasks;
  return 0;
}

}  // namespace

class TstNodeFilter : public QObject {
  Q_OBJECT

 private slots:
  void reasonsOnTheDemoCluster() {
    ClusterState s(demoCluster());
    Job j = wholeGpuJob(2, 8);
    j.pool = "training";
    j.model.models = {"H100-SXM5-80GB"};
    const NodeFilterResult r = filterNodes(s, j);
    // 16 DGX H100 minus pod-a-07 (draining) fit; pod-a-07 and pod-b-12 (down) are not up;
    // inference (6) and dev (10) nodes are in other pools; 11 H200 + 18 GB200 nodes have other
    // models.
    QCOMPARE(r.fittingNodes(), 15);
    QCOMPARE(r.rejected[size_t(NodeReject::NodeNotUp)], 2);
    QCOMPARE(r.rejected[size_t(NodeReject::PoolMismatch)], 16);
    QCOMPARE(r.rejected[size_t(NodeReject::GpuModelMismatch)], 29);
    QCOMPARE(QString::fromStdString(r.summary().english()),
             QString("15/62 nodes fit; 29 GPU model not allowed, 16 pool mismatch, 2 node not up"));
    QCOMPARE(tasksOn(r, s.cluster(), "pod-a-01"), 1);
  }

  void occupiedGpusAreCounted() {
    ClusterState s(demoCluster());
    const Node& n = *s.cluster().findNode("pod-a-01");
    for (int i = 0; i < 3; ++i) QVERIFY(s.takeWholeGpu(n.firstGpu + static_cast<GpuId>(i), 9).ok());
    Job j = wholeGpuJob(4, 2);
    j.model.models = {"H100-SXM5-80GB"};
    NodeFilterResult r = filterNodes(s, j);
    QCOMPARE(tasksOn(r, s.cluster(), "pod-a-01"), 2);  // 5 free GPUs hold two 2-GPU tasks
    QCOMPARE(tasksOn(r, s.cluster(), "pod-a-02"), 4);  // capped at the job's 4 tasks
    j = wholeGpuJob(1, 8);
    j.model.models = {"H100-SXM5-80GB"};
    r = filterNodes(s, j);
    QCOMPARE(r.rejected[size_t(NodeReject::NotEnoughFreeGpus)], 1);
  }

  void migRequestsCountIdleAndCreatableInstances() {
    ClusterState s(demoCluster());
    Job j;
    j.id = 2;
    j.tasks = 10;
    j.perTask.kind = GpuRequest::Kind::Mig;
    j.perTask.migProfile = "3g.40gb";
    j.pool = "inference";
    const NodeFilterResult r = filterNodes(s, j);
    // Per inf node: GPUs 0-1 hold an idle 3g.40gb@4 each (slots 0-3 are taken by 2g+1g+1g),
    // GPUs 4-5 two idle 3g.40gb each; the 7 x 1g and 4g+1g.20gb+1g+me GPUs have no room.
    QCOMPARE(r.fittingNodes(), 6);
    for (auto [id, tasks] : r.fits) QCOMPARE(tasks, 6);
    // Taking one instance on inf-01 leaves five there.
    const Gpu* g = s.cluster().findGpu("inf-01/4");
    QVERIFY(
        s.takeMigInstance(g->id, s.cluster().modelOf(g->id).mig->profileIndex("3g.40gb"), 77, false)
            .ok());
    QCOMPARE(tasksOn(filterNodes(s, j), s.cluster(), "inf-01"), 5);
    j.perTask.migProfile = "7g.80gb";
    const NodeFilterResult none = filterNodes(s, j);
    QCOMPARE(none.fittingNodes(), 0);
    QCOMPARE(none.rejected[size_t(NodeReject::NoMigSlot)], 6);
    j.pool.clear();  // the other nodes have no MIG GPU at all, which is a different reason
    QCOMPARE(filterNodes(s, j).rejected[size_t(NodeReject::NoMigGpu)], 54);
  }

  void fractionsNeedATimeSlicedGpuWithRoom() {
    ClusterState s(demoCluster());
    Job j;
    j.id = 3;
    j.tasks = 8;
    j.perTask.kind = GpuRequest::Kind::Fraction;
    j.perTask.milli = 500;
    j.perTask.vramMiB = 10000;
    j.pool = "dev";
    NodeFilterResult r = filterNodes(s, j);
    QCOMPARE(r.fittingNodes(), 10);
    QCOMPARE(tasksOn(r, s.cluster(), "dev-l40s-01"), 4);  // GPUs 4-7 time-sliced
    QCOMPARE(tasksOn(r, s.cluster(), "dev-l4-01"), 4);    // GPUs 0-3 time-sliced
    j.perTask.vramMiB = 30000;  // more than an L4 has (23034 MiB), less than an L40S (46068)
    r = filterNodes(s, j);
    QCOMPARE(r.fittingNodes(), 2);
    QCOMPARE(r.rejected[size_t(NodeReject::GpuMemoryTooSmall)], 8);
  }

  // DGX H100 nodes have 224 CPUs and 2 TiB: a 2-GPU task asking for 120 CPUs fits once per node
  // (GPUs would allow 4), and one asking for 300 CPUs fits nowhere.
  void cpusAndMemoryLimitTasks() {
    ClusterState s(demoCluster());
    Job j = wholeGpuJob(4, 2);
    j.model.models = {"H100-SXM5-80GB"};
    j.cpusPerTask = 120;
    NodeFilterResult r = filterNodes(s, j);
    QCOMPARE(tasksOn(r, s.cluster(), "pod-a-01"), 1);
    j.cpusPerTask = 300;
    r = filterNodes(s, j);
    QCOMPARE(r.rejected[size_t(NodeReject::NotEnoughCpu)], 15);
    j.cpusPerTask = 8;
    j.memoryMiBPerTask = 3000LL * 1024;
    r = filterNodes(s, j);
    QCOMPARE(r.rejected[size_t(NodeReject::NotEnoughMemory)], 15);
    QVERIFY(QString::fromStdString(r.summary().english()).contains("15 not enough free memory"));
  }

  void minimumGpuMemory() {
    ClusterState s(demoCluster());
    Job j = wholeGpuJob(1, 1);
    j.model.minMemoryMiB = 100 * 1024;  // only H200 (141 GB) and GB200 qualify
    const NodeFilterResult r = filterNodes(s, j);
    QCOMPARE(r.fittingNodes(), 11 + 18);
    QCOMPARE(r.rejected[size_t(NodeReject::GpuMemoryTooSmall)], 15 + 6 + 10);
  }
};

QTEST_APPLESS_MAIN(TstNodeFilter)
#include "tst_node_filter.moc"
