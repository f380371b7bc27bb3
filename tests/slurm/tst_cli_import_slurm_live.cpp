// `tessera cluster import-slurm` against the real daemons of the slurm_cluster CTest fixture
// (slurm_cluster.sh), and of its shard and mps variants (node5's shared GPUs). Expected nodes,
// GPUs, CPUs, memory and switches are read from the fixture's own slurm.conf and topology.conf,
// never from the verb's output.
#include <QtTest>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "app/cli_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "core/strings.h"
#include "import_test_util.h"
#include "slurm/scontrol_text.h"
#include "slurm/slurm_import.h"
#include "slurm/slurm_json.h"

using namespace tessera;
using namespace tessera::test;

namespace {

std::string readFileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ConfNode {
  std::vector<slurm::GresCount> gres;
  int cpus = 0;
  int64_t memoryMb = 0;
};

}  // namespace

class TestCliImportSlurmLive : public QObject {
  Q_OBJECT

 private slots:
  void importsTheFixtureCluster() {
    const char* dir = std::getenv("TESSERA_SLURM_CLUSTER");
    QVERIFY2(dir && *dir,
             "TESSERA_SLURM_CLUSTER is not set: run through ctest (fixture slurm_cluster)");
    const std::string etc = std::string(dir) + "/etc/";
    // NodeName=... lines and ClusterName of the fixture's slurm.conf.
    std::map<std::string, ConfNode> expected;
    std::string clusterName;
    const std::string slurmConf = readFileText(etc + "slurm.conf");
    for (auto line : split(slurmConf, '\n')) {
      if (line.starts_with("ClusterName=")) clusterName = std::string(line.substr(12));
      if (!line.starts_with("NodeName=")) continue;
      auto record = slurm::parseScontrolRecord(line);
      QVERIFY(record.ok());
      ConfNode n;
      auto gres = slurm::parseGresList(record->get("Gres"));
      QVERIFY(gres.ok());
      n.gres = *gres;
      n.cpus = *parseInt(record->get("CPUs"));
      n.memoryMb = *parseInt(record->get("RealMemory"));
      expected[record->get("NodeName")] = n;
    }
    QVERIFY(!expected.empty());
    auto switches = slurm::parseShowTopology(readFileText(etc + "topology.conf"));
    QVERIFY(switches.ok());

    const auto r = runCli({"cluster", "import-slurm"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    auto loaded = loadClusterSpec(r.out, "import-slurm.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    const Cluster& c = **loaded;
    QCOMPARE(c.name, clusterName);
    QCOMPARE(c.nodes().size(), expected.size());
    for (const auto& [name, conf] : expected) {
      const Node* n = c.findNode(name);
      QVERIFY2(n, name.c_str());
      QCOMPARE(countsOf(c, *n).mig, countsOf(conf.gres).mig);
      QCOMPARE(countsOf(c, *n).whole, countsOf(conf.gres).whole);
      QCOMPARE(countsOf(c, *n).replicasPerGpu, countsOf(conf.gres).replicasPerGpu);
      QCOMPARE(countsOf(c, *n).mps, countsOf(conf.gres).mps);
      const auto model =
          slurm::GpuTypeMapping::defaults().resolve(conf.gres.front().type, GpuCatalog::builtin());
      QVERIFY(model);
      QCOMPARE(n->gpuModel().id, model->id);
      QCOMPARE(n->hw->cpus, conf.cpus);
      QCOMPARE(n->hw->memoryMiB, conf.memoryMb / 1024 * 1024);
    }
    // topology.conf: leafs with Nodes=, the switch above them the spine.
    for (const auto& sw : *switches) {
      const FabricSwitch* f = c.findSwitch(sw.name);
      QVERIFY2(f, sw.name.c_str());
      if (sw.switches.empty()) {
        QCOMPARE(f->tier, SwitchTier::Leaf);
        for (const auto& node : sw.nodes) QCOMPARE(c.leafOf(c.findNode(node)->id), f->id);
      } else {
        QCOMPARE(f->tier, SwitchTier::Spine);
        for (const auto& leaf : sw.switches) QCOMPARE(c.findSwitch(leaf)->parent, f->id);
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestCliImportSlurmLive)
#include "tst_cli_import_slurm_live.moc"
