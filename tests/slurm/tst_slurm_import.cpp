// Importing a Slurm cluster (slurm_import.h) on the output recorded from the test cluster
// (data/README.md): nodes, GPU models, whole and MIG GPUs, pools, states, leafs and spines, and the
// spec loading back; type mapping, per-slot MIG types, errors that name the node, malformed
// input, and the merge with a Tessera spec: one case per conflict kind. Expected values come from
// the recorded documents (parsed here) and the catalog, not from the importer's own output.
#include <QtTest>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "clusterspec/cluster_spec.h"
#include "core/strings.h"
#include "import_test_util.h"
#include "mig/mig_validate.h"
#include "slurm/slurm_import.h"

using namespace tessera;
using namespace tessera::slurm;
using tessera::test::countsOf;

Q_DECLARE_METATYPE(std::string)

namespace {

std::string readData(const std::string& name) {
  std::ifstream in(std::string(TESSERA_TEST_DATA) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SlurmInventory recorded() {
  SlurmInventory inv;
  auto nodes = parseSinfoJson(readData("sinfo.json"));
  auto switches = parseShowTopology(readData("show-topology.txt"));
  if (!nodes || !switches) qFatal("recorded data does not parse");
  inv.nodes = nodes->nodes;
  inv.switches = *switches;
  inv.clusterName = parseShowConfig(readData("show-config.txt")).get("ClusterName");
  return inv;
}

SlurmNode gpuNode(const std::string& name, const std::string& gres) {
  SlurmNode n;
  n.name = name;
  n.state = slurm::NodeState::Idle;
  n.stateText = "idle";
  n.cpus = 32;
  n.realMemoryMb = 256 * 1024;
  n.partitions = {"batch"};
  auto parsed = parseGresList(gres);
  if (!parsed) qFatal("bad gres in test: %s", gres.c_str());
  n.gres = *parsed;
  return n;
}

SlurmSwitch leafSwitch(const std::string& name, std::vector<std::string> nodes) {
  SlurmSwitch s;
  s.name = name;
  s.nodes = std::move(nodes);
  return s;
}

std::string errorOf(const Expected<SlurmImportResult>& r) {
  return r.ok() ? std::string() : r.error().message;
}

bool hasWarning(const SlurmImportResult& r, const std::string& subject, const std::string& field) {
  for (const auto& w : r.warnings)
    if (w.subject == subject && w.field == field) return true;
  return false;
}

// A spec for the recorded cluster: node1/node2 4 x H100 with two NUMA zones, node3 4 x A100 80GB
// with the same MIG instances as Slurm on GPUs 0 and 1 (Slurm's packing puts them on 2 and 3).
// Rows of the merge test replace one line.
const char* kBaseSpec = R"(version: 1
name: lab
node_templates:
  hgx-h100:
    gpu_model: H100-SXM5-80GB
    gpus: 4
    cpus: 64
    memory_gib: 500
    numa:
      - {cpus: "0-31", gpus: [0, 1]}
      - {cpus: "32-63", gpus: [2, 3]}
  a100-box:
    gpu_model: A100-SXM4-80GB
    gpus: 4
    cpus: 64
    memory_gib: 500
fabric:
  spines: [top]
  leafs:
    - {name: s1, spine: top}
    - {name: s2, spine: top}
    - {name: other, spine: top}
nodes:
  - {name: node1, template: hgx-h100, leaf: s1, pool: gpu, labels: {rack: r1}, driver: "550.90.07"}
  - {name: node2, template: hgx-h100, leaf: s1, pool: gpu}
  - name: node3
    template: a100-box
    leaf: s2
    pool: gpu
    state: draining
    labels: {slurm.reason: "psu swap [ticket=42] by ops"}
    gpus:
      "0": {mig: "3g.40gb@0,3g.40gb@4"}
      "1": {mig: "1g.10gb@0,1g.10gb@1"}
)";

std::shared_ptr<const Cluster> loadSpec(const std::string& text) {
  auto c = loadClusterSpec(text, "extra.yaml");
  if (!c) qFatal("test spec does not load: %s", c.error().str().c_str());
  return *c;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) qFatal("test spec has no '%s'", from.c_str());
  return text.replace(at, from.size(), to);
}

}  // namespace

class TestSlurmImport : public QObject {
  Q_OBJECT

