// Node inventories through the Backend (live mode, the demo cluster): auto-admission and an
// admin's admission making the node join the running engine (a running job undisturbed, the
// node kept across a restart), a GPU reported faulty held and lifted, its hold (owner
// "inventory") surviving a restart, an upgrade from a database that stored it as "gpu-fault",
// telemetry without an Xid, an operator's undrain and the executor's sync, a repartition
// answered to the node's pushes as MIG work until the node reports it, model and MIG-mode
// mismatches and GPUs the model lacks as warnings, and a simulated-live backend refusing
// reports.
#include <QTemporaryDir>
#include <QtTest>

#include <future>
#include <thread>

#include "backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "service/backend.h"
#include "store/database.h"
#include "topology/mig_layout.h"
#include "workload/workload_spec.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// An executor that only reports what the test puts in `next` (the Slurm executor's node sync:
// a node Slurm drained, then resumed), once, at the next cycle.
class SyncExecutor final : public Executor {
 public:
  explicit SyncExecutor(std::shared_ptr<Observations> next) : next_(std::move(next)) {}
  [[nodiscard]] ExecutorStatus status() const override { return {}; }
  [[nodiscard]] Status admit(const Job&) const override { return okStatus(); }
  void carryOut(const Engine&) override {}
  Observations observe(const Engine&) override { return std::exchange(*next_, Observations{}); }
  void adopted(int64_t, JobId) override {}
  void refused(int64_t, const std::string&) override {}
  void resync(const std::string&) override {}
  [[nodiscard]] std::optional<ExternalJob> job(JobId) const override { return std::nullopt; }

 private:
  std::shared_ptr<Observations> next_;
};

struct Fixture {
  QTemporaryDir dir;
  std::shared_ptr<Observations> observed = std::make_shared<Observations>();
  std::unique_ptr<Backend> open(BackendMode mode = BackendMode::Live, bool autoAdmit = false) {
    BackendConfig c;
    c.database = dir.filePath("inv.db").toStdString();
    c.mode = mode;
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.tenants.jobs.clear();
    c.runCycles = false;
    c.autoAdmitNodes = autoAdmit;
    c.executor = [next = observed] { return std::make_unique<SyncExecutor>(next); };
    auto b = Backend::open(c);
    if (!b) qFatal("open: %s", b.error().str().c_str());
    return std::move(*b);
  }
};

// pod-a-01 as the demo cluster has it: 8 H100s, no MIG.
InventoryReport podA01() {
  InventoryReport r;
  r.node = "pod-a-01";
  r.hostname = "pod-a-01";
  for (int i = 0; i < 8; ++i) {
    InventoryGpu g;
    g.index = i;
    g.model = "H100-SXM5-80GB";
    g.uuid = "GPU-" + std::to_string(i);
    r.gpus.push_back(g);
  }
  return r;
}

// inf-01 as the demo cluster has it: 8 A100s, GPU 4 in MIG mode split into 3g.40gb halves.
InventoryReport infA100s() {
  InventoryReport r;
  r.node = r.hostname = "inf-01";
  for (int i = 0; i < 8; ++i) {
    InventoryGpu g;
    g.index = i;
    g.model = "A100-SXM4-80GB";
    g.uuid = "GPU-" + std::to_string(i);
    r.gpus.push_back(g);
  }
  r.gpus[4].migEnabled = true;
  r.gpus[4].migLayout = "3g.40gb@0,3g.40gb@4";
  return r;
}

// A telemetry push from the node's agent: what tesserad answers (the MIG work among it).
TelemetryPush pushTo(Backend& b, const std::string& node) {
  auto scrape =
      parseDcgmMetrics("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"" + node + "\"} 40\n", "test");
  if (!scrape.ok()) qFatal("scrape: %s", scrape.error().str().c_str());
  return ok(await<TelemetryPush>([&](auto x) { b.pushTelemetry(*scrape, node, x); }));
}

std::variant<InventoryReply, ApiError> report(Backend& b, const InventoryReport& r) {
  return await<InventoryReply>([&](auto reply) { b.reportInventory(r, reply); });
}

