// Cluster occupancy, transactions and the invariant checker (scheduler engine groundwork).
#include <QtTest>

#include <random>

#include "clusterspec/cluster_spec.h"
#include "scheduler/share_check.h"
#include "scheduler/transaction.h"

using namespace tessera;

namespace {

// spine-1 <- leaf-1: dgx-01, dgx-02 (8 x H100 NVSwitch each); leaf-2: mig-01 (A100-80GB,
// GPU0 MIG 3g.40gb@0, GPU1 MIG empty, GPUs 2-7 exclusive), share-01 (4 x L4, GPUs 0-1 time-sliced
// x2).
const char* kSpec = R"(version: 1
name: state-test
node_templates:
  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}
  a100: {gpu_model: A100-SXM4-80GB, gpus: 8}
  l4: {gpu_model: L4, gpus: 4}
fabric:
  spines: [spine-1]
  leafs:
    - {name: leaf-1, spine: spine-1}
    - {name: leaf-2, spine: spine-1}
groups:
  - {name: dgx, template: dgx, count: 2, leaf: leaf-1}
nodes:
  - name: mig-01
    template: a100
    leaf: leaf-2
    gpus:
      "0": {mig: "3g.40gb@0"}
      "1": {mig: "-"}
  - name: share-01
    template: l4
    leaf: leaf-2
    gpus:
      "0-1": {timeslice: 2}
)";

std::shared_ptr<const Cluster> testCluster() {
  auto c = loadClusterSpec(kSpec, "state-test.yaml");
  if (!c) qFatal("%s", c.error().str().c_str());
  return *c;
}

GpuId gpuAt(const Cluster& c, const char* nodeSlashIndex) {
  const Gpu* g = c.findGpu(nodeSlashIndex);
  if (!g) qFatal("no GPU %s", nodeSlashIndex);
  return g->id;
}

// Everything observable about a state, for before/after comparisons.
struct Snapshot {
  std::vector<GpuOccupancy> gpus;
  std::vector<NodeUsage> nodes;
  ClusterState::Counters counters;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};
Snapshot snapshot(const ClusterState& s) {
  Snapshot out;
  for (const auto& g : s.cluster().gpus()) out.gpus.push_back(s.gpu(g.id));
  for (const auto& n : s.cluster().nodes()) out.nodes.push_back(s.nodeUsage(n.id));
  out.counters = s.counters();
  return out;
}

QString invariantText(const ClusterState& s) {
  QStringList all;
  for (const auto& v : checkInvariants(s)) all << QString::fromStdString(v);
  return all.join("; ");
}

}  // namespace

class TstClusterState : public QObject {
  Q_OBJECT

 private slots:
  void initialCounters() {
    ClusterState s(testCluster());
    // 16 DGX GPUs + 6 exclusive A100s + 2 exclusive L4s; MIG and time-sliced GPUs are not
    // whole-free.
    QCOMPARE(s.freeWholeGpus(), 24);
    QCOMPARE(s.freeWholeGpusOnNode(s.cluster().findNode("mig-01")->id), 6);
    QCOMPARE(s.freeWholeGpusUnderLeaf(s.cluster().findSwitch("leaf-1")->id), 16);
    QCOMPARE(s.freeWholeGpusInDomain(s.cluster().gpu(gpuAt(s.cluster(), "dgx-01/0")).nvlinkDomain),
             8);
    QVERIFY2(checkInvariants(s).empty(), qPrintable(invariantText(s)));
    QCOMPARE(s.gpu(gpuAt(s.cluster(), "mig-01/0")).layout.size(), 1);
  }

