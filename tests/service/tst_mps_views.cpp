// What the faces read of MPS, from a real Backend on the MPS cluster of mps_fixture.h: the
// snapshot's GPU views (the servers' limits, each client's thread percentage and pinned memory) and
// what both consoles derive from them (service/mps_use.h), the same after the RPC conversion, the
// variables a client's limits come in, and the usage ledger counting MPS share-hours as their
// own kind in a report.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>

#include "backend_test_util.h"
#include "demo_backend.h"
#include "mps_fixture.h"
#include "rpc/convert.h"
#include "service/mps_use.h"

using namespace tessera;

namespace {

constexpr Seconds kStart = 5000;

const GpuView& gpuOf(const ClusterSnapshot& s, const std::string& node, int index) {
  for (const NodeView& n : s.nodes)
    if (n.name == node) return n.gpus.at(static_cast<size_t>(index));
  qFatal("no node %s", node.c_str());
}

}  // namespace

class TstMpsViews : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::atomic<Seconds> now_{kStart};
  std::unique_ptr<Backend> backend_;
  Workload workload_;

  ClusterSnapshot snapshot() {
    return test::ok(test::await<ClusterSnapshot>([&](auto r) { backend_->snapshot(r); }));
  }

 private slots:
  void initTestCase() {
    workload_ = test::mpsWorkload();
    backend_ = test::openDemoBackend(dir_.filePath("mps.db"), kStart, [this](BackendConfig& c) {
      test::useMpsCluster(c);
      c.clock = [this] { return now_.load(); };
    });
    std::vector<Job> jobs = workload_.jobs;
    for (Job& j : jobs) j.id = kNoJob;
    test::ok(test::await<std::vector<JobId>>(
        [&](auto r) { backend_->submit(jobs, Caller{"test"}, std::nullopt, r); }));
    test::ok(test::await<CycleStats>([&](auto r) { backend_->cycleNow(r); }));
  }

  // The GPU's own server: its limits, its clients with theirs, and their sums.
  void theSnapshotShowsAnMpsGpu() {
    const ClusterSnapshot s = snapshot();
    const GpuView& g = gpuOf(s, "p1", 0);
    QCOMPARE(g.sharing, std::string("mps"));
    QVERIFY(g.mps);
    QCOMPARE(g.mps->clientLimit, 48);  // the catalog's figure for Ada
    QCOMPARE(g.mps->threadBudget, 150);
    QCOMPARE(g.mps->coLocation, MpsCoLocation::User);
    QCOMPARE(g.mps->nodeSharing, MpsNodeSharing::All);  // the spec does not say
    QCOMPARE(g.occupants.size(), size_t{2});
    for (const GpuView::Occupant& o : g.occupants) {
      QVERIFY(o.mps());
      QVERIFY(o.mpsThreads == 60 || o.mpsThreads == 30);
      QCOMPARE(o.mpsMemoryMiB, o.mpsThreads == 60 ? 24576 : 20480);
      QCOMPARE(o.milli, o.mpsThreads * 10);
      QCOMPARE(o.migStart, -1);
    }
    const auto servers = mpsServerUse(g);
    QCOMPARE(servers.size(), size_t{1});
    QCOMPARE(servers[0], (MpsServerUse{-1, 2, 90, 45056}));
    QCOMPARE(gpuMpsServer(g), std::optional(servers[0]));
  }

  // A MIG GPU with MPS in its instances: one server per instance with clients, none of the GPU.
  void theSnapshotShowsMpsInMigInstances() {
    const ClusterSnapshot s = snapshot();
    const GpuView& m = gpuOf(s, "m1", 0);
    QCOMPARE(m.sharing, std::string("mig"));
    QVERIFY(m.mps);
    QCOMPARE(m.mps->coLocation, MpsCoLocation::Team);
    const auto servers = mpsServerUse(m);
    QCOMPARE(servers.size(), size_t{1});
    QCOMPARE(servers[0].clients, 1);
    QCOMPARE(servers[0].threads, 60);
    QCOMPARE(servers[0].memoryMiB, int64_t{12288});
    QVERIFY(servers[0].instanceStart == 0 || servers[0].instanceStart == 4);
    QVERIFY(!gpuMpsServer(m));
    // An exclusive GPU runs no MPS.
    const GpuView& whole = gpuOf(s, "p1", 1);
    QCOMPARE(whole.sharing, std::string("exclusive"));
    QVERIFY(!whole.mps);
    QVERIFY(mpsServerUse(whole).empty());
  }

  // A remote console reads the same: the fields survive the API's conversion.
  void theApiCarriesMps() {
    const ClusterSnapshot s = snapshot();
    const ClusterSnapshot back = rpc::snapshotFromProto(rpc::snapshotToProto(s));
    for (const auto& [node, index] : {std::pair{"p1", 0}, {"p1", 1}, {"m1", 0}}) {
      const GpuView& a = gpuOf(s, node, index);
      const GpuView& b = gpuOf(back, node, index);
      QCOMPARE(b.sharing, a.sharing);
      QCOMPARE(bool(b.mps), bool(a.mps));
      if (a.mps) {
        QCOMPARE(b.mps->clientLimit, a.mps->clientLimit);
        QCOMPARE(b.mps->threadBudget, a.mps->threadBudget);
        QCOMPARE(b.mps->coLocation, a.mps->coLocation);
        QCOMPARE(b.mps->nodeSharing, a.mps->nodeSharing);
      }
      QCOMPARE(mpsServerUse(b), mpsServerUse(a));
    }
    // A server from before node_sharing sends none: all, as it placed; a word this console does
    // not know reads as the stricter one.
    v1::ClusterSnapshot older = rpc::snapshotToProto(s);
    v1::ClusterSnapshot newer = older;
    for (v1::ClusterSnapshot* p : {&older, &newer})
      for (auto& n : *p->mutable_nodes())
        for (auto& g : *n.mutable_gpus())
          if (g.has_mps()) g.mutable_mps()->set_node_sharing(p == &older ? "" : "per-numa");
    QCOMPARE(gpuOf(rpc::snapshotFromProto(older), "p1", 0).mps->nodeSharing, MpsNodeSharing::All);
    QCOMPARE(gpuOf(rpc::snapshotFromProto(newer), "p1", 0).mps->nodeSharing, MpsNodeSharing::One);
  }

  // node_sharing: one in the spec reaches the snapshot and survives the API (the GPU's own
  // server; the MIG instances' servers are not under the rule and keep all).
  void nodeSharingOneReachesTheViews() {
    QTemporaryDir dir;
    auto one = test::openDemoBackend(dir.filePath("one.db"), kStart, test::useMpsClusterOneSharing);
    const ClusterSnapshot s =
        test::ok(test::await<ClusterSnapshot>([&](auto r) { one->snapshot(r); }));
    QCOMPARE(gpuOf(s, "p1", 0).mps->nodeSharing, MpsNodeSharing::One);
    QCOMPARE(gpuOf(s, "m1", 0).mps->nodeSharing, MpsNodeSharing::All);
    const ClusterSnapshot back = rpc::snapshotFromProto(rpc::snapshotToProto(s));
    QCOMPARE(gpuOf(back, "p1", 0).mps->nodeSharing, MpsNodeSharing::One);
    QCOMPARE(gpuOf(back, "m1", 0).mps->nodeSharing, MpsNodeSharing::All);
  }

  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT as MPS reads them.
  void theLimitsAsVariables() {
    const auto env = mpsEnvironment(workload_.jobs[0].perTask);
    QCOMPARE(env.size(), size_t{2});
    QCOMPARE(env[0],
             (std::pair<std::string, std::string>{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "60"}));
    QCOMPARE(env[1],
             (std::pair<std::string, std::string>{"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=24576M"}));
    GpuRequest whole;
    whole.kind = GpuRequest::Kind::Whole;
    whole.gpus = 1;
    QVERIFY(mpsEnvironment(whole).empty());
  }

  // An hour on, the report counts the clients' active-thread shares as MPS share-hours:
  // (60 + 30 + 60) % x 1 h = 1.5 GPU-hours, none of them time-sliced.
  void reportsCountMpsShareHours() {
    now_ = kStart + 3600;
    test::ok(test::await<CycleStats>([&](auto r) { backend_->cycleNow(r); }));
    ReportRequest q;
    q.from = kStart;
    q.to = kStart + 3600;
    const Report r = test::ok(test::await<Report>([&](auto reply) { backend_->report(q, reply); }));
    QVERIFY2(qAbs(r.total.mps - 1.5) < 1e-9, qPrintable(QString::number(r.total.mps)));
    QCOMPARE(r.total.fractional, 0.0);
    QVERIFY(qAbs(r.total.allocated - 1.5) < 1e-9);
  }
};

QTEST_GUILESS_MAIN(TstMpsViews)
#include "tst_mps_views.moc"