bool heldFor(Backend& b, const std::string& gpu) {
  bool held = false;
  b.inspect([&](const Engine& e) {
    const Gpu* g = e.cluster().findGpu(gpu);
    held = g && e.nodeHolds(g->node).find(HoldOwner::Inventory, g->id) != nullptr;
  });
  return held;
}

// Whose hold is on the GPU (none: nullopt).
std::optional<HoldOwner> holdOwnerOn(Backend& b, const std::string& gpu) {
  std::optional<HoldOwner> owner;
  b.inspect([&](const Engine& e) {
    const Gpu* g = e.cluster().findGpu(gpu);
    for (const NodeHold& h : e.nodeHolds(g->node).all())
      if (h.gpu == g->id) owner = h.owner;
  });
  return owner;
}

// The engine's MIG layout of the GPU, as the API writes it.
std::string layoutOf(Backend& b, const std::string& gpu) {
  std::string text;
  b.inspect([&](const Engine& e) {
    const Gpu* g = e.cluster().findGpu(gpu);
    text = formatMigLayout(e.cluster().modelOf(g->id), e.state().gpu(g->id).layout);
  });
  return text;
}

NodeState nodeState(Backend& b, const std::string& node) {
  NodeState s = NodeState::Up;
  b.inspect([&](const Engine& e) { s = e.state().nodeState(e.cluster().findNode(node)->id); });
  return s;
}

size_t gpuCount(Backend& b) {
  size_t n = 0;
  b.inspect([&](const Engine& e) { n = e.cluster().gpus().size(); });
  return n;
}

bool hasNode(Backend& b, const std::string& node) {
  bool found = false;
  b.inspect([&](const Engine& e) { found = e.cluster().findNode(node) != nullptr; });
  return found;
}

// One whole-GPU job of the demo workload's first team.
JobId submitDemoJob(Backend& b) {
  Job j = demoWorkload()->jobs.front();
  j.id = kNoJob;
  return ok(await<std::vector<JobId>>(
                [&](auto reply) { b.submit({j}, Caller{"alice"}, std::nullopt, reply); }))
      .front();
}

// The GPUs the job runs on (empty when it does not run).
std::vector<GpuId> gpusOf(Backend& b, JobId job) {
  std::vector<GpuId> gpus;
  b.inspect([&](const Engine& e) {
    const JobRecord* r = e.job(job);
    if (r && r->state == JobState::Running && r->placement)
      for (const auto& t : r->placement->tasks)
        gpus.insert(gpus.end(), t.gpus.begin(), t.gpus.end());
  });
  return gpus;
}

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// pod-a-01's GPU 3, held by the inventory (reported faulty in `r`): telemetry without an Xid
// keeps the hold, and the report that lists the GPU healthy again lifts it.
void onlyAHealthyReportLifts(Backend& b, InventoryReport r) {
  auto scrape =
      parseDcgmMetrics("DCGM_FI_DEV_GPU_UTIL{gpu=\"3\",Hostname=\"pod-a-01\"} 5\n", "test");
  QVERIFY(scrape.ok());
  ok(await<TelemetryPush>([&](auto x) { b.pushTelemetry(*scrape, "", x); }));
  QVERIFY(heldFor(b, "pod-a-01/3"));
  r.gpus[3].fault.clear();
  QVERIFY(contains(ok(report(b, r)).changes,
                   "GPU pod-a-01/3: back in the node's inventory: hold lifted"));
  QVERIFY(!heldFor(b, "pod-a-01/3"));
}

}  // namespace

class TstNodeInventory : public QObject {
  Q_OBJECT