  void wholeGpuTakeAndRelease() {
    ClusterState s(testCluster());
    const GpuId g = gpuAt(s.cluster(), "dgx-01/3");
    QVERIFY(s.takeWholeGpu(g, 7).ok());
    QCOMPARE(s.freeWholeGpus(), 23);
    QCOMPARE(s.freeWholeGpusOnNode(s.cluster().gpu(g).node), 7);
    QCOMPARE(s.freeWholeGpusUnderLeaf(s.cluster().findSwitch("leaf-1")->id), 15);
    auto again = s.takeWholeGpu(g, 8);
    QVERIFY(!again.ok());
    QVERIFY(QString::fromStdString(again.error().message).contains("held by job 7"));
    QVERIFY(!s.takeWholeGpu(gpuAt(s.cluster(), "mig-01/0"), 8).ok());  // MIG mode
    QVERIFY(!s.takeWholeGpu(g, kNoJob).ok());
    s.releaseWholeGpu(g);
    QCOMPARE(s.freeWholeGpus(), 24);
    QVERIFY(checkInvariants(s).empty());
  }

  void drainedNodesLeaveTheCounters() {
    ClusterState s(testCluster());
    const NodeId n = s.cluster().findNode("dgx-02")->id;
    QVERIFY(s.takeWholeGpu(gpuAt(s.cluster(), "dgx-02/0"), 5).ok());
    s.setNodeState(n, NodeState::Draining);
    QCOMPARE(s.freeWholeGpusOnNode(n), 0);
    QCOMPARE(s.freeWholeGpus(), 16);
    auto refused = s.takeWholeGpu(gpuAt(s.cluster(), "dgx-02/1"), 6);
    QVERIFY(!refused.ok());
    QVERIFY(QString::fromStdString(refused.error().message).contains("draining"));
    s.releaseWholeGpu(gpuAt(s.cluster(), "dgx-02/0"));  // the running job ends while draining
    QCOMPARE(s.freeWholeGpusOnNode(n), 0);
    s.setNodeState(n, NodeState::Up);
    QCOMPARE(s.freeWholeGpusOnNode(n), 8);
    QVERIFY2(checkInvariants(s).empty(), qPrintable(invariantText(s)));
  }

  void migInstancesReuseThenCreate() {
    ClusterState s(testCluster());
    const GpuId g = gpuAt(s.cluster(), "mig-01/0");
    const MigGeometry& geo = *s.cluster().modelOf(g).mig;
    const int p3g = geo.profileIndex("3g.40gb");
    const int p1g = geo.profileIndex("1g.10gb");
    auto first = s.takeMigInstance(g, p3g, 11, false);  // the idle 3g.40gb@0
    QVERIFY(first.ok());
    QCOMPARE(s.gpu(g).layout[*first].start, int8_t{0});
    QVERIFY(!s.takeMigInstance(g, p3g, 12, false).ok());  // none idle, creation not allowed
    auto created = s.takeMigInstance(g, p3g, 12, true);
    QVERIFY(created.ok());
    QCOMPARE(s.gpu(g).layout[*created].start, int8_t{4});
    auto none = s.takeMigInstance(g, p1g, 13, true);
    QVERIFY(!none.ok());
    QVERIFY(QString::fromStdString(none.error().message).contains("no free slot for a 1g.10gb"));
    // On the empty MIG GPU a 1g goes where it leaves the most room (not in the middle of a 3g
    // slot).
    const GpuId empty = gpuAt(s.cluster(), "mig-01/1");
    auto small = s.takeMigInstance(empty, p1g, 14, true);
    QVERIFY(small.ok());
    const int start = s.gpu(empty).layout[*small].start;
    QVERIFY2(start == 0 || start == 6 || start == 4, qPrintable(QString::number(start)));
    QVERIFY2(checkInvariants(s).empty(), qPrintable(invariantText(s)));
  }