 private slots:
  void recordedCluster() {
    const SlurmInventory inv = recorded();
    auto r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Cluster& c = *r->cluster;
    QCOMPARE(c.name, std::string("tessera-test"));
    QCOMPARE(c.nodes().size(), inv.nodes.size());
    QVERIFY(r->conflicts.empty());
    for (const SlurmNode& s : inv.nodes) {
      const Node* n = c.findNode(s.name);
      QVERIFY2(n, s.name.c_str());
      const auto slurmCounts = countsOf(s.gres);
      const auto counts = countsOf(c, *n);
      const std::string type = s.gres.front().type;
      QCOMPARE(n->gpuModel().id, std::string(type == "h100" ? "H100-SXM5-80GB" : "A100-SXM4-80GB"));
      QCOMPARE(counts.mig, slurmCounts.mig);
      QCOMPARE(counts.whole, slurmCounts.whole);
      // Whole GPUs first, MIG GPUs after them.
      for (int i = 0; i < n->gpuCount(); ++i)
        QCOMPARE(c.gpu(n->firstGpu + static_cast<GpuId>(i)).sharing.mode == SharingMode::Mig,
                 i >= slurmCounts.whole);
      QCOMPARE(n->hw->cpus, s.cpus);
      QCOMPARE(n->hw->memoryMiB, s.realMemoryMb / 1024 * 1024);
      QCOMPARE(n->pool, s.partitions.front());
      const bool drained = s.hasFlag("DRAIN");
      QCOMPARE(n->state, drained ? tessera::NodeState::Draining : tessera::NodeState::Up);
      if (drained) {
        QCOMPARE(n->labels.at("slurm.reason"), s.reason);
        QVERIFY(hasWarning(*r, "node " + s.name, "state"));
      } else {
        QVERIFY(!n->labels.count("slurm.reason"));
      }
    }
    // node3: 3g.40gb x2 fill all 8 memory slices of one A100 80GB, so the 1g.10gb instances need
    // a second GPU: 2 MIG GPUs, not one per instance.
    const Node& node3 = *c.findNode("node3");
    QCOMPARE(countsOf(c, node3).migGpus, 2);
    for (int i = 0; i < node3.gpuCount(); ++i) {
      const Gpu& g = c.gpu(node3.firstGpu + static_cast<GpuId>(i));
      if (g.sharing.mode == SharingMode::Mig)
        QVERIFY(validateMigLayout(*node3.gpuModel().mig, g.sharing.mig).ok());
    }
    // Leafs are the switches with nodes and no switches below; the one above them is the spine.
    for (const SlurmSwitch& sw : inv.switches) {
      const FabricSwitch* f = c.findSwitch(sw.name);
      QVERIFY2(f, sw.name.c_str());
      QCOMPARE(f->tier, sw.switches.empty() ? SwitchTier::Leaf : SwitchTier::Spine);
      if (!sw.switches.empty()) continue;
      QCOMPARE(c.switches()[static_cast<size_t>(f->parent)].name, std::string("top"));
      for (const auto& node : sw.nodes) QCOMPARE(c.leafOf(c.findNode(node)->id), f->id);
    }
    QCOMPARE(c.switches().size(), inv.switches.size());
  }