 private slots:
  void autoAdmitJoinsOnTheFirstReport() {
    Fixture f;
    auto b = f.open(BackendMode::Live, true);
    const size_t gpusBefore = gpuCount(*b);
    InventoryReport r = podA01();
    r.node = r.hostname = "new-1";
    const InventoryReply reply = ok(report(*b, r));
    QCOMPARE(reply.admission, Admission::Admitted);
    QVERIFY(contains(reply.changes,
                     "node new-1 joins the cluster model (8 x H100-SXM5-80GB, leaf leaf-new-1): "
                     "admitted (inventory.auto_admit)"));
    QCOMPARE(gpuCount(*b), gpusBefore + 8);
    const InventoryReply again = ok(report(*b, r));  // now a node of the model
    QCOMPARE(again.admission, Admission::Known);
    QCOMPARE(again.changes.size(), size_t{0});
  }

  // The join rebuilds the engine from the database: a running job keeps its GPUs, the GPUs
  // already in the model keep their ids, and the node is there after a restart.
  void anAdmittedNodeJoinsAndSurvivesARestart() {
    Fixture f;
    InventoryReport r = podA01();
    r.node = r.hostname = "new-2";
    r.cpus = 64;
    r.memoryMiB = 512 * 1024;
    r.leaf = "leaf-extra";
    r.pool = "spare";
    JobId job = kNoJob;
    std::vector<GpuId> placedOn;
    {
      auto b = f.open();
      job = submitDemoJob(*b);
      ok(await<CycleStats>([&](auto reply) { b->cycleNow(reply); }));
      placedOn = gpusOf(*b, job);
      QVERIFY(!placedOn.empty());
      QCOMPARE(ok(report(*b, r)).admission, Admission::Pending);
      QVERIFY(!hasNode(*b, "new-2"));
      QCOMPARE(ok(await<std::string>([&](auto x) { b->admitNode("new-2", "alice", x); })),
               std::string("node new-2 joins the cluster model (8 x H100-SXM5-80GB, 64 CPUs, "
                           "512 GiB, leaf leaf-extra, pool spare)"));
      QVERIFY(hasNode(*b, "new-2"));
      QCOMPARE(gpusOf(*b, job), placedOn);
      QCOMPARE(kindOf(await<std::string>([&](auto x) { b->admitNode("new-2", "alice", x); })),
               ErrorKind::FailedPrecondition);
      QCOMPARE(kindOf(await<std::string>([&](auto x) { b->admitNode("nobody", "alice", x); })),
               ErrorKind::NotFound);
    }
    auto b = f.open();
    QVERIFY(hasNode(*b, "new-2"));
    QCOMPARE(gpusOf(*b, job), placedOn);
    QCOMPARE(ok(report(*b, r)).admission, Admission::Known);
    b->inspect([](const Engine& e) {
      const Node& n = *e.cluster().findNode("new-2");
      QCOMPARE(n.hw->cpus, 64);
      QCOMPARE(n.hw->memoryMiB, int64_t{512 * 1024});
      QCOMPARE(n.pool, std::string("spare"));
      QCOMPARE(e.cluster().switches()[static_cast<size_t>(n.leaf)].name, std::string("leaf-extra"));
    });
  }

  // Two admissions in one batch: the second waits for the engine the first grew, so both
  // nodes join (built from one base, the second would drop the first).
  void twoAdmissionsInOneBatchBothJoin() {
    Fixture f;
    auto b = f.open();
    for (const char* name : {"new-3", "new-4"}) {
      InventoryReport r = podA01();
      r.node = r.hostname = name;
      QCOMPARE(ok(report(*b, r)).admission, Admission::Pending);
    }
    std::promise<void> inside;
    std::thread blocker([&] {
      b->inspect([&](const Engine&) {
        inside.set_value();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      });
    });
    inside.get_future().wait();  // the engine thread is busy: both admissions queue together
    std::promise<std::variant<std::string, ApiError>> first, second;
    b->admitNode("new-3", "alice", [&](auto r) { first.set_value(std::move(r)); });
    b->admitNode("new-4", "alice", [&](auto r) { second.set_value(std::move(r)); });
    blocker.join();
    ok(first.get_future().get());
    ok(second.get_future().get());
    QVERIFY(hasNode(*b, "new-3"));
    QVERIFY(hasNode(*b, "new-4"));
  }

