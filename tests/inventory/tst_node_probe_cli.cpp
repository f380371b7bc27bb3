// `tessera node probe` end to end in-process: recorded nvidia-smi outputs, the fake NVML (through
// LD_LIBRARY_PATH set by CTest), output formats, exit codes and messages.
#include <QTemporaryDir>
#include <QtTest>

#include "app/cli_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "inventory/nvml_fixture.h"
#include "topology/gpu_catalog.h"
#include "topology/yaml_reader.h"

using namespace tessera;
using tessera::test::contains;
using tessera::test::describe;
using tessera::test::runCli;

namespace {

const std::string kData = TESSERA_TEST_DATA;
const std::string kH100 = kData + "/real-gpu/h100-sxm5-80gb";

// A directory holding the recorded H100 outputs, with `xml` as its nvidia-smi-q.xml.
void recordedWithXml(const QTemporaryDir& dir, const std::string& xml) {
  for (const char* f : {"topo-m.txt", "mig-lgip.txt", "mig-lgipp.txt"})
    test::writeFile(dir.filePath(f), test::readFile(QString::fromStdString(kH100 + "/" + f)));
  test::writeFile(dir.filePath("nvidia-smi-q.xml"), xml);
}

}  // namespace

class TestNodeProbeCli : public QObject {
  Q_OBJECT

