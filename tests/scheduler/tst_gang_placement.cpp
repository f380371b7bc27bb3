// Whole-GPU gang placement on the demo cluster: tightest topology level, required vs preferred
// constraints, bin-packing across units, link-aware GPU choice, all-or-nothing.
#include <QtTest>

#include <set>

#include "clusterspec/cluster_spec.h"
#include "scheduler/gang_placement.h"

using namespace tessera;

namespace {

Job gang(JobId id, int tasks, int gpus, const char* model, TopologyLevel level, bool required) {
  Job j;
  j.id = id;
  j.tasks = tasks;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = gpus;
  if (model) j.model.models = {model};
  j.topology = {level, required};
  return j;
}

std::set<std::string> nodesOf(const Cluster& c, const GangPlacement& p) {
  std::set<std::string> out;
  for (const auto& t : p.tasks) out.insert(c.node(t.node).name);
  return out;
}

std::vector<std::string> invariants(const ClusterState& s) {
  return checkInvariants(s);
}

}  // namespace

class TstGangPlacement : public QObject {
  Q_OBJECT

 private slots:
  // One 8-GPU task fits on one DGX: the gang stays inside one node.
  void singleTaskStaysOnOneNode() {
    ClusterState s(demoCluster());
    Transaction tx(s);
    const auto r = placeGang(tx, s, gang(1, 1, 8, "H100-SXM5-80GB", TopologyLevel::Cluster, false));
    QVERIFY2(r.placement, r.reason.english().c_str());
    QCOMPARE(int(r.placement->span), int(TopologyLevel::Node));
    QCOMPARE(r.placement->tasks[0].gpus.size(), size_t{8});
  }

  // Four 8-GPU tasks cannot share an NVLink domain (each DGX is its own); the preferred level
  // degrades to one leaf, and bin-packing picks pod-a-leaf-1 (7 usable nodes: pod-a-07 drains)
  // over pod-a-leaf-2 (8 nodes) because it leaves less room unused.
  void preferredConstraintDegradesToALeaf() {
    ClusterState s(demoCluster());
    Transaction tx(s);
    const auto r =
        placeGang(tx, s, gang(2, 4, 8, "H100-SXM5-80GB", TopologyLevel::NvlinkDomain, false));
    QVERIFY2(r.placement, r.reason.english().c_str());
    QCOMPARE(int(r.placement->span), int(TopologyLevel::Leaf));
    for (const auto& name : nodesOf(s.cluster(), *r.placement)) {
      const Node& n = *s.cluster().findNode(name);
      QCOMPARE(QString::fromStdString(s.cluster().switches()[static_cast<size_t>(n.leaf)].name),
               QString("pod-a-leaf-1"));
    }
    QCOMPARE(nodesOf(s.cluster(), *r.placement).size(), size_t{4});
    QVERIFY(invariants(s).empty());
  }

  void requiredConstraintNeverDegrades() {
    ClusterState s(demoCluster());
    Transaction tx(s);
    // 2 x 8 GPUs within one node: no DGX has 16 GPUs.
    auto r = placeGang(tx, s, gang(3, 2, 8, "H100-SXM5-80GB", TopologyLevel::Node, true));
    QVERIFY(!r.placement);
    QVERIFY2(QString::fromStdString(r.reason.english())
                 .contains("within one node (required); the roomiest node has room for 1"),
             r.reason.english().c_str());
    // 10 x 8 GPUs within one leaf: the leafs have room for 7 and 8 tasks.
    r = placeGang(tx, s, gang(4, 10, 8, "H100-SXM5-80GB", TopologyLevel::Leaf, true));
    QVERIFY(!r.placement);
    QVERIFY2(QString::fromStdString(r.reason.english())
                 .contains("the roomiest leaf switch has room for 8"),
             r.reason.english().c_str());
    QCOMPARE(tx.size(), size_t{0});  // nothing taken
    // Preferred, the same gang spans the spine.
    r = placeGang(tx, s, gang(5, 10, 8, "H100-SXM5-80GB", TopologyLevel::Leaf, false));
    QVERIFY2(r.placement, r.reason.english().c_str());
    QCOMPARE(int(r.placement->span), int(TopologyLevel::Spine));
  }