  void aFaultyGpuIsHeldUntilReportedHealthy() {
    Fixture f;
    InventoryReport r = podA01();
    r.gpus[3].fault = "GPU has fallen off the bus";
    {
      auto b = f.open();
      const InventoryReply reply = ok(report(*b, r));
      QVERIFY(
          contains(reply.changes, "GPU pod-a-01/3: GPU has fallen off the bus: held out (fault)"));
      QVERIFY(heldFor(*b, "pod-a-01/3"));
    }
    // After a restart the hold is still the inventory's: telemetry without an Xid keeps it.
    auto b = f.open();
    QVERIFY(heldFor(*b, "pod-a-01/3"));
    onlyAHealthyReportLifts(*b, r);
  }

  // A database written before inventory holds had their owner keeps them as "gpu-fault" holds
  // (what the old tesserad wrote: today's rows with the old owner, schema version 5). Migration 6
  // gives the inventory's back to it, and leaves telemetry's Xid hold alone: after the upgrade
  // telemetry without an Xid keeps the inventory's hold, and a healthy report lifts it.
  void anOlderDatabasesInventoryHoldsAreMigrated() {
    Fixture f;
    InventoryReport r = podA01();
    r.gpus[3].fault = "GPU has fallen off the bus";
    {
      auto b = f.open();
      ok(report(*b, r));
      auto xid = parseDcgmMetrics(
          "DCGM_FI_DEV_XID_ERRORS{gpu=\"5\",Hostname=\"pod-a-01\",err_code=\"79\"} 79\n", "test");
      QVERIFY(xid.ok());
      ok(await<TelemetryPush>([&](auto x) { b->pushTelemetry(*xid, "", x); }));
      QVERIFY(heldFor(*b, "pod-a-01/3"));
      QCOMPARE(holdOwnerOn(*b, "pod-a-01/5"), std::optional<HoldOwner>(HoldOwner::GpuFault));
    }
    {
      auto db = Database::open(f.dir.filePath("inv.db").toStdString());
      QVERIFY(db.ok());
      const Status old = db->exec(
          "UPDATE meta SET value = replace(value, '\"owner\":\"inventory\"', "
          "'\"owner\":\"gpu-fault\"') WHERE key = 'global'; PRAGMA user_version = 5;");
      QVERIFY2(old.ok(), old.ok() ? "" : old.error().str().c_str());
    }
    auto b = f.open();
    QCOMPARE(holdOwnerOn(*b, "pod-a-01/3"), std::optional<HoldOwner>(HoldOwner::Inventory));
    QCOMPARE(holdOwnerOn(*b, "pod-a-01/5"), std::optional<HoldOwner>(HoldOwner::GpuFault));
    b->inspect([](const Engine& e) {
      const NodeHold* h = e.nodeHolds(e.cluster().findNode("pod-a-01")->id)
                              .find(HoldOwner::Inventory, e.cluster().findGpu("pod-a-01/3")->id);
      QCOMPARE(h->reason.english(), std::string("GPU pod-a-01/3: GPU has fallen off the bus"));
    });
    onlyAHealthyReportLifts(*b, r);
    QCOMPARE(holdOwnerOn(*b, "pod-a-01/3"), std::optional<HoldOwner>());
    QCOMPARE(holdOwnerOn(*b, "pod-a-01/5"), std::optional<HoldOwner>(HoldOwner::GpuFault));
  }

  // An operator's undrain clears their own hold and leaves the inventory's: the node says the GPU
  // is gone, and only its report can say otherwise.
  void undrainLeavesTheInventoryHold() {
    Fixture f;
    auto b = f.open();
    InventoryReport r = podA01();
    r.gpus.erase(r.gpus.begin() + 5);  // GPU 5 missing
    ok(report(*b, r));
    QVERIFY(heldFor(*b, "pod-a-01/5"));
    const auto act = [&](Command c) {
      return await<CommandResult>(
          [&](auto reply) { b->act(std::move(c), false, Caller{"alice"}, std::nullopt, reply); });
    };
    ok(act(cmd::Drain{"pod-a-01", literal("cabling")}));
    const CommandResult undrained = ok(act(cmd::Undrain{"pod-a-01"}));
    QVERIFY2(undrained.message.english().find("still") != std::string::npos,
             undrained.message.english().c_str());
    QVERIFY(heldFor(*b, "pod-a-01/5"));
    QCOMPARE(nodeState(*b, "pod-a-01"), NodeState::Draining);
    r = podA01();
    ok(report(*b, r));
    QVERIFY(!heldFor(*b, "pod-a-01/5"));
    QCOMPARE(nodeState(*b, "pod-a-01"), NodeState::Up);
  }

