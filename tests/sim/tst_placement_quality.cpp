// Placement quality for `simulate compare`: MIG room for 3g and 7g instances by the real MIG
// rules, gangs inside one NVLink domain and one leaf, and a measured run that is the plain run.
// Each case's answer differs from what a naive count (free slices, same node) would give.
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "scheduler/engine.h"
#include "sim/placement_quality.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"
#include "trace_test_util.h"

using namespace tessera;
using tessera::test::traceOf;

namespace {

std::shared_ptr<const Cluster> load(const char* yaml) {
  auto loaded = loadClusterSpec(yaml, "quality.yaml");
  if (!loaded) qFatal("%s", loaded.error().str().c_str());
  return *loaded;
}

// Leaf 1: an NVSwitch H100 node and an A100 node whose GPUs carry MIG layouts; leaf 2: another
// NVSwitch H100 node and an H100 NVL node with two bridged pairs.
std::shared_ptr<const Cluster> cluster() {
  static const auto c = load(R"(version: 1
name: quality
node_templates:
  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 64, memory_gib: 1024}
  mig: {gpu_model: A100-SXM4-80GB, gpus: 3, cpus: 64, memory_gib: 1024}
  nvl: {gpu_model: H100-NVL-94GB, gpus: 4, cpus: 64, memory_gib: 512, nvlink: {bridges: [[0, 1], [2, 3]]}}
fabric:
  leafs: [{name: leaf-1}, {name: leaf-2}]
nodes:
  - {name: a, template: dgx, leaf: leaf-1}
  - name: m
    template: mig
    leaf: leaf-1
    gpus:
      "0": {mig: "1g.10gb@0,1g.10gb@4"}
      "1": {mig: "3g.40gb@0,3g.40gb@4"}
      "2": {mig: "7g.80gb"}
  - {name: b, template: dgx, leaf: leaf-2}
  - {name: p, template: nvl, leaf: leaf-2}
)");
  return c;
}

GpuId gpuOf(const Cluster& c, const char* node, int index) {
  for (const Node& n : c.nodes())
    if (n.name == node) return n.firstGpu + static_cast<GpuId>(index);
  qFatal("no node %s", node);
}

int profile(const MigGeometry& g, const char* name) {
  return g.profileIndex(name);
}

TraceJob gangJob(JobId id, int tasks, int gpus, Seconds runtime) {
  TraceJob t;
  t.job.id = id;
  t.job.team = "vision";
  t.job.priorityClass = "experiment";
  t.job.tasks = tasks;
  t.job.perTask = {GpuRequest::Kind::Whole, gpus, {}, 0, 0};
  t.job.estimatedRuntime = runtime;
  t.runtime = runtime;
  return t;
}

Simulator simulator(std::shared_ptr<const Cluster> c, Trace trace, SimConfig config) {
  auto engine = engineForTrace(std::move(c), trace, Policy{});
  if (!engine) qFatal("%s", engine.error().str().c_str());
  return Simulator(std::move(*engine), std::move(trace), config);
}

}  // namespace

class TestPlacementQuality : public QObject {
  Q_OBJECT

 private slots:
  // Two busy 1g instances at slices 0 and 4 leave six free memory slices, yet no 3g.40gb (starts
  // 0 and 4 only) fits: a count of free slices would say one.
  void busySmallInstancesLeaveNoRoomForA3g() {
    const auto c = cluster();
    ClusterState s(c);
    const GpuId g = gpuOf(*c, "m", 0);
    const MigGeometry& mig = *c->modelOf(g).mig;
    const int small = profile(mig, "1g.10gb");
    QVERIFY(s.takeMigInstance(g, small, 1, false, 0).ok());
    QVERIFY(s.takeMigInstance(g, small, 2, false, 4).ok());
    QCOMPARE(migPlaceable(mig, s.gpu(g), profile(mig, "3g.40gb")), 0);
    // The job at slice 4 ending leaves its idle 1g there, which the engine does not destroy:
    // still no 3g, though a 1g is now free.
    s.releaseMigInstance(g, 1, false);
    QCOMPARE(migPlaceable(mig, s.gpu(g), profile(mig, "3g.40gb")), 0);
    QCOMPARE(migPlaceable(mig, s.gpu(g), small), 6);  // the idle one and five new (slices 1-3, 5-6)
  }