  void sharesRespectReplicasMilliAndMemory() {
    ClusterState s(testCluster());
    const GpuId g = gpuAt(s.cluster(), "share-01/0");
    QVERIFY(s.takeShare(g, 21, 600, 10000).ok());
    auto tooMuch = s.takeShare(g, 22, 500, 1000);
    QVERIFY(!tooMuch.ok());
    QVERIFY(QString::fromStdString(tooMuch.error().message).contains("only 400 milli-GPU left"));
    auto noMemory = s.takeShare(g, 22, 300, 20000);  // L4 has 23034 MiB
    QVERIFY(!noMemory.ok());
    QVERIFY(QString::fromStdString(noMemory.error().message).contains("MiB of GPU memory left"));
    QVERIFY(s.takeShare(g, 22, 400, 13000).ok());
    auto third = s.takeShare(g, 23, 1, 1);
    QVERIFY(!third.ok());
    QVERIFY(QString::fromStdString(third.error().message).contains("all 2 replicas are in use"));
    QVERIFY(!s.takeShare(gpuAt(s.cluster(), "share-01/3"), 24, 100, 10).ok());  // exclusive GPU
    s.releaseShare(g, 21);
    QCOMPARE(s.gpu(g).milliUsed, 400);
    QVERIFY2(checkInvariants(s).empty(), qPrintable(invariantText(s)));
  }

  // The node filter, placement and scoring ask checkShare (share_check.h), which words nothing;
  // takeShare's refusal is worded from the same answer. Each refusal once, on the GPU that gives
  // it, and both agree.
  void quickShareCheckAgreesWithTheWordedOne() {
    ClusterState s(testCluster());
    const GpuId g = gpuAt(s.cluster(), "share-01/0");
    const GpuId full = gpuAt(s.cluster(), "share-01/1");
    QVERIFY(s.takeShare(g, 21, 600, 10000).ok());
    QVERIFY(s.takeShare(full, 31, 100, 100).ok());
    QVERIFY(s.takeShare(full, 32, 100, 100).ok());
    struct Ask {
      GpuId gpu;
      JobId job;
      int milli;
      int64_t vram;
      ShareRefusal expected;
      const char* words;
    };
    const Ask asks[] = {
        {g, 22, 300, 1000, ShareRefusal::None, ""},
        {g, kNoJob, 100, 10, ShareRefusal::ReservedJobId, "job id 0 is reserved"},
        {gpuAt(s.cluster(), "share-01/3"), 22, 100, 10, ShareRefusal::NotTimeSliced, "not shared"},
        {g, 22, 0, 10, ShareRefusal::SizeOutOfRange, "1..1000 milli-GPU"},
        {g, 22, 1001, 10, ShareRefusal::SizeOutOfRange, "1..1000 milli-GPU"},
        {full, 22, 100, 10, ShareRefusal::NoReplicaLeft, "all 2 replicas are in use"},
        {g, 22, 500, 1000, ShareRefusal::NoMilliLeft, "only 400 milli-GPU left"},
        {g, 22, 300, 20000, ShareRefusal::NoMemoryLeft, "MiB of GPU memory left"},
        {g, 21, 100, 10, ShareRefusal::AlreadyHoldsOne, "already holds a share"},
    };
    for (const Ask& a : asks) {
      QCOMPARE(int(checkShare(s, a.gpu, a.job, a.milli, a.vram)), int(a.expected));
      const auto worded = s.shareProblem(a.gpu, a.job, a.milli, a.vram);
      QCOMPARE(worded.has_value(), a.expected != ShareRefusal::None);
      if (worded) QVERIFY2(worded->find(a.words) != std::string::npos, worded->c_str());
    }
    s.setNodeState(s.cluster().gpu(g).node, NodeState::Draining);
    QCOMPARE(int(checkShare(s, g, 22, 100, 10)), int(ShareRefusal::NodeNotUp));
    QVERIFY(s.shareProblem(g, 22, 100, 10)->find("not up") != std::string::npos);
  }