  // The executor's sync (Slurm resumed the node) removes the executor's hold only.
  void executorSyncLeavesTheInventoryHold() {
    Fixture f;
    auto b = f.open();
    InventoryReport r = podA01();
    r.gpus[2].fault = "GPU has fallen off the bus";
    ok(report(*b, r));
    f.observed->nodes.push_back({"pod-a-01", true, false, literal("slurm: drained")});
    ok(await<CycleStats>([&](auto reply) { b->cycleNow(reply); }));
    bool executorHeld = false;
    b->inspect([&](const Engine& e) {
      executorHeld =
          e.nodeHolds(e.cluster().findNode("pod-a-01")->id).find(HoldOwner::Executor) != nullptr;
    });
    QVERIFY(executorHeld);  // the sync is seen
    f.observed->nodes.push_back({"pod-a-01", false, false, {}});
    ok(await<CycleStats>([&](auto reply) { b->cycleNow(reply); }));
    QVERIFY(heldFor(*b, "pod-a-01/2"));
    QCOMPARE(nodeState(*b, "pod-a-01"), NodeState::Draining);
  }

  // A repartition of a GPU whose node reported its layout is MIG work for the node's agent: the
  // node is held (mig-reconfigure) and each push is answered with the layout; the old layout
  // reported again does not undo it, an operator's undrain leaves the hold, and the report with
  // the planned layout lifts it.
  void repartitionIsMigWorkUntilTheNodeReportsIt() {
    Fixture f;
    auto b = f.open();
    InventoryReport r = infA100s();
    ok(report(*b, r));
    const auto act = [&](Command c) {
      return await<CommandResult>(
          [&](auto reply) { b->act(std::move(c), false, Caller{"alice"}, std::nullopt, reply); });
    };
    const auto push = [&] { return pushTo(*b, "inf-01"); };
    const auto migHeld = [&] { return holdOwnerOn(*b, "inf-01/4") == HoldOwner::MigReconfigure; };
    QVERIFY(push().migApply.empty());
    ok(act(cmd::Repartition{"inf-01/4", "7g.80gb@0", false}));
    TelemetryPush pushed = push();
    QCOMPARE(pushed.migApply.size(), size_t{1});
    QCOMPARE(pushed.migApply[0].gpu, 4);
    QCOMPARE(pushed.migApply[0].model, std::string("A100-SXM4-80GB"));
    QCOMPARE(pushed.migApply[0].layout, std::string("7g.80gb@0"));
    QVERIFY(pushed.migApply[0].drained);
    QVERIFY(migHeld());
    QCOMPARE(nodeState(*b, "inf-01"), NodeState::Draining);

    ok(report(*b, r));  // the node as it was: not a change on the node
    QCOMPARE(push().migApply.size(), size_t{1});
    (void)act(cmd::Undrain{"inf-01"});
    QVERIFY(migHeld());

    r.gpus[4].migLayout = "7g.80gb@0";
    const InventoryReply applied = ok(report(*b, r));
    QVERIFY2(
        contains(applied.changes, "inf-01/4: MIG layout 7g.80gb@0 is on the node: hold lifted"),
        applied.changes.empty() ? "" : applied.changes.front().c_str());
    QVERIFY(!migHeld());
    QCOMPARE(nodeState(*b, "inf-01"), NodeState::Up);
    QVERIFY(push().migApply.empty());
  }