  // The NVL72-style rack is one NVLink domain across 18 trays of 4 GPUs.
  void multiNodeNvlinkDomain() {
    ClusterState s(demoCluster());
    Transaction tx(s);
    const auto r = placeGang(tx, s, gang(6, 16, 4, "GB200", TopologyLevel::NvlinkDomain, true));
    QVERIFY2(r.placement, r.reason.english().c_str());
    QCOMPARE(int(r.placement->span), int(TopologyLevel::NvlinkDomain));
    QCOMPARE(r.placement->tasks.size(), size_t{16});
  }

  void notEnoughCapacityAnywhere() {
    ClusterState s(demoCluster());
    Transaction tx(s);
    const auto r =
        placeGang(tx, s, gang(7, 16, 8, "H100-SXM5-80GB", TopologyLevel::Cluster, false));
    QVERIFY(!r.placement);
    QVERIFY2(QString::fromStdString(r.reason.english()).contains("the cluster has room for 15"),
             r.reason.english().c_str());
  }

  // On the PCIe L40S node (GPUs in PIX pairs, 0-3 exclusive) a 2-GPU task gets a PIX pair.
  void gpuChoiceFollowsLinks() {
    ClusterState s(demoCluster());
    Job j = gang(8, 1, 2, "L40S", TopologyLevel::Node, true);
    j.pool = "dev";
    Transaction tx(s);
    auto first = placeGang(tx, s, j);
    QVERIFY2(first.placement, first.reason.english().c_str());
    const auto& gpus = first.placement->tasks[0].gpus;
    QCOMPARE(s.cluster().linkBetween(gpus[0], gpus[1])->kind, LinkKind::PIX);
    j.id = 9;
    auto second = placeGang(tx, s, j);
    QVERIFY(second.placement);
    const auto& more = second.placement->tasks[0].gpus;
    QCOMPARE(s.cluster().linkBetween(more[0], more[1])->kind, LinkKind::PIX);
    QVERIFY(invariants(s).empty());
  }

  // Packing: a 2-GPU task goes to the node that already has the fewest free GPUs.
  void packsOntoFullerNodes() {
    ClusterState s(demoCluster());
    const Node& n = *s.cluster().findNode("pod-a-05");
    for (int i = 0; i < 5; ++i)
      QVERIFY(s.takeWholeGpu(n.firstGpu + static_cast<GpuId>(i), 99).ok());
    Transaction tx(s);
    const auto r =
        placeGang(tx, s, gang(10, 1, 2, "H100-SXM5-80GB", TopologyLevel::Cluster, false));
    QVERIFY(r.placement);
    QCOMPARE(QString::fromStdString(s.cluster().node(r.placement->tasks[0].node).name),
             QString("pod-a-05"));
  }

  void gangTakesCpusAndMemoryPerTask() {
    ClusterState s(demoCluster());
    Job j = gang(12, 2, 4, "H100-SXM5-80GB", TopologyLevel::Node, true);
    j.cpusPerTask = 100;
    j.memoryMiBPerTask = 512 * 1024;
    Transaction tx(s);
    const auto r = placeGang(tx, s, j);
    QVERIFY2(r.placement, r.reason.english().c_str());
    const NodeId n = r.placement->tasks[0].node;
    QCOMPARE(s.freeCpus(n), 224 - 200);
    QCOMPARE(s.freeMemoryMiB(n), 2048LL * 1024 - 1024LL * 1024);
    QVERIFY(checkInvariants(s).empty());
  }

