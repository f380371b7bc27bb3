// MPS below the scenarios: the catalog's per-architecture client limits, the cluster spec's mps:
// sharing (alone and inside MIG instances) with its located errors and export, and the cluster
// state's MPS servers under transactions (undo restores clients and their order) and the
// invariant checker.
#include <QtTest>

#include <random>
#include <string>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "mps_spec.h"
#include "scheduler/gpu_room.h"
#include "scheduler/mps_check.h"
#include "scheduler/node_filter.h"
#include "scheduler/transaction.h"
#include "topology/gpu_catalog.h"

using namespace tessera;

namespace {

// p1/0 runs MPS by user with a thread budget of 150; m1/0 runs MPS in its MIG instances.
const char* const kSpec = test::kMpsClusterSpec;

std::shared_ptr<const Cluster> load(const std::string& text) {
  auto c = loadClusterSpec(text, "spec.yaml");
  if (!c) qFatal("%s", c.error().str().c_str());
  return *c;
}

std::string loadError(const std::string& overrideGpus) {
  const std::string text = R"(version: 1
name: bad
node_templates:
  l40s: {gpu_model: L40S, gpus: 1}
  v: {gpu_model: A100-SXM4-40GB, gpus: 1}
fabric:
  leafs: [{name: l1}]
nodes:
  - {name: p1, template: l40s, leaf: l1}
  - {name: a1, template: v, leaf: l1}
overrides:
)" + overrideGpus;
  auto c = loadClusterSpec(text, "spec.yaml");
  return c.ok() ? "" : c.error().str();
}

MpsAsk ask(JobId job, int threads, int64_t mib, std::string team, std::string user = "") {
  return {job, threads, mib, std::move(team), std::move(user)};
}

}  // namespace

class TstEngineMps : public QObject {
  Q_OBJECT

 private slots:
  // The table in resources/gpu-catalog.yaml: 16 before Volta, 48 from Volta on.
  void catalogClientLimitsByArchitecture() {
    const GpuCatalog& c = GpuCatalog::builtin();
    QCOMPARE(c.find("P100")->mpsMaxClients, 16);
    QCOMPARE(c.find("H100-SXM5-80GB")->mpsMaxClients, 48);
    QCOMPARE(c.find("L40S")->mpsMaxClients, 48);
    QCOMPARE(c.mpsClientLimits().at("pascal"), 16);
  }