  // All-or-nothing: a 10-GPU gang on 8-GPU nodes fails on the 9th GPU of the node and leaves
  // nothing behind.
  void gangRollsBackAsAWhole() {
    ClusterState s(testCluster());
    const Snapshot before = snapshot(s);
    {
      Transaction tx(s);
      const Node& n = *s.cluster().findNode("dgx-01");
      bool failed = false;
      for (int i = 0; i < 10 && !failed; ++i) {
        const GpuId g = n.firstGpu + static_cast<GpuId>(i % 8);
        failed = !tx.takeWholeGpu(g, 31).ok();
      }
      QVERIFY(failed);
      QCOMPARE(tx.size(), size_t{8});
    }  // destroyed without commit: discarded
    QVERIFY(snapshot(s) == before);
  }

  void commitKeepsAndDiscardRestoresEverything() {
    ClusterState s(testCluster());
    const Snapshot before = snapshot(s);
    const GpuId mig = gpuAt(s.cluster(), "mig-01/1");
    const int p2g = s.cluster().modelOf(mig).mig->profileIndex("2g.20gb");
    Transaction tx(s);
    QVERIFY(tx.takeWholeGpu(gpuAt(s.cluster(), "dgx-01/0"), 41).ok());
    QVERIFY(tx.takeMigInstance(mig, p2g, 41, true).ok());
    QVERIFY(tx.takeShare(gpuAt(s.cluster(), "share-01/1"), 41, 250, 4000).ok());
    tx.commit();
    const Snapshot committed = snapshot(s);
    QVERIFY(!(committed == before));
    // A preemption what-if: release job 41, give its GPU to job 42, then discard.
    {
      Transaction whatIf(s);
      whatIf.releaseJob(41);
      QVERIFY(whatIf.takeWholeGpu(gpuAt(s.cluster(), "dgx-01/0"), 42).ok());
      QVERIFY(s.gpu(mig).instanceOwner[0] == kNoJob);
      whatIf.discard();
    }
    QVERIFY(snapshot(s) == committed);
    QVERIFY2(checkInvariants(s).empty(), qPrintable(invariantText(s)));
  }

  void rollbackToAMarkKeepsEarlierChanges() {
    ClusterState s(testCluster());
    Transaction tx(s);
    QVERIFY(tx.takeWholeGpu(gpuAt(s.cluster(), "dgx-01/0"), 61).ok());
    const size_t mark = tx.size();
    const Snapshot atMark = snapshot(s);
    QVERIFY(tx.takeWholeGpu(gpuAt(s.cluster(), "dgx-01/1"), 62).ok());
    QVERIFY(tx.takeShare(gpuAt(s.cluster(), "share-01/0"), 62, 100, 100).ok());
    tx.rollbackTo(mark);
    QCOMPARE(tx.size(), mark);
    QVERIFY(snapshot(s) == atMark);
    QCOMPARE(s.gpu(gpuAt(s.cluster(), "dgx-01/0")).wholeOwner, JobId{61});
  }

  void cpusAndMemory() {
    ClusterState s(testCluster());
    const NodeId dgx = s.cluster().findNode("dgx-01")->id;
    const NodeId mig = s.cluster().findNode("mig-01")->id;
    QCOMPARE(s.freeCpus(dgx), 224);
    QCOMPARE(s.freeCpus(mig), -1);  // the a100 template declares no CPUs: not limited
    QVERIFY(s.takeNodeResources(dgx, 71, 200, 1024).ok());
    auto tooMany = s.takeNodeResources(dgx, 72, 30, 0);
    QVERIFY(!tooMany.ok());
    QVERIFY(
        QString::fromStdString(tooMany.error().message).contains("has 24 free CPUs, 30 needed"));
    auto noMemory = s.takeNodeResources(dgx, 72, 1, 2048LL * 1024);
    QVERIFY(!noMemory.ok());
    QVERIFY(QString::fromStdString(noMemory.error().message).contains("MiB free memory"));
    QVERIFY(s.takeNodeResources(dgx, 71, 24, 0).ok());  // the same job's second task adds up
    QCOMPARE(s.nodeUsage(dgx).holdings.size(), size_t{1});
    QCOMPARE(s.freeCpus(dgx), 0);
    {
      Transaction tx(s);
      tx.releaseJob(71);
      QCOMPARE(s.freeCpus(dgx), 224);
    }
    QCOMPARE(s.freeCpus(dgx), 0);  // discarded: job 71 holds them again
    QVERIFY2(checkInvariants(s).empty(), qPrintable(invariantText(s)));
    s.returnNodeResources(dgx, 71, 224, 1024);
    QCOMPARE(s.freeCpus(dgx), 224);
    QVERIFY(s.nodeUsage(dgx).holdings.empty());
  }