 private slots:
  void helpNamesTheOptions() {
    const auto r = runCli({"node", "probe", "--help"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    for (const char* option : {"--output", "--source", "--recorded", "--nvml-library",
                               "--nvidia-smi", "--sysfs", "--name", "--template", "--leaf"})
      QVERIFY2(contains(r.out, option), option);
    QVERIFY(contains(r.out, "{yaml,json}"));
  }

  void recordedH100PrintsALoadableSpec() {
    const auto r = runCli({"node", "probe", "--recorded", kH100, "--name", "gpu-h100-01"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY2(r.err.empty(), r.err.c_str());
    QVERIFY(contains(r.out,
                     "# GPU 0: NVIDIA H100 80GB HBM3, GPU-5e1ec7ed-0000-4000-8000-"
                     "00000000a100, PCI 00000000:00:06.0 (0x233010DE), 81559 MiB, MIG "
                     "disabled, NUMA 0, CPUs 0-15"));
    auto cluster = loadClusterSpec(r.out, "probe.yaml");
    QVERIFY2(cluster.ok(), cluster ? "" : cluster.error().str().c_str());
    const Node* node = (*cluster)->findNode("gpu-h100-01");
    QVERIFY(node);
    QCOMPARE(node->driverVersion, std::string("580.159.04"));
    QCOMPARE(node->hw->gpuCount, 1);
    QCOMPARE(node->hw->gpuModel->id, std::string("H100-SXM5-80GB"));
    QCOMPARE(node->hw->templateName, std::string("gpu-h100-01-hw"));
  }

  void jsonIsTheInventory() {
    const auto r = runCli({"node", "probe", "--recorded", kH100, "-o", "json"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    auto doc = parseYaml(r.out, "probe.json");
    QVERIFY(doc.ok());
    QCOMPARE((*doc)["source"].as<std::string>(), std::string("nvidia-smi"));
    QCOMPARE((*doc)["gpus"][0]["model"].as<std::string>(), std::string("H100-SXM5-80GB"));
    QCOMPARE((*doc)["gpus"][0]["mig_profiles"][0]["name"].as<std::string>(),
             std::string("1g.10gb"));
    QCOMPARE((*doc)["gpus"][0]["cpu_affinity"].as<std::string>(), std::string("0-15"));
  }

  void nvmlWithMigInstancesGivesTheLayout() {
    const GpuModel* m = GpuCatalog::builtin().find("A100-SXM4-80GB");
    auto layout = parseMigLayout(*m, "3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3");
    QVERIFY(layout.ok());
    layout->sortByStart();
    QTemporaryDir dir;
    const QString fixture = dir.filePath("a100.txt");
    QVERIFY(test::writeFile(fixture, test::fixtureFromCatalog(*m, *layout, 4)));
    qputenv("TESSERA_FAKE_NVML", fixture.toUtf8());
    const auto r = runCli({"node", "probe", "--source", "nvml", "--name", "inf-01", "--sysfs",
                           dir.path().toStdString(), "--leaf", "leaf-inf"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY2(contains(r.out, "\"0\": {mig: \"2g.20gb@0,1g.10gb@2,1g.10gb@3,3g.40gb@4\"}"),
             r.out.c_str());
    QVERIFY(contains(r.out, "\"3\": {mig: \"2g.20gb@0,1g.10gb@2,1g.10gb@3,3g.40gb@4\"}"));
    QVERIFY(contains(r.out, "source nvml"));
    auto cluster = loadClusterSpec(r.out, "probe.yaml");
    QVERIFY2(cluster.ok(), cluster ? "" : cluster.error().str().c_str());
    QCOMPARE((*cluster)->gpus().size(), size_t{4});
    QCOMPARE((*cluster)->gpu(3).sharing.mode, SharingMode::Mig);
  }

  void warningsGoToStderr() {
    qputenv("TESSERA_FAKE_NVML", QByteArray::fromStdString(kData + "/real-gpu/h200-sxm-141gb/"
                                                                   "nvml-probe.txt"));
    const auto r = runCli({"node", "probe", "--name", "h200"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.err,
                     "tessera: warning: H200-SXM-141GB: profile 1g.35gb (id 15): memory "
                     "32.50 GiB on this node, 32.25 GiB in the catalog"));
    QVERIFY(!contains(r.out, "warning"));
    QVERIFY(contains(r.out, "gpu_model: H200-SXM-141GB"));
  }

  void unknownModelPrintsAStanza() {
    QTemporaryDir dir;
    const QString extra = dir.filePath("z.txt");
    QVERIFY(
        test::writeFile(extra, "gpu 0 name NVIDIA Z100\ngpu 0 pci 00000000:00:06.0 999910DE\n"));
    qputenv("TESSERA_FAKE_NVML",
            QByteArray::fromStdString(kH100 + "/nvml-probe.txt:") + extra.toUtf8());
    const auto r = runCli({"node", "probe"});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err,
                      "GPU 0 'NVIDIA Z100' (PCI device id 0x999910DE) is not in the GPU "
                      "catalog"),
             r.err.c_str());
    QVERIFY(contains(r.out, "  - id: NVIDIA-Z100\n    product_name: \"NVIDIA Z100\"\n"));
    auto catalog = GpuCatalog::fromYaml(r.out, "stanza.yaml");
    QVERIFY2(catalog.ok(), catalog ? "" : catalog.error().str().c_str());
    // The stanza as --catalog makes the same probe succeed.
    const QString file = dir.filePath("z100.yaml");
    QVERIFY(test::writeFile(file, r.out));
    const auto again = runCli({"--catalog", file.toStdString(), "node", "probe", "--name", "z"});
    QVERIFY2(again.code == 0, qPrintable(describe(again)));
    QVERIFY(contains(again.out, "gpu_model: NVIDIA-Z100"));
  }

  void badInputIsAClearError_data() {
    QTest::addColumn<QString>("xml");
    QTest::addColumn<QString>("message");
    const QString good =
        QString::fromStdString(test::readFile(QString::fromStdString(kH100 + "/nvidia-smi-q.xml")));
    QTest::newRow("truncated") << good.left(good.indexOf("<fb_memory_usage>")) << "not valid XML";
    QTest::newRow("empty") << QString() << "not valid XML";
    QTest::newRow("binary") << QString("\x01\x02\x03 garbage") << "not valid XML";
    QString noMemory = good;
    noMemory.replace("<total>81559 MiB</total>", "<total>-5 MiB</total>");
    QTest::newRow("memory") << noMemory << "nvidia-smi-q.xml:130:";
  }

  void badInputIsAClearError() {
    QFETCH(QString, xml);
    QFETCH(QString, message);
    QTemporaryDir dir;
    recordedWithXml(dir, xml.toStdString());
    const auto r = runCli({"node", "probe", "--recorded", dir.path().toStdString()});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, message.toStdString()), r.err.c_str());
    QVERIFY(contains(r.err, "nvidia-smi-q.xml"));
    QVERIFY(r.out.empty());
  }

  void missingNvmlIsNamed() {
    const auto r =
        runCli({"node", "probe", "--source", "nvml", "--nvml-library", "libnvidia-ml-absent.so.1"});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, "NVML not found: cannot load libnvidia-ml-absent.so.1"),
             r.err.c_str());
  }

  void autoFallsBackToNvidiaSmi() {
    const auto r = runCli({"node", "probe", "--nvml-library", "libnvidia-ml-absent.so.1",
                           "--nvidia-smi", "/nonexistent/nvidia-smi"});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err,
                      "NVML not found (libnvidia-ml-absent.so.1 does not load) and "
                      "nvidia-smi failed"),
             r.err.c_str());
    QVERIFY(contains(r.err, "/nonexistent/nvidia-smi"));
  }
};

QTEST_GUILESS_MAIN(TestNodeProbeCli)
#include "tst_node_probe_cli.moc"