  // tesserad stops after planning a repartition and before anything held the node or the agent
  // applied it (no cycle, no push in between). After the restart the node's first report, the
  // old layout again, is no news: the plan stands, the node is held, pushes are answered with
  // the planned layout, and the report that shows it lifts the hold.
  void aPendingRepartitionSurvivesARestart() {
    Fixture f;
    InventoryReport r = infA100s();
    {
      auto b = f.open();
      ok(report(*b, r));
      ok(await<CommandResult>([&](auto reply) {
        b->act(cmd::Repartition{"inf-01/4", "7g.80gb@0", false}, false, Caller{"alice"},
               std::nullopt, reply);
      }));
      QCOMPARE(holdOwnerOn(*b, "inf-01/4"), std::optional<HoldOwner>());  // not held yet
    }
    auto b = f.open();
    ok(await<CycleStats>([&](auto reply) { b->cycleNow(reply); }));
    QCOMPARE(holdOwnerOn(*b, "inf-01/4"), std::optional<HoldOwner>(HoldOwner::MigReconfigure));
    const InventoryReply again = ok(report(*b, r));
    QVERIFY2(again.changes.empty(), again.changes.empty() ? "" : again.changes.front().c_str());
    for (const auto& w : again.warnings)  // not taken for an apply that stopped part-way
      QVERIFY2(w.find("not the planned") == std::string::npos, w.c_str());
    QCOMPARE(layoutOf(*b, "inf-01/4"), std::string("7g.80gb@0"));
    const TelemetryPush pushed = pushTo(*b, "inf-01");
    QCOMPARE(pushed.migApply.size(), size_t{1});
    QCOMPARE(pushed.migApply[0].layout, std::string("7g.80gb@0"));
    QVERIFY(pushed.migApply[0].drained);
    r.gpus[4].migLayout = "7g.80gb@0";
    QVERIFY(contains(ok(report(*b, r)).changes,
                     "inf-01/4: MIG layout 7g.80gb@0 is on the node: hold lifted"));
    QCOMPARE(nodeState(*b, "inf-01"), NodeState::Up);
  }

  void mismatchesAreWarnings() {
    Fixture f;
    auto b = f.open();
    InventoryReport r = podA01();
    r.gpus[0].model = "A100-SXM4-80GB";
    r.gpus[1].migEnabled = true;
    r.gpus[1].migLayout = "-";
    InventoryGpu extra = r.gpus[2];
    extra.index = 8;
    extra.uuid = "GPU-8";
    r.gpus.push_back(extra);
    r.warnings = {"H100-SXM5-80GB: profile 19 has 9984 MiB on the node, the catalog says 10240"};
    const InventoryReply reply = ok(report(*b, r));
    QCOMPARE(reply.admission, Admission::Known);
    QVERIFY(contains(reply.warnings, r.warnings[0]));  // the agent's catalog check, kept
    QVERIFY(contains(reply.warnings,
                     "pod-a-01/0 is A100-SXM4-80GB on the node but H100-SXM5-80GB in the "
                     "cluster model"));
    QVERIFY(contains(reply.warnings,
                     "pod-a-01/1: MIG mode is on on the node but not in the cluster model"));
    QVERIFY(contains(reply.warnings,
                     "pod-a-01 reports GPU 8, which the cluster model lacks (it has 8)"));
    const auto listed =
        ok(await<std::vector<NodeInventoryView>>([&](auto x) { b->nodeInventory(x); }));
    QCOMPARE(listed.size(), size_t{1});
    QCOMPARE(listed[0].warnings, reply.warnings);
  }

  void aSimulatedClusterRefusesReports() {
    Fixture f;
    auto b = f.open(BackendMode::SimulatedLive);
    const auto refused = report(*b, podA01());
    QVERIFY(std::holds_alternative<ApiError>(refused));
    QCOMPARE(std::get<ApiError>(refused).kind, ErrorKind::FailedPrecondition);
    QCOMPARE(std::get<ApiError>(refused).message,
             std::string("node inventories are taken in live mode only"));
  }
};

QTEST_GUILESS_MAIN(TstNodeInventory)
#include "tst_node_inventory.moc"