  // A GPU with no job on it but two idle 3g instances offers two 3g and no 7g: the engine never
  // destroys an idle instance. A count of job-free GPUs would offer one 7g.
  void idleInstancesCountForTheirProfileOnly() {
    const auto c = cluster();
    ClusterState s(c);
    const GpuId g = gpuOf(*c, "m", 1);
    const MigGeometry& mig = *c->modelOf(g).mig;
    QCOMPARE(migPlaceable(mig, s.gpu(g), profile(mig, "3g.40gb")), 2);
    QCOMPARE(migPlaceable(mig, s.gpu(g), profile(mig, "7g.80gb")), 0);
  }

  void classProfilesComeFromTheGeometry() {
    const MigGeometry& mig = *cluster()->modelOf(gpuOf(*cluster(), "m", 0)).mig;
    QCOMPARE(mig.profiles[size_t(migProfileWithCompute(mig, 3))].name, std::string("3g.40gb"));
    QCOMPARE(mig.profiles[size_t(migProfileWithCompute(mig, mig.computeSlices))].name,
             std::string("7g.80gb"));
    QCOMPARE(migProfileWithCompute(mig, 5), -1);
  }

  // The cluster's room: GPU 0 (both 1g busy) none; GPU 1 two idle 3g; GPU 2 an idle 7g, which
  // blocks any 3g. A draining node offers nothing.
  void clusterRoomSumsTheMigGpusOfNodesUp() {
    const auto c = cluster();
    ClusterState s(c);
    const GpuId g = gpuOf(*c, "m", 0);
    const int small = profile(*c->modelOf(g).mig, "1g.10gb");
    QVERIFY(s.takeMigInstance(g, small, 1, false, 0).ok());
    QVERIFY(s.takeMigInstance(g, small, 2, false, 4).ok());
    const MigRoom room = migRoom(s);
    QCOMPARE(room.threeG, 2);
    QCOMPARE(room.sevenG, 1);
    s.setNodeState(c->gpu(g).node, NodeState::Draining);
    QCOMPARE(migRoom(s).threeG, 0);
    QCOMPARE(migRoom(s).sevenG, 0);
  }

  // Two GPUs of one node are in one NVLink domain only when a bridge joins them: a "same node"
  // (topology level Node) shortcut would say yes for GPUs 1 and 2 of the NVL node.
  void nvlinkDomainIsTheBridgeNotTheNode() {
    const auto c = cluster();
    const GangLocalityJudge judge(*c);
    const GangLocality bridged = judge.judge({gpuOf(*c, "p", 0), gpuOf(*c, "p", 1)});
    QVERIFY(bridged.multiGpu && !bridged.multiNode && bridged.fitsDomain);
    QVERIFY(bridged.inOneDomain && bridged.inOneLeaf);
    const GangLocality across = judge.judge({gpuOf(*c, "p", 1), gpuOf(*c, "p", 2)});
    QVERIFY(across.multiGpu && !across.multiNode);
    QVERIFY(!across.inOneDomain);
    QVERIFY(across.inOneLeaf);
    const GangLocality board = judge.judge({gpuOf(*c, "a", 0), gpuOf(*c, "a", 7)});
    QVERIFY(board.inOneDomain);
  }