  // A user catalog without its own table takes the built-in limits; a model may override them.
  void userCatalogTakesTheTableOrItsOwnFigure() {
    auto user = GpuCatalog::fromYaml(R"(version: 1
models:
  - {id: X1, product_name: "X1", architecture: hopper, memory_mib: 1000}
  - {id: X2, product_name: "X2", architecture: hopper, memory_mib: 1000, mps_max_clients: 8}
)",
                                     "user.yaml");
    QVERIFY2(user.ok(), user.ok() ? "" : user.error().str().c_str());
    QCOMPARE(user->find("X1")->mpsMaxClients, 0);  // no table in the file itself
    GpuCatalog merged = GpuCatalog::builtin();
    QVERIFY(merged.merge(*user).ok());
    QCOMPARE(merged.find("X1")->mpsMaxClients, 48);
    QCOMPARE(merged.find("X2")->mpsMaxClients, 8);
  }

  void catalogTableErrorsAreLocated() {
    auto bad = GpuCatalog::fromYaml(R"(version: 1
mps_client_limits:
  source: "x"
  by_architecture: {kepler: 16}
models: []
)",
                                    "c.yaml");
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().str().find("c.yaml:4") != std::string::npos);
    QVERIFY(bad.error().str().find("unknown architecture 'kepler'") != std::string::npos);
  }

  void specReadsMpsAloneAndInsideMig() {
    const auto c = load(kSpec);
    const Gpu& alone = *c->findGpu("p1/0");
    QCOMPARE(int(alone.sharing.mode), int(SharingMode::Mps));
    QVERIFY(alone.sharing.runsMps());
    QCOMPARE(int(alone.sharing.mps.coLocation), int(MpsCoLocation::User));
    QCOMPARE(alone.sharing.mps.threadBudget, 150);
    QVERIFY(!c->findGpu("p1/1")->sharing.runsMps());
    const Gpu& mig = *c->findGpu("m1/0");
    QCOMPARE(int(mig.sharing.mode), int(SharingMode::Mig));
    QVERIFY(mig.sharing.runsMps());
    QVERIFY(!mig.sharing.offersMigInstances());
    QCOMPARE(int(mig.sharing.mps.coLocation), int(MpsCoLocation::Team));
    QCOMPARE(mig.sharing.mps.threadBudget, 100);
  }

  // Export writes mps: so that loading the output gives the same sharing.
  void exportKeepsMps() {
    const auto c = load(kSpec);
    const std::string text = writeClusterSpec(*c);
    QVERIFY(text.find("mps: {co_location: user, thread_budget: 150, node_sharing: all}") !=
            std::string::npos);
    const auto again = load(text);
    QCOMPARE(again->findGpu("p1/0")->sharing.mps, c->findGpu("p1/0")->sharing.mps);
    QCOMPARE(again->findGpu("m1/0")->sharing.mps, c->findGpu("m1/0")->sharing.mps);
    QCOMPARE(writeClusterSpec(*again), text);
  }

  // A node's MPS GPUs share one node_sharing (Slurm's flag is per gres.conf Name=mps line): a
  // node that mixes them is refused at its definition, under the loader's default too.
  void nodeSharingMixedInANodeIsRefused() {
    const auto spec = [](const std::string& gpu0, const std::string& gpu1) {
      return "version: 1\nname: mixed\nnode_templates:\n  l40s: {gpu_model: L40S, gpus: 2}\n"
             "fabric:\n  leafs: [{name: l1}]\nnodes:\n  - {name: n0, template: l40s, leaf: l1}\n"
             "  - {name: n1, template: l40s, leaf: l1}\noverrides:\n"
             "  - {nodes: n1, gpus: {\"0\": {mps: " +
             gpu0 + "}, \"1\": {mps: " + gpu1 + "}}}\n";
    };
    const auto mixed =
        loadClusterSpec(spec("{node_sharing: one}", "{node_sharing: all}"), "m.yaml");
    QVERIFY(!mixed);
    QCOMPARE(
        mixed.error().str(),
        std::string("m.yaml:9:12: nodes[1].name: node 'n1' mixes MPS node_sharing: GPU 0 says one, "
                    "GPU 1 all; a node has one value (Slurm's flag on its gres.conf Name=mps "
                    "line), so give all its MPS GPUs the same"));
    QVERIFY(loadClusterSpec(spec("{node_sharing: one}", "{node_sharing: one}"), "m.yaml"));
    // Left out, GPU 1 takes the loader's default: all agrees with all, one (executor slurm)
    // does not.
    QVERIFY(loadClusterSpec(spec("{node_sharing: all}", "true"), "m.yaml"));
    ClusterSpecOptions slurm;
    slurm.mpsNodeSharing = MpsNodeSharing::One;
    const auto underSlurm = loadClusterSpec(spec("{node_sharing: all}", "true"), "m.yaml", slurm);
    QVERIFY(!underSlurm);
    QVERIFY2(underSlurm.error().str().find("GPU 0 says all, GPU 1 one") != std::string::npos,
             underSlurm.error().str().c_str());
  }

  void specErrorsNameTheField() {
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {mps: {co_location: dept}}}}\n")
                .find("co_location must be team, user or any, got 'dept'") != std::string::npos);
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {mps: {thread_budget: 99}}}}\n")
                .find("must be at least 100") != std::string::npos);
    // Above 100 % for each of the 48 clients a server takes, no budget means anything.
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {mps: {thread_budget: 4801}}}}\n")
                .find("must be at most 4800") != std::string::npos);
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {timeslice: 2, mps: {}}}}\n")
                .find("give exactly one of") != std::string::npos);
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {mps: false}}}\n").find("means nothing") !=
            std::string::npos);
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {mps: {}}}}\n").empty());
    QVERIFY(loadError("  - {nodes: a1, gpus: {\"0\": {mig: \"7g.40gb\", mps: {}}}}\n").empty());
  }

  // Thread budget, pinned memory and co-location, each refusal naming the GPU.
  void fitChecksInOrder() {
    ClusterState s(load(kSpec));
    const GpuId g = s.cluster().findGpu("p1/0")->id;
    QVERIFY(s.takeMps(g, ask(1, 100, 20000, "a", "alice")).ok());
    auto threads = s.mpsFit(g, ask(2, 60, 1000, "b", "alice"));
    QCOMPARE(int(threads.refusal), int(MpsRefusal::Threads));
    QVERIFY(threads.why.english().find("GPU p1/0 has 50 %") != std::string::npos);
    auto memory = s.mpsFit(g, ask(2, 50, 30000, "b", "alice"));
    QCOMPARE(int(memory.refusal), int(MpsRefusal::Memory));
    auto user = s.mpsFit(g, ask(2, 10, 1000, "a", "bob"));
    QCOMPARE(int(user.refusal), int(MpsRefusal::CoLocation));
    QCOMPARE(user.why.english(),
             std::string("GPU p1/0 runs MPS clients of user alice; user bob may not share it"));
    QVERIFY(s.mpsFit(g, ask(2, 50, 26000, "b", "alice")).ok());
    QCOMPARE(int(s.mpsFit(s.cluster().findGpu("p1/1")->id, ask(2, 10, 1, "a")).refusal),
             int(MpsRefusal::NotMps));
    QCOMPARE(int(s.mpsFit(g, ask(1, 1, 1, "a", "alice")).refusal), int(MpsRefusal::AlreadyThere));
  }

  // node_sharing: one (Slurm's one_sharing): once a GPU of the node serves clients, an idle GPU
  // takes none - the refusal names the rule and the serving GPU's own refusal, or that the
  // serving GPU would take the client - and the quick check agrees. node_sharing: all lets the
  // idle GPU serve. A client restored onto a named server (it runs there) is not refused.
  void nodeSharingOneKeepsClientsOnTheServingGpus() {
    const auto spec = [](const std::string& sharing) {
      return load(R"(version: 1
name: one
node_templates:
  l40s: {gpu_model: L40S, gpus: 2}
fabric:
  leafs: [{name: l1}]
nodes:
  - {name: n1, template: l40s, leaf: l1}
overrides:
  - nodes: n1
    gpus: {"0-1": {mps: {node_sharing: )" +
                  sharing + "}}}\n");
    };
    ClusterState one(spec("one"));
    const GpuId g0 = one.cluster().findGpu("n1/0")->id;
    const GpuId g1 = one.cluster().findGpu("n1/1")->id;
    QCOMPARE(int(one.cluster().gpu(g1).sharing.mps.nodeSharing), int(MpsNodeSharing::One));
    QVERIFY(one.mpsFit(g1, ask(9, 25, 1024, "t")).ok());  // nothing serves yet: any GPU
    QVERIFY(one.takeMps(g0, ask(1, 60, 1024, "t")).ok());
    const std::string rule =
        "node n1 serves MPS on GPU 0 only (one GPU per node at a time, Slurm's one_sharing); ";
    MpsFit idle = one.mpsFit(g1, ask(3, 25, 1024, "t"));
    QCOMPARE(int(idle.refusal), int(MpsRefusal::OtherGpuServes));
    QCOMPARE(idle.why.english(), rule + "the client may join GPU 0");
    QVERIFY(one.takeMps(g0, ask(2, 30, 1024, "t")).ok());
    idle = one.mpsFit(g1, ask(3, 25, 1024, "t"));
    QCOMPARE(idle.why.english(),
             rule + "GPU n1/0 has 10 % of its MPS active threads left; the task asks 25 %");
    QCOMPARE(int(checkMps(one, g1, ask(3, 25, 1024, "t")).refusal),
             int(MpsRefusal::OtherGpuServes));
    QVERIFY(checkMps(one, g0, ask(3, 10, 1024, "t")).ok());
    QVERIFY(one.takeMps(g1, ask(3, 25, 1024, "t"), -1).ok());  // restored: it runs there

    ClusterState all(spec("all"));
    QVERIFY(all.takeMps(all.cluster().findGpu("n1/0")->id, ask(1, 60, 1024, "t")).ok());
    QVERIFY(checkMps(all, all.cluster().findGpu("n1/1")->id, ask(3, 25, 1024, "t")).ok());
  }

  // Left out, node_sharing is the loader's default: all, or one where tesserad runs Slurm.
  void nodeSharingDefaultsToTheLoaders() {
    QCOMPARE(int(load(kSpec)->findGpu("p1/0")->sharing.mps.nodeSharing), int(MpsNodeSharing::All));
    ClusterSpecOptions slurm;
    slurm.mpsNodeSharing = MpsNodeSharing::One;
    const auto c = loadClusterSpec(kSpec, "spec.yaml", slurm);
    QVERIFY(c);
    QCOMPARE(int((*c)->findGpu("p1/0")->sharing.mps.nodeSharing), int(MpsNodeSharing::One));
    QVERIFY(writeClusterSpec(**c).find("thread_budget: 150, node_sharing: one}") !=
            std::string::npos);
    QVERIFY(loadError("  - {nodes: p1, gpus: {\"0\": {mps: {node_sharing: some}}}}\n")
                .find("node_sharing must be one or all, got 'some'") != std::string::npos);
  }

  // Searches ask checkMps, which must agree with mpsFit on every answer and word nothing.
  void quickCheckAgreesWithTheWordedOne() {
    ClusterState s(load(kSpec));
    const GpuId p = s.cluster().findGpu("p1/0")->id;
    const GpuId m = s.cluster().findGpu("m1/0")->id;
    QVERIFY(s.takeMps(p, ask(1, 100, 20000, "a", "alice")).ok());
    QVERIFY(s.takeMps(m, ask(2, 60, 12288, "t")).ok());
    int refusals = 0;
    for (GpuId g : {p, m, s.cluster().findGpu("p1/1")->id})
      for (const MpsAsk& a : {ask(3, 60, 1000, "b", "alice"), ask(3, 50, 30000, "b", "alice"),
                              ask(3, 10, 1000, "a", "bob"), ask(3, 50, 26000, "b", "alice"),
                              ask(1, 1, 1, "a", "alice"), ask(3, 30, 10240, "t")}) {
        const MpsFit worded = s.mpsFit(g, a);
        const MpsFit quick = checkMps(s, g, a);
        QCOMPARE(int(quick.refusal), int(worded.refusal));
        QCOMPARE(quick.instanceStart, worded.instanceStart);
        QVERIFY(quick.why.empty());
        refusals += worded.ok() ? 0 : 1;
      }
    QVERIFY(refusals > 0 && refusals < 18);
  }

  // Backfill's room (gpu_room.h) counts the shares, MPS clients or MIG instances GPUs could take
  // and skips a trial placement when too few could: over random occupancies it must say "may fit"
  // exactly when the node filter finds enough such GPUs (never skipping a placement that would
  // succeed), and must sometimes say no (a room left inactive for these kinds says yes always).
  // n3's MPS GPUs keep to one GPU per node at a time (node_sharing: one).
  void roomCountsSharesAndMpsClients() {
    const auto cluster = load(R"(version: 1
name: room
node_templates:
  l40s: {gpu_model: L40S, gpus: 4}
  a100: {gpu_model: A100-SXM4-40GB, gpus: 2}
fabric:
  leafs: [{name: l1}]
nodes:
  - {name: n1, template: l40s, leaf: l1}
  - {name: n2, template: l40s, leaf: l1}
  - {name: n3, template: l40s, leaf: l1}
  - {name: a1, template: a100, leaf: l1}
  - {name: a2, template: a100, leaf: l1}
overrides:
  - nodes: n1,n2
    gpus: {"0": {timeslice: 4}, "1": {timeslice: 4}, "2": {mps: {}}, "3": {mps: {}}}
  - nodes: n3
    gpus: {"0": {timeslice: 4}, "1": {timeslice: 4}, "2-3": {mps: {node_sharing: one}}}
  - nodes: a1,a2
    gpus: {"0": {mig: "3g.20gb@0,3g.20gb@4"}, "1": {mig: "3g.20gb@0"}}
)");
    const int p3g = cluster->modelOf(12).mig->profileIndex("3g.20gb");
    QVERIFY(p3g >= 0);
    Workload w;
    w.teams = {Team{"a", "", 1, {}}, Team{"b", "", 1, {}}};
    auto engine = Engine::create(cluster, w, Policy{});
    QVERIFY(engine.ok());
    std::mt19937 rng(7);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const std::string teams[2] = {"a", "b"};
    int said[2] = {0, 0};
    JobId next = 1;
    for (int round = 0; round < 300; ++round) {
      ClusterState s(cluster);
      for (int k = pick(30); k-- > 0;) {
        const GpuId g = static_cast<GpuId>(pick(16));
        const std::string& team = teams[pick(2)];
        if (g >= 12)
          (void)s.takeMigInstance(g, p3g, next++, true);
        else if (g % 4 < 2)
          (void)s.takeShare(g, next++, 250 * (1 + pick(3)), 1024);
        else
          (void)s.takeMps(g, ask(next++, 20 * (1 + pick(4)), 4096, team));
      }
      JobRecord rec;
      rec.job.id = next++;
      rec.job.team = teams[pick(2)];
      rec.job.tasks = 1 + pick(4);
      rec.job.estimatedRuntime = 3600;
      const int kind = pick(3);
      if (kind == 2) {
        rec.job.perTask.kind = GpuRequest::Kind::Mig;
        rec.job.perTask.migProfile = "3g.20gb";
      } else if (kind == 1) {
        rec.job.perTask.kind = GpuRequest::Kind::Fraction;
        rec.job.perTask.milli = 250 * (1 + pick(3));
        rec.job.perTask.vramMiB = 1024;
      } else {
        rec.job.perTask.kind = GpuRequest::Kind::Mps;
        rec.job.perTask.mpsThreads = 20 * (1 + pick(4));
        rec.job.perTask.vramMiB = 4096;
      }
      int tasks = 0;
      for (const auto& [node, n] : filterNodes(s, rec.job, nullptr).fits) tasks += n;
      GpuRoom room(*engine, s, nullptr, rec);
      room.advanceTo(0);
      QCOMPARE(room.mayFit(), tasks >= rec.job.tasks);
      ++said[room.mayFit() ? 1 : 0];
    }
    QVERIFY(said[0] > 20 && said[1] > 20);
  }

  // Inside MIG: one server per instance, each with the instance's memory; MIG-profile takes
  // are refused on such a GPU, and a repartition may not remove an instance with clients.
  void migInstancesServeSeparately() {
    ClusterState s(load(kSpec));
    const GpuId g = s.cluster().findGpu("m1/0")->id;
    auto first = s.takeMps(g, ask(1, 60, 12288, "t"));
    QVERIFY(first.ok());
    auto second = s.takeMps(g, ask(2, 60, 12288, "t"));
    QVERIFY(second.ok());
    QVERIFY(*first != *second);
    QVERIFY(*first >= 0 && *second >= 0);
    const auto third = s.mpsFit(g, ask(3, 30, 10240, "t"));
    QCOMPARE(int(third.refusal), int(MpsRefusal::Memory));
    const auto mig = s.takeMigInstance(g, 0, 9, false);
    QVERIFY(!mig.ok());
    QVERIFY(mig.error().str().find("for MPS clients only") != std::string::npos);
    QVERIFY(!s.setMigLayout(g, MigLayout{}).ok());
    QVERIFY(checkInvariants(s).empty());
  }

  // Discarding a transaction gives back taken clients and puts released ones back in order.
  void transactionUndoesMpsChanges() {
    ClusterState s(load(kSpec));
    const GpuId g = s.cluster().findGpu("p1/0")->id;
    QVERIFY(s.takeMps(g, ask(1, 20, 1000, "a", "u")).ok());
    QVERIFY(s.takeMps(g, ask(2, 20, 1000, "a", "u")).ok());
    QVERIFY(s.takeMps(g, ask(3, 20, 1000, "a", "u")).ok());
    const GpuOccupancy before = s.gpu(g);
    {
      Transaction tx(s);
      tx.releaseJob(2);
      QVERIFY(tx.takeMps(g, ask(4, 50, 1000, "a", "u")).ok());
      QCOMPARE(s.gpu(g).mpsClients.size(), size_t{3});
      QCOMPARE(s.gpu(g).mpsClients[1].job, JobId{3});
    }
    QVERIFY(s.gpu(g) == before);
    {
      Transaction tx(s);
      tx.releaseJob(1);
      tx.commit();
    }
    QCOMPARE(s.gpu(g).mpsClients.size(), size_t{2});
    QVERIFY(checkInvariants(s).empty());
  }

  void invariantsCatchBrokenMpsState() {
    ClusterState s(load(kSpec));
    const GpuId g = s.cluster().findGpu("p1/0")->id;
    s.unsafeGpu(g).mpsClients.push_back({1, 100, 1, -1, "a", "u"});
    s.unsafeGpu(g).mpsClients.push_back({2, 100, 1, -1, "a", "u"});
    const auto problems = checkInvariants(s);
    QCOMPARE(problems.size(), size_t{1});
    QVERIFY(problems[0].find("over the thread budget") != std::string::npos);
    // On a GPU without MPS: no MPS there, and no server for the client either.
    s.unsafeGpu(s.cluster().findGpu("p1/1")->id).mpsClients.push_back({3, 1, 1, -1, "a", "u"});
    QCOMPARE(checkInvariants(s).size(), size_t{3});
  }
};

QTEST_APPLESS_MAIN(TstEngineMps)
#include "tst_engine_mps.moc"