  void recordedSpecLoadsBack() {
    auto r = importSlurmCluster(recorded(), {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    auto again = loadClusterSpec(r->yaml, "imported.yaml");
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().str().c_str());
    const Cluster& a = *r->cluster;
    const Cluster& b = **again;
    QCOMPARE(b.nodes().size(), a.nodes().size());
    QCOMPARE(b.gpus().size(), a.gpus().size());
    for (const Node& n : a.nodes()) {
      const Node* m = b.findNode(n.name);
      QVERIFY(m);
      QCOMPARE(m->gpuModel().id, n.gpuModel().id);
      QCOMPARE(m->gpuCount(), n.gpuCount());
      QCOMPARE(m->state, n.state);
      QCOMPARE(m->labels, n.labels);
      QCOMPARE(b.switches()[static_cast<size_t>(m->leaf)].name,
               a.switches()[static_cast<size_t>(n.leaf)].name);
      for (int i = 0; i < n.gpuCount(); ++i)
        QVERIFY(b.gpu(m->firstGpu + static_cast<GpuId>(i)).sharing.mig ==
                a.gpu(n.firstGpu + static_cast<GpuId>(i)).sharing.mig);
    }
  }

  void migGresTypes_data() {
    QTest::addColumn<std::string>("type");
    QTest::addColumn<bool>("mig");
    QTest::addColumn<std::string>("model");
    QTest::addColumn<std::string>("profile");
    QTest::addColumn<int>("start");
    QTest::newRow("model_profile") << std::string("a100_3g.40gb") << true << std::string("a100")
                                   << std::string("3g.40gb") << -1;
    QTest::newRow("per-slot") << std::string("H100_3g.40gb_s4") << true << std::string("h100")
                              << std::string("3g.40gb") << 4;
    QTest::newRow("bare profile") << std::string("1g.10gb") << true << std::string()
                                  << std::string("1g.10gb") << -1;
    QTest::newRow("nvml name") << std::string("nvidia_h100_80gb_hbm3_1g.10gb") << true
                               << std::string("nvidia_h100_80gb_hbm3") << std::string("1g.10gb")
                               << -1;
    QTest::newRow("+me") << std::string("h100_1g.10gb+me") << true << std::string("h100")
                         << std::string("1g.10gb+me") << -1;
    QTest::newRow("whole") << std::string("h100") << false << std::string() << std::string() << -1;
    QTest::newRow("per-device") << std::string("h100_g5") << false << std::string() << std::string()
                                << -1;
    QTest::newRow("sxm name") << std::string("a100_sxm4_80gb") << false << std::string()
                              << std::string() << -1;
  }
  void migGresTypes() {
    QFETCH(std::string, type);
    QFETCH(bool, mig);
    QFETCH(std::string, model);
    QFETCH(std::string, profile);
    QFETCH(int, start);
    const auto parsed = parseMigGresType(type);
    QCOMPARE(parsed.has_value(), mig);
    if (!parsed) return;
    QCOMPARE(parsed->model, model);
    QCOMPARE(parsed->profile, profile);
    QCOMPARE(parsed->start, start);
  }

  void mapping() {
    const GpuCatalog& cat = GpuCatalog::builtin();
    GpuTypeMapping m = GpuTypeMapping::defaults();
    QCOMPARE(m.resolve("A100", cat)->id, std::string("A100-SXM4-80GB"));
    QCOMPARE(m.resolve("h100", cat)->id, std::string("H100-SXM5-80GB"));
    QCOMPARE(m.resolve("nvidia_a100", cat)->id, std::string("A100-SXM4-80GB"));
    QCOMPARE(m.resolve("h100_g5", cat)->id, std::string("H100-SXM5-80GB"));
    // Names the catalog knows itself: ids and aliases such as Slurm's NVML-derived type.
    QCOMPARE(m.resolve("nvidia_a100_80gb_pcie", cat)->id, std::string("A100-PCIE-80GB"));
    QCOMPARE(m.resolve("l4", cat)->id, std::string("L4"));
    QVERIFY(!m.resolve("mystery", cat));
    QVERIFY(!m.resolve("", cat));
    QVERIFY(m.add("A100=A100-SXM4-40GB", cat).ok());
    QCOMPARE(m.resolve("a100", cat)->id, std::string("A100-SXM4-40GB"));
    QVERIFY(m.add("H100-PCIe", cat).ok());
    QCOMPARE(m.resolve("", cat)->id, std::string("H100-PCIE-80GB"));
    const auto bad = m.add("foo=NOPE", cat);
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().message.find("'NOPE'") != std::string::npos);
    QVERIFY(!m.add("=H100", cat).ok());
    QVERIFY(!m.add("a:b=H100", cat).ok());
  }

  void mappingDecidesMigProfiles() {
    // a100 as the 40 GB model: the recorded 3g.40gb instances are not among its profiles.
    SlurmImportOptions options;
    QVERIFY(options.mapping.add("a100=A100-SXM4-40GB", GpuCatalog::builtin()).ok());
    auto r = importSlurmCluster(recorded(), options);
    QVERIFY(!r.ok());
    const std::string e = r.error().message;
    QVERIFY2(e.find("node node3: gres gpu:a100_3g.40gb:2: '3g.40gb' is not a MIG profile of "
                    "A100-SXM4-40GB") != std::string::npos,
             e.c_str());
  }