  void invariantCheckerCatchesCorruption() {
    ClusterState s(testCluster());
    const GpuId share = gpuAt(s.cluster(), "share-01/0");
    s.unsafeGpu(share).shares.push_back({51, 700, 1});  // totals not updated
    QVERIFY(invariantText(s).contains("share sums disagree"));
    ClusterState t(testCluster());
    const GpuId mig = gpuAt(t.cluster(), "mig-01/0");
    const MigLayout bad = *parseMigLayout(t.cluster().modelOf(mig), "3g.40gb@0,2g.20gb@2");
    t.unsafeGpu(mig).layout = bad;
    QVERIFY(invariantText(t).contains("check 2"));
    ClusterState u(testCluster());
    u.unsafeGpu(gpuAt(u.cluster(), "dgx-01/0")).wholeOwner = 9;  // counters not updated
    QVERIFY(invariantText(u).contains("counters disagree"));
  }

  // Random operations in random transactions, committed or discarded: the invariants always hold
  // and a discard always restores the exact previous state. Fixed seeds keep failures repeatable.
  void randomizedTransactions() {
    for (unsigned seed : {1u, 2u, 3u, 42u, 1234u}) {
      ClusterState s(testCluster());
      std::mt19937 rng(seed);
      const auto& gpus = s.cluster().gpus();
      std::uniform_int_distribution<size_t> anyGpu(0, gpus.size() - 1);
      std::uniform_int_distribution<int> anyJob(1, 12), op(0, 4), steps(1, 8);
      for (int round = 0; round < 200; ++round) {
        const Snapshot before = snapshot(s);
        Transaction tx(s);
        for (int k = steps(rng); k > 0; --k) {
          const GpuId g = gpus[anyGpu(rng)].id;
          const auto job = static_cast<JobId>(anyJob(rng));
          switch (op(rng)) {
            case 0:
              (void)tx.takeWholeGpu(g, job);
              break;
            case 1: {
              const GpuModel& m = s.cluster().modelOf(g);
              if (m.mig)
                (void)tx.takeMigInstance(g, static_cast<int>(rng() % m.mig->profiles.size()), job,
                                         true);
              break;
            }
            case 2:
              (void)tx.takeShare(g, job, static_cast<int>(rng() % 700) + 1,
                                 static_cast<int64_t>(rng() % 9000));
              break;
            case 3:
              (void)tx.takeNodeResources(s.cluster().gpu(g).node, job, static_cast<int>(rng() % 64),
                                         static_cast<int64_t>(rng() % 300000));
              break;
            default:
              tx.releaseJob(job);
              break;
          }
        }
        const bool keep = rng() % 2 == 0;
        if (keep)
          tx.commit();
        else
          tx.discard();
        QVERIFY2(
            checkInvariants(s).empty(),
            qPrintable(QString("seed %1 round %2: %3").arg(seed).arg(round).arg(invariantText(s))));
        if (!keep)
          QVERIFY2(snapshot(s) == before,
                   qPrintable(QString("seed %1 round %2").arg(seed).arg(round)));
      }
    }
  }
};

QTEST_APPLESS_MAIN(TstClusterState)
#include "tst_cluster_state.moc"
