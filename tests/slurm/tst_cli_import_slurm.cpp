// `tessera cluster import-slurm` in-process, offline (--from-files on the recorded output of
// data/README.md): the spec on stdout or -o loads back with the recorded nodes and GPUs, --spec
// conflicts on stderr, --gpu-model, and the errors: bad mapping, untyped GPUs, unreadable or
// malformed files, an unreachable Slurm (the command and its stderr named).
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "app/cli_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "slurm/scontrol_text.h"
#include "slurm/slurm_json.h"

using namespace tessera;
using namespace tessera::test;

namespace {

std::string dataPath(const std::string& name) {
  return std::string(TESSERA_TEST_DATA) + "/" + name;
}

std::string readData(const std::string& name) {
  std::ifstream in(dataPath(name));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> importArgs(std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"cluster", "import-slurm", "--from-files", dataPath("sinfo.json"),
                                dataPath("show-topology.txt")};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

#define VERIFY_CODE(result, expected) \
  QVERIFY2((result).code == (expected), qPrintable(describe(result)))

}  // namespace

class TestCliImportSlurm : public QObject {
  Q_OBJECT

 private slots:
  void help() {
    const auto r = runCli({"cluster", "import-slurm", "--help"});
    VERIFY_CODE(r, 0);
    for (const char* word : {"Usage: tessera cluster import-slurm", "-o,--output", "--spec",
                             "--gpu-model", "TYPE=MODEL", "--from-files", "SINFO_JSON"})
      QVERIFY2(contains(r.out, word), word);
    const auto cluster = runCli({"cluster", "--help"});
    QVERIFY(contains(cluster.out, "import-slurm"));
  }

  void fromFilesToStdout() {
    const auto r = runCli(importArgs({dataPath("show-config.txt")}));
    VERIFY_CODE(r, 0);
    auto loaded = loadClusterSpec(r.out, "stdout.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    QCOMPARE((*loaded)->name,
             slurm::parseShowConfig(readData("show-config.txt")).get("ClusterName"));
    auto sinfo = slurm::parseSinfoJson(readData("sinfo.json"));
    QVERIFY(sinfo.ok());
    QCOMPARE((*loaded)->nodes().size(), sinfo->nodes.size());
    for (const auto& n : sinfo->nodes) {
      const Node* node = (*loaded)->findNode(n.name);
      QVERIFY2(node, n.name.c_str());
      QCOMPARE(node->pool, n.partitions.front());
    }
    // The drained node is a warning naming it; the summary counts what was written.
    QVERIFY2(contains(r.err, "warning: node node3: state: idle+DRAIN: imported as draining"),
             r.err.c_str());
    QVERIFY(contains(r.err, "imported " + std::to_string(sinfo->nodes.size()) + " nodes, " +
                                std::to_string((*loaded)->gpus().size()) + " GPUs; 0 conflicts"));
  }

  void outputFileAndSpecConflicts() {
    QTemporaryDir dir;
    const std::string spec = dir.filePath("extra.yaml").toStdString();
    const std::string out = dir.filePath("out.yaml").toStdString();
    QVERIFY(writeFile(QString::fromStdString(spec), R"(version: 1
name: lab
node_templates:
  big: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}
fabric:
  spines: []
  leafs: [{name: l1}]
nodes:
  - {name: node1, template: big, leaf: l1, labels: {rack: r7}}
  - {name: node9, template: big, leaf: l1}
)"));
    const auto r = runCli(importArgs({"--spec", spec, "-o", out}));
    VERIFY_CODE(r, 0);
    QVERIFY(contains(r.out, "wrote " + out));
    for (const char* line : {"conflict: node1: gpus: Slurm 4, spec 8 (kept Slurm's",
                             "conflict: node1: cpus: Slurm 64, spec 224",
                             "conflict: node1: memory_gib: Slurm 500, spec 2048",
                             "conflict: node1: leaf: Slurm s1, spec l1",
                             "only in Slurm (imported without spec hardware): node2, node3",
                             "only in the spec (left out: Slurm does not run them): node9"})
      QVERIFY2(contains(r.err, line), qPrintable(describe(r)));
    auto loaded = loadClusterSpecFile(out);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    const Node& node1 = *(*loaded)->findNode("node1");
    QCOMPARE(node1.gpuCount(), 4);
    QCOMPARE(node1.labels.at("rack"), std::string("r7"));
    QVERIFY(!(*loaded)->findNode("node9"));
  }