  void untypedNeedsModel() {
    SlurmInventory inv;
    inv.nodes = {gpuNode("gpu01", "gpu:2"), gpuNode("gpu02", "gpu:h100:4")};
    auto r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("node gpu01: gres gpu:2: untyped GPUs") != std::string::npos,
             r.error().message.c_str());
    QVERIFY(r.error().message.find("gpu02") == std::string::npos);
    SlurmImportOptions options;
    QVERIFY(options.mapping.add("L4", GpuCatalog::builtin()).ok());
    r = importSlurmCluster(inv, options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    QCOMPARE(r->cluster->findNode("gpu01")->gpuModel().id, std::string("L4"));
    QCOMPARE(r->cluster->findNode("gpu01")->gpuCount(), 2);
    QCOMPARE(r->cluster->findNode("gpu02")->gpuModel().id, std::string("H100-SXM5-80GB"));
  }

  void everyMappingErrorListed() {
    SlurmInventory inv;
    inv.nodes = {gpuNode("a", "gpu:mystery:2"), gpuNode("b", "gpu:h100:2,gpu:a100:2"),
                 gpuNode("c", "gpu:l4_1g.10gb:1"), gpuNode("d", "gpu:h100_3g.40gb_s2:1")};
    auto r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    const std::string e = r.error().message;
    QVERIFY2(e.find("(4 problems)") != std::string::npos, e.c_str());
    QVERIFY(e.find("node a: gres gpu:mystery:2: unknown GPU type 'mystery': map it with "
                   "--gpu-model mystery=MODEL") != std::string::npos);
    QVERIFY(e.find("node b: gres gpu:a100:2: GPUs of two models (H100-SXM5-80GB from "
                   "gpu:h100:2, A100-SXM4-80GB)") != std::string::npos);
    QVERIFY(e.find("node c: gres gpu:l4_1g.10gb:1: a MIG type, but L4 is not MIG capable") !=
            std::string::npos);
    QVERIFY(e.find("node d: gres gpu:h100_3g.40gb_s2:1: 3g.40gb cannot start at memory slice 2") !=
            std::string::npos);
  }

  void bareProfileTypes() {
    // A bare profile belongs to the node's other GPUs; alone it needs --gpu-model.
    SlurmInventory inv;
    inv.nodes = {gpuNode("m1", "gpu:h100:2,gpu:3g.40gb:2")};
    auto r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Node& m1 = *r->cluster->findNode("m1");
    QCOMPARE(m1.gpuModel().id, std::string("H100-SXM5-80GB"));
    QCOMPARE(countsOf(*r->cluster, m1).mig, (std::map<std::string, int>{{"3g.40gb", 2}}));
    QCOMPARE(countsOf(*r->cluster, m1).whole, 2);
    inv.nodes = {gpuNode("m2", "gpu:1g.10gb:2")};
    r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("node m2: gres gpu:1g.10gb:2: a MIG profile without a GPU "
                                    "model") != std::string::npos,
             r.error().message.c_str());
    SlurmImportOptions options;
    QVERIFY(options.mapping.add("A100-SXM4-80GB", GpuCatalog::builtin()).ok());
    r = importSlurmCluster(inv, options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    QCOMPARE(r->cluster->findNode("m2")->gpuModel().id, std::string("A100-SXM4-80GB"));
  }

  void perSlotTypesKeepTheirStarts() {
    SlurmInventory inv;
    inv.nodes = {gpuNode("mig01",
                         "gpu:h100:6,gpu:h100_3g.40gb_s0:1,gpu:h100_3g.40gb_s4:1,"
                         "gpu:h100_1g.10gb_s0:1")};
    auto r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Cluster& c = *r->cluster;
    const Node& n = *c.findNode("mig01");
    // Both slices 0 are taken on the first MIG GPU: the 1g.10gb at slice 0 needs another GPU.
    QCOMPARE(n.gpuCount(), 8);
    std::multiset<std::pair<std::string, int>> placed;
    for (int i = 6; i < 8; ++i)
      for (const MigInstance& inst : c.gpu(n.firstGpu + static_cast<GpuId>(i)).sharing.mig)
        placed.insert(
            {n.gpuModel().mig->profiles[static_cast<size_t>(inst.profile)].name, inst.start});
    const std::multiset<std::pair<std::string, int>> expected{
        {"3g.40gb", 0}, {"3g.40gb", 4}, {"1g.10gb", 0}};
    QCOMPARE(placed, expected);
  }