  // MIG tasks use an idle instance before creating one, and create where fragmentation grows least.
  void migTasksReuseThenCreate() {
    auto cluster = loadClusterSpec(R"(version: 1
name: mig
node_templates:
  a100: {gpu_model: A100-SXM4-80GB, gpus: 2}
fabric:
  leafs: [{name: leaf-1}]
nodes:
  - name: m1
    template: a100
    leaf: leaf-1
    gpus:
      "0": {mig: "3g.40gb@0"}
      "1": {mig: "-"}
)",
                                   "mig.yaml");
    QVERIFY(cluster.ok());
    ClusterState s(*cluster);
    Job j;
    j.id = 21;
    j.tasks = 3;
    j.perTask.kind = GpuRequest::Kind::Mig;
    j.perTask.migProfile = "3g.40gb";
    Transaction tx(s);
    const auto r = placeGang(tx, s, j);
    QVERIFY2(r.placement, r.reason.english().c_str());
    const GpuId g0 = (*cluster)->findGpu("m1/0")->id;
    const GpuId g1 = (*cluster)->findGpu("m1/1")->id;
    // Task 1: the idle 3g@0 on GPU 0; task 2: a new 3g@4 on GPU 0 (fills it, no fragmentation);
    // task 3: GPU 1.
    QCOMPARE(r.placement->tasks[0].gpus, std::vector<GpuId>{g0});
    QCOMPARE(r.placement->tasks[1].gpus, std::vector<GpuId>{g0});
    QCOMPARE(r.placement->tasks[2].gpus, std::vector<GpuId>{g1});
    QCOMPARE(s.gpu(g0).layout.size(), 2);
    QVERIFY(checkInvariants(s).empty());
    tx.discard();
    QCOMPARE(s.gpu(g0).layout.size(), 1);  // the created instance is gone again
    QCOMPARE(s.gpu(g1).layout.size(), 0);
  }

  void migTaskWithNoRoomExplainsWhy() {
    ClusterState s(demoCluster());
    Job j;
    j.id = 22;
    j.perTask.kind = GpuRequest::Kind::Mig;
    j.perTask.migProfile = "7g.80gb";
    Transaction tx(s);
    const auto r = placeGang(tx, s, j);
    QVERIFY(!r.placement);
    QVERIFY2(QString::fromStdString(r.reason.english())
                 .contains("54 no MIG GPU with the profile, 6 no free MIG slot for the profile"),
             r.reason.english().c_str());
  }

  // Shares pack: a second job's share lands on the GPU the first one already uses.
  void sharesPackOntoUsedGpus() {
    ClusterState s(demoCluster());
    Job a;
    a.id = 31;
    a.perTask.kind = GpuRequest::Kind::Fraction;
    a.perTask.milli = 300;
    a.perTask.vramMiB = 4000;
    a.pool = "dev";
    Job b = a;
    b.id = 32;
    Transaction tx(s);
    const auto ra = placeGang(tx, s, a);
    const auto rb = placeGang(tx, s, b);
    QVERIFY(ra.placement && rb.placement);
    QCOMPARE(rb.placement->tasks[0].gpus, ra.placement->tasks[0].gpus);
    QCOMPARE(s.gpu(ra.placement->tasks[0].gpus[0]).milliUsed, 600);
    QVERIFY(checkInvariants(s).empty());
  }

  void discardReleasesTheWholeGang() {
    ClusterState s(demoCluster());
    const int before = s.freeWholeGpus();
    {
      Transaction tx(s);
      const auto r = placeGang(tx, s, gang(11, 4, 8, "H100-SXM5-80GB", TopologyLevel::Leaf, true));
      QVERIFY(r.placement);
      QCOMPARE(s.freeWholeGpus(), before - 32);
    }
    QCOMPARE(s.freeWholeGpus(), before);
  }
};

QTEST_APPLESS_MAIN(TstGangPlacement)
#include "tst_gang_placement.moc"