  void gpuModelOption() {
    auto r = runCli(importArgs({"--gpu-model", "a100=A100-SXM4-40GB"}));
    VERIFY_CODE(r, 1);
    QVERIFY2(contains(r.err,
                      "node node3: gres gpu:a100_3g.40gb:2: '3g.40gb' is not a MIG profile "
                      "of A100-SXM4-40GB"),
             qPrintable(describe(r)));
    r = runCli(importArgs({"--gpu-model", "h100=H100-PCIE-80GB", "--gpu-model", "a100=A100-80GB"}));
    VERIFY_CODE(r, 0);
    auto loaded = loadClusterSpec(r.out, "stdout.yaml");
    QVERIFY(loaded.ok());
    QCOMPARE((*loaded)->findNode("node1")->gpuModel().id, std::string("H100-PCIE-80GB"));
    QCOMPARE((*loaded)->findNode("node3")->gpuModel().id, std::string("A100-SXM4-80GB"));
    r = runCli(importArgs({"--gpu-model", "h100=NOPE"}));
    VERIFY_CODE(r, 2);
    QVERIFY2(contains(r.err, "--gpu-model: GPU type mapping 'h100=NOPE': unknown GPU model 'NOPE'"),
             qPrintable(describe(r)));
  }

  void untypedGpusNeedAModel() {
    QTemporaryDir dir;
    const std::string sinfo = dir.filePath("sinfo.json").toStdString();
    std::string text = readData("sinfo.json");
    const std::string typed = "\"gres\": \"gpu:h100:4\"";
    text.replace(text.find(typed), typed.size(), "\"gres\": \"gpu:4\"");
    QVERIFY(writeFile(QString::fromStdString(sinfo), text));
    auto r =
        runCli({"cluster", "import-slurm", "--from-files", sinfo, dataPath("show-topology.txt")});
    VERIFY_CODE(r, 1);
    QVERIFY2(contains(r.err, "node node1: gres gpu:4: untyped GPUs"), qPrintable(describe(r)));
    r = runCli({"cluster", "import-slurm", "--from-files", sinfo, dataPath("show-topology.txt"),
                "--gpu-model", "H100"});
    VERIFY_CODE(r, 0);
  }

  void badInputs() {
    QTemporaryDir dir;
    const std::string broken = dir.filePath("broken.json").toStdString();
    QVERIFY(
        writeFile(QString::fromStdString(broken), R"({"nodes": [{"name": "n1", "cpus": "x"}]})"));
    auto r =
        runCli({"cluster", "import-slurm", "--from-files", broken, dataPath("show-topology.txt")});
    VERIFY_CODE(r, 2);
    QVERIFY2(contains(r.err, "cannot read the recorded Slurm output: " + broken + ": ") &&
                 contains(r.err, "nodes[0].cpus"),
             qPrintable(describe(r)));
    r = runCli(
        {"cluster", "import-slurm", "--from-files", dataPath("sinfo.json"), "/nonexistent/t"});
    VERIFY_CODE(r, 2);
    QVERIFY(contains(r.err, "/nonexistent/t"));
    r = runCli({"cluster", "import-slurm", "--from-files", dataPath("sinfo.json")});
    VERIFY_CODE(r, 2);  // needs both files
    r = runCli(importArgs({"--spec", "/nonexistent/spec.yaml"}));
    VERIFY_CODE(r, 2);
    QVERIFY(contains(r.err, "--spec: "));
  }

  void slurmUnreachable() {
    // A sinfo that answers like one whose controller is down (the real one retries for ~9 s):
    // the error names the command and carries its stderr.
    QTemporaryDir bin;
    const QString sinfo = bin.filePath("sinfo");
    QVERIFY(writeFile(sinfo,
                      "#!/bin/sh\necho 'sinfo: error: Unable to contact slurm controller "
                      "(connect failure)' >&2\nexit 1\n"));
    QVERIFY(QFile::setPermissions(sinfo, QFile::ReadOwner | QFile::ExeOwner));
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.path().toUtf8() + ":" + path);
    const auto r = runCli({"cluster", "import-slurm"});
    qputenv("PATH", path);
    VERIFY_CODE(r, 2);
    QVERIFY2(contains(r.err, "cannot read the cluster from Slurm: ") &&
                 contains(r.err, "sinfo --json") &&
                 contains(r.err, "Unable to contact slurm controller (connect failure)"),
             qPrintable(describe(r)));
    QVERIFY(r.out.empty());
  }
};

QTEST_GUILESS_MAIN(TestCliImportSlurm)
#include "tst_cli_import_slurm.moc"