  void fabricProblemsAreWarnings() {
    SlurmInventory inv;
    inv.nodes = {gpuNode("n1", "gpu:h100:2"), gpuNode("n2", "gpu:h100:2"), gpuNode("cpu1", "")};
    SlurmSwitch agg;
    agg.name = "agg";
    agg.level = 1;
    agg.switches = {"leaf1"};
    SlurmSwitch core;
    core.name = "core";
    core.level = 2;
    core.switches = {"agg", "ghost"};
    inv.switches = {leafSwitch("leaf1", {"n1", "n9"}), agg, core};
    auto r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Cluster& c = *r->cluster;
    QCOMPARE(c.nodes().size(), size_t{2});  // the CPU-only node is left out
    QVERIFY(hasWarning(*r, "node cpu1", "gres"));
    QVERIFY(hasWarning(*r, "switch leaf1", "nodes"));    // n9 is not in sinfo
    QVERIFY(hasWarning(*r, "switch core", "switches"));  // above the spines; ghost unknown
    QVERIFY(hasWarning(*r, "node n2", "topology"));      // under no leaf
    QCOMPARE(c.switches()[static_cast<size_t>(c.spineOf(c.findNode("n1")->id))].name,
             std::string("agg"));
    const FabricSwitch& island = c.switches()[static_cast<size_t>(c.leafOf(c.findNode("n2")->id))];
    QCOMPARE(island.name, std::string("slurm-unswitched"));
    QCOMPARE(island.parent, kNone);
  }

  void noTopologyOneLeaf() {
    SlurmInventory inv;
    inv.nodes = {gpuNode("n1", "gpu:h100:2"), gpuNode("n2", "gpu:a100:1")};
    auto r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    QVERIFY(hasWarning(*r, "cluster", "topology"));
    QCOMPARE(r->cluster->leafOf(0), r->cluster->leafOf(1));
    QCOMPARE(r->cluster->name, std::string("slurm"));
  }