  void leafIsTheSwitchOfEveryNode() {
    const auto c = cluster();
    const GangLocalityJudge judge(*c);
    const GangLocality sameLeaf = judge.judge({gpuOf(*c, "a", 0), gpuOf(*c, "m", 0)});
    QVERIFY(sameLeaf.multiNode && sameLeaf.inOneLeaf && !sameLeaf.inOneDomain);
    const GangLocality twoLeafs = judge.judge({gpuOf(*c, "a", 0), gpuOf(*c, "b", 0)});
    QVERIFY(twoLeafs.multiNode && !twoLeafs.inOneLeaf);
    // Nine GPUs exceed every domain (8) but fit a leaf (11 GPUs under leaf-1, 12 under leaf-2).
    std::vector<GpuId> nine;
    for (int i = 0; i < 8; ++i) nine.push_back(gpuOf(*c, "a", i));
    nine.push_back(gpuOf(*c, "b", 0));
    const GangLocality big = judge.judge(nine);
    QVERIFY(!big.fitsDomain && big.fitsLeaf);
    QVERIFY(!judge.judge({gpuOf(*c, "a", 0)}).multiGpu);
  }

  // A 2-node gang arriving while the only other node of leaf 1 is busy spans both leafs (the
  // tightest placement it would prefer is not open); a 2-GPU job started later lands on one
  // board. Counts are per start.
  void measuredRunJudgesEveryGangStart() {
    const auto c = load(R"(version: 1
name: two-leafs
node_templates:
  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 64, memory_gib: 1024}
  a100: {gpu_model: A100-SXM4-80GB, gpus: 8, cpus: 64, memory_gib: 1024}
fabric:
  spines: [spine-1]
  leafs: [{name: leaf-1, spine: spine-1}, {name: leaf-2, spine: spine-1}]
nodes:
  - {name: x, template: a100, leaf: leaf-1}
  - {name: y, template: dgx, leaf: leaf-1}
  - {name: z, template: dgx, leaf: leaf-2}
)");
    TraceJob pinned = gangJob(1, 1, 8, 1000);
    pinned.job.model.models = {"A100-SXM4-80GB"};  // only x can take it
    TraceJob gang = gangJob(2, 2, 8, 100);
    gang.job.submitTime = 10;
    TraceJob pair = gangJob(3, 1, 2, 100);
    pair.job.submitTime = 500;
    SimConfig config;
    config.cycleInterval = 1;
    config.sampleInterval = 10;
    auto sim = simulator(c, traceOf({pinned, gang, pair}), config);
    const auto q = runMeasuringPlacement(sim);
    QVERIFY2(q.ok(), q.ok() ? "" : q.error().str().c_str());
    QCOMPARE(q->leafGangs, size_t{1});
    QCOMPARE(q->inOneLeaf, size_t{0});
    QCOMPARE(q->leafShare(), 0.0);
    QCOMPARE(sim.engine().job(2)->startTime, Seconds{10});  // it did not wait for leaf 1
    // Jobs 1 (8 GPUs on x's board) and 3 (2 GPUs); the 16-GPU gang fits no 8-GPU domain.
    QCOMPARE(q->domainGangs, size_t{2});
    QCOMPARE(q->inOneDomain, size_t{2});
    QVERIFY(q->samples >= 100);  // 1,000 s at one sample per 10 s
  }

  // Measuring must not change the run: same event log as Simulator::run.
  void measuredRunIsThePlainRun() {
    const auto demo = demoCluster();
    SyntheticConfig sc;
    sc.jobs = 150;
    sc.arrivalsPerHour = 120;
    sc.seed = 7;
    const Trace trace = *synthesize(*demo, sc);
    SimConfig config;
    auto plain = simulator(demo, trace, config);
    QVERIFY(plain.run().ok());
    auto measured = simulator(demo, trace, config);
    const auto q = runMeasuringPlacement(measured);
    QVERIFY(q.ok());
    QCOMPARE(measured.logHash(), plain.logHash());
    QCOMPARE(measured.now(), plain.now());
    QVERIFY(q->domainGangs > 0);
    QVERIFY(q->leafGangs > 0);
    QVERIFY(q->mig3g > 0);
  }

  void sharesWithoutGangsAreUnknownNotPerfect() {
    const PlacementQuality q;
    QCOMPARE(q.domainShare(), -1.0);
    QCOMPARE(q.leafShare(), -1.0);
  }
};

QTEST_GUILESS_MAIN(TestPlacementQuality)
#include "tst_placement_quality.moc"