  // Slurm's shared GPUs: gres/shard as time-sliced replicas (the node's count spread over its
  // whole GPUs), gres/mps as GPUs running MPS; a count per GPU other than Slurm's 100 for mps,
  // or one that does not divide, is a warning; shard and mps on one node an error.
  void sharedGresBecomeSharing() {
    SlurmInventory inv;
    inv.nodes = {gpuNode("ts", "gpu:h100:2,shard:h100:16"), gpuNode("mps", "gpu:h100:4,mps:400"),
                 gpuNode("odd", "gpu:h100:3,shard:10"), gpuNode("mps50", "gpu:h100:2,mps:100")};
    auto r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Cluster& c = *r->cluster;
    const auto sharing = [&](const std::string& node, int gpu) {
      const Node& n = *c.findNode(node);
      return c.gpu(n.firstGpu + static_cast<GpuId>(gpu)).sharing;
    };
    for (int i : {0, 1}) {
      QCOMPARE(sharing("ts", i).mode, SharingMode::TimeSliced);
      QCOMPARE(sharing("ts", i).replicas, 8);
    }
    for (int i : {0, 1, 2, 3}) {
      QCOMPARE(sharing("mps", i).mode, SharingMode::Mps);
      QVERIFY(sharing("mps", i).runsMps());
      // gres.conf's flag is not in sinfo: Slurm 22.05's default, one_sharing.
      QCOMPARE(int(sharing("mps", i).mps.nodeSharing), int(MpsNodeSharing::One));
    }
    QCOMPARE(c.findNode("ts")->gpuCount(), 2);
    QCOMPARE(sharing("odd", 2).replicas, 3);
    QVERIFY(hasWarning(*r, "node odd", "gres shard:10"));
    QVERIFY(!hasWarning(*r, "node ts", "gres shard:h100:16"));
    QVERIFY(!hasWarning(*r, "node mps", "gres mps:400"));
    QVERIFY(hasWarning(*r, "node mps50", "gres mps:100"));
    for (const auto& w : r->warnings)
      if (w.subject == "node mps50")
        QVERIFY2(w.message.find("slurm.mps_per_gpu: 50") != std::string::npos, w.str().c_str());

    inv.nodes = {gpuNode("both", "gpu:h100:2,shard:8,mps:200")};
    r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("node both: gres shard:8,mps:200: shard and mps on one node") !=
                 std::string::npos,
             r.error().message.c_str());
  }

  // With a spec, Slurm's shards win over the spec's time-slicing (Slurm enforces them).
  void mergeTakesSlurmsShards() {
    SlurmImportOptions options;
    options.spec =
        loadSpec(replaced(kBaseSpec, "{name: node2, template: hgx-h100, leaf: s1, pool: gpu}",
                          "{name: node2, template: hgx-h100, leaf: s1, pool: gpu, "
                          "gpus: {\"0-3\": {timeslice: 2}}}"));
    SlurmInventory inv = recorded();
    for (SlurmNode& n : inv.nodes)
      if (n.name == "node2") n.gres = *parseGresList("gpu:h100:4,shard:h100:32");
    auto r = importSlurmCluster(inv, options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Cluster& c = *r->cluster;
    const Node& node2 = *c.findNode("node2");
    QCOMPARE(node2.hw->templateName, std::string("hgx-h100"));
    QCOMPARE(c.gpu(node2.firstGpu + 3).sharing.replicas, 8);
  }

  // gres/mps's all_sharing shows in no Slurm output: a spec that says node_sharing: all for the
  // node's MPS GPUs keeps it; one that says nothing gets Slurm's default.
  void mergeKeepsTheSpecsMpsNodeSharing() {
    const auto importWith = [&](const std::string& sharing) {
      SlurmImportOptions options;
      const std::string gpus =
          sharing.empty() ? "{mps: true}" : "{mps: {node_sharing: " + sharing + "}}";
      ClusterSpecOptions asSlurm;
      asSlurm.mpsNodeSharing = MpsNodeSharing::One;  // as import-slurm reads --spec
      auto spec = loadClusterSpec(
          replaced(kBaseSpec, "{name: node2, template: hgx-h100, leaf: s1, pool: gpu}",
                   "{name: node2, template: hgx-h100, leaf: s1, pool: gpu, gpus: {\"0-3\": " +
                       gpus + "}}"),
          "extra.yaml", asSlurm);
      if (!spec) qFatal("%s", spec.error().str().c_str());
      options.spec = *spec;
      SlurmInventory inv = recorded();
      for (SlurmNode& n : inv.nodes)
        if (n.name == "node2") n.gres = *parseGresList("gpu:h100:4,mps:400");
      auto r = importSlurmCluster(inv, options);
      if (!r) qFatal("%s", errorOf(r).c_str());
      const Node& node2 = *r->cluster->findNode("node2");
      return r->cluster->gpu(node2.firstGpu + 3).sharing.mps.nodeSharing;
    };
    QCOMPARE(int(importWith("all")), int(MpsNodeSharing::All));
    QCOMPARE(int(importWith("one")), int(MpsNodeSharing::One));
    QCOMPARE(int(importWith("")), int(MpsNodeSharing::One));
  }

  void malformedInput() {
    SlurmInventory inv;
    auto r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("no node with GPUs") != std::string::npos);
    inv.nodes = {gpuNode("n1", "gpu:h100:2,nic:2,gpu:h100:0")};
    inv.nodes.push_back(inv.nodes.front());
    r = importSlurmCluster(inv, {});
    QVERIFY2(r.ok(), errorOf(r).c_str());
    QCOMPARE(r->cluster->nodes().size(), size_t{1});
    QCOMPARE(r->cluster->gpus().size(), size_t{2});
    QVERIFY(hasWarning(*r, "node n1", "gres nic:2"));
    QVERIFY(hasWarning(*r, "node n1", "name"));
    inv.nodes = {gpuNode("big", "gpu:h100:65")};
    r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("node big: gres: 65 GPUs") != std::string::npos);
    inv.nodes = {gpuNode("huge", "gpu:h100_1g.10gb:100000000")};
    r = importSlurmCluster(inv, {});
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("node huge: gres gpu:h100_1g.10gb:100000000: more MIG "
                                   "instances than 64 GPUs can hold") != std::string::npos);
    // Malformed documents fail in the parsers, which name the JSON path or record.
    QVERIFY(!parseSinfoJson(R"({"nodes": [{"name": 3}]})").ok());
    QVERIFY(!parseShowTopology("SwitchName=s1 Nodes=node[1-").ok());
  }

  void mergeKeepsWhatSlurmDoesNotKnow() {
    SlurmImportOptions options;
    options.spec = loadSpec(kBaseSpec);
    auto r = importSlurmCluster(recorded(), options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    for (const auto& k : r->conflicts) qWarning("%s", k.str().c_str());
    QVERIFY(r->conflicts.empty());
    QVERIFY(r->onlyInSlurm.empty() && r->onlyInSpec.empty());
    const Cluster& c = *r->cluster;
    const Node& node1 = *c.findNode("node1");
    QCOMPARE(node1.hw->templateName, std::string("hgx-h100"));
    QCOMPARE(node1.hw->numa.size(), size_t{2});
    QCOMPARE(node1.hw->numa[1].cpus.size(), size_t{32});
    QCOMPARE(node1.labels.at("rack"), std::string("r1"));
    QCOMPARE(node1.driverVersion, std::string("550.90.07"));
    // The spec's MIG placement (GPUs 0 and 1) is kept: it has the instances Slurm has.
    const Node& node3 = *c.findNode("node3");
    QCOMPARE(c.gpu(node3.firstGpu).sharing.mode, SharingMode::Mig);
    QCOMPARE(c.gpu(node3.firstGpu + 3).sharing.mode, SharingMode::Exclusive);
    QCOMPARE(formatMigLayout(node3.gpuModel(), c.gpu(node3.firstGpu + 1).sharing.mig),
             std::string("1g.10gb@0,1g.10gb@1"));
  }

  void mergeConflicts_data() {
    QTest::addColumn<std::string>("from");
    QTest::addColumn<std::string>("to");
    QTest::addColumn<std::string>("node");
    QTest::addColumn<std::string>("field");
    QTest::addColumn<std::string>("slurm");
    QTest::addColumn<std::string>("spec");
    QTest::addColumn<int>("count");  // conflicts of that field: 2 when a template changed
    QTest::newRow("cpus") << std::string("    cpus: 64\n    memory_gib: 500\n    numa:")
                          << std::string("    cpus: 96\n    memory_gib: 500\n    numa:")
                          << std::string("node1") << std::string("cpus") << std::string("64")
                          << std::string("96") << 2;
    QTest::newRow("memory") << std::string("    memory_gib: 500\n    numa:")
                            << std::string("    memory_gib: 1024\n    numa:")
                            << std::string("node1") << std::string("memory_gib")
                            << std::string("500") << std::string("1024") << 2;
    QTest::newRow("gpus") << std::string(
                                 "    gpus: 4\n    cpus: 64\n    memory_gib: 500\n    numa:")
                          << std::string(
                                 "    gpus: 8\n    cpus: 64\n    memory_gib: 500\n    numa:\n"
                                 "      - {gpus: [4, 5, 6, 7]}")
                          << std::string("node1") << std::string("gpus") << std::string("4")
                          << std::string("8") << 2;
    QTest::newRow("gpu_model") << std::string("gpu_model: H100-SXM5-80GB")
                               << std::string("gpu_model: H100-PCIE-80GB") << std::string("node1")
                               << std::string("gpu_model") << std::string("H100-SXM5-80GB")
                               << std::string("H100-PCIE-80GB") << 2;
    QTest::newRow("leaf") << std::string("{name: node2, template: hgx-h100, leaf: s1")
                          << std::string("{name: node2, template: hgx-h100, leaf: other")
                          << std::string("node2") << std::string("leaf") << std::string("s1")
                          << std::string("other") << 1;
    QTest::newRow("mig") << std::string("\"1\": {mig: \"1g.10gb@0,1g.10gb@1\"}")
                         << std::string("\"1\": {mig: \"1g.10gb@0\"}") << std::string("node3")
                         << std::string("mig") << std::string("1g.10gb x2, 3g.40gb x2")
                         << std::string("1g.10gb x1, 3g.40gb x2") << 1;
    QTest::newRow("pool") << std::string("leaf: s1, pool: gpu}")
                          << std::string("leaf: s1, pool: train}") << std::string("node2")
                          << std::string("pool") << std::string("gpu") << std::string("train") << 1;
    QTest::newRow("state") << std::string("    state: draining\n") << std::string("")
                           << std::string("node3") << std::string("state")
                           << std::string("draining") << std::string("up") << 1;
    QTest::newRow("label") << std::string("slurm.reason: \"psu swap [ticket=42] by ops\"")
                           << std::string("slurm.reason: \"fan\"") << std::string("node3")
                           << std::string("labels.slurm.reason")
                           << std::string("psu swap [ticket=42] by ops") << std::string("fan") << 1;
  }
  void mergeConflicts() {
    QFETCH(std::string, from);
    QFETCH(std::string, to);
    QFETCH(std::string, node);
    QFETCH(std::string, field);
    QFETCH(std::string, slurm);
    QFETCH(std::string, spec);
    QFETCH(int, count);
    SlurmImportOptions options;
    options.spec = loadSpec(replaced(kBaseSpec, from, to));
    auto r = importSlurmCluster(recorded(), options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    // One conflict per node the changed line concerns (a template: node1 and node2), all of it.
    std::vector<std::string> seen;
    const ImportConflict* k = nullptr;
    for (const auto& x : r->conflicts) {
      seen.push_back(x.str());
      QVERIFY2(x.field == field, x.str().c_str());
      if (x.node == node) k = &x;
    }
    QVERIFY2(k, join(seen, "; ").c_str());
    QCOMPARE(static_cast<int>(r->conflicts.size()), count);
    QCOMPARE(k->kept.empty(), false);
    QCOMPARE(k->slurm, slurm);
    QCOMPARE(k->spec, spec);
    // Slurm's value is what the result has.
    const Cluster& c = *r->cluster;
    const Node& n = *c.findNode(node);
    const SlurmInventory inv = recorded();
    const SlurmNode& s = *std::find_if(inv.nodes.begin(), inv.nodes.end(),
                                       [&](const SlurmNode& x) { return x.name == node; });
    QCOMPARE(n.hw->cpus, s.cpus);
    QCOMPARE(n.hw->memoryMiB / 1024, s.realMemoryMb / 1024);
    QCOMPARE(n.pool, s.partitions.front());
    QCOMPARE(c.switches()[static_cast<size_t>(n.leaf)].name,
             std::string(node == "node3" ? "s2" : "s1"));
    QCOMPARE(countsOf(c, n).mig, countsOf(s.gres).mig);
    QCOMPARE(countsOf(c, n).whole, countsOf(s.gres).whole);
    if (field == "gpus" || field == "gpu_model")
      QVERIFY(n.hw->templateName.starts_with("slurm-"));  // the spec's hardware dropped
    if (field == "mig") QCOMPARE(n.hw->templateName, std::string("a100-box"));
  }

  void mergeCpuListsDropped() {
    // The spec's zones list 128 CPUs, Slurm has 64: the count is Slurm's, the lists go.
    SlurmImportOptions options;
    options.spec =
        loadSpec(replaced(replaced(replaced(kBaseSpec, "cpus: 64\n    memory_gib: 500\n    numa:",
                                            "cpus: 128\n    memory_gib: 500\n    numa:"),
                                   "\"0-31\"", "\"0-63\""),
                          "\"32-63\"", "\"64-127\""));
    auto r = importSlurmCluster(recorded(), options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    const Node& node1 = *r->cluster->findNode("node1");
    QCOMPARE(node1.hw->cpus, 64);
    QCOMPARE(node1.hw->numa.size(), size_t{2});
    QVERIFY(node1.hw->numa[0].cpus.empty());
    QVERIFY(hasWarning(*r, "node node1", "cpus"));
  }

  void mergeReportsNodesOnOneSide() {
    SlurmImportOptions options;
    options.spec = loadSpec(replaced(kBaseSpec, "{name: node2", "{name: node9"));
    auto r = importSlurmCluster(recorded(), options);
    QVERIFY2(r.ok(), errorOf(r).c_str());
    QCOMPARE(r->onlyInSlurm, std::vector<std::string>{"node2"});
    QCOMPARE(r->onlyInSpec, std::vector<std::string>{"node9"});
    QVERIFY(!r->cluster->findNode("node9"));
    QVERIFY(r->cluster->findNode("node2"));
  }
};

QTEST_GUILESS_MAIN(TestSlurmImport)
#include "tst_slurm_import.moc"
