// The node inventory probe: NVML through the fake libnvidia-ml.so.1 (found via LD_LIBRARY_PATH,
// set by CTest), nvidia-smi's recorded outputs from a real H100 node, the catalog check, the spec
// entry, and the errors a broken driver or damaged text must produce.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <sstream>

#include "clusterspec/cluster_spec.h"
#include "core/strings.h"
#include "inventory/catalog_check.h"
#include "inventory/inventory_output.h"
#include "inventory/node_probe.h"
#include "inventory/nvml_fixture.h"
#include "inventory/nvsmi_mig_text.h"
#include "inventory/nvsmi_probe.h"
#include "inventory/nvsmi_xml.h"
#include "inventory/sysfs_numa.h"
#include "topology/mig_layout.h"
#include "topology/yaml_reader.h"

using namespace tessera;
using tessera::test::fixtureFromCatalog;

namespace {

const std::string kData = TESSERA_TEST_DATA;
const std::string kH100 = kData + "/real-gpu/h100-sxm5-80gb";
const std::string kH200 = kData + "/real-gpu/h200-sxm-141gb";
const std::string kSysfsH100 = kData + "/inventory/sysfs-h100";

bool has(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

QByteArray q(const std::string& s) {
  return QByteArray::fromStdString(s);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Probes NVML (the fake, serving `fixtures`) with the default library name.
Expected<NodeInventory> probeFake(const std::string& fixtures, const std::string& sysfs = {}) {
  qputenv("TESSERA_FAKE_NVML", q(fixtures));
  NvmlProbeOptions options;
  options.sysfsRoot = sysfs.empty() ? kData + "/inventory/no-sysfs" : sysfs;
  return probeNvml(options);
}

std::string recordedH100Fixtures() {
  return kH100 + "/nvml-probe.txt:" + kData + "/inventory/h100-pci.txt";
}

struct ExpectedProfile {
  int id, slices, instances, sm, ce, dec, enc, jpeg, ofa, memMiB;
  std::vector<int> starts;
  int size;
};

// nvml-probe.txt of the real H100, as NVML answered it.
const std::vector<ExpectedProfile> kH100Profiles = {
    {19, 1, 7, 16, 1, 1, 0, 1, 0, 9984, {0, 1, 2, 3, 4, 5, 6}, 1},
    {14, 2, 3, 32, 2, 2, 0, 2, 0, 20096, {0, 2, 4}, 2},
    {9, 3, 2, 60, 3, 3, 0, 3, 0, 40448, {0, 4}, 4},
    {5, 4, 1, 64, 4, 4, 0, 4, 0, 40448, {0}, 4},
    {0, 7, 1, 132, 8, 7, 0, 7, 1, 81152, {0}, 8},
    {20, 1, 1, 16, 1, 1, 0, 1, 1, 9984, {0, 1, 2, 3, 4, 5, 6}, 1},
    {15, 1, 4, 26, 1, 1, 0, 1, 0, 20096, {0, 2, 4, 6}, 2},
};

const MigProfileInfo* profileById(const GpuInventory& gpu, int id) {
  for (const auto& p : gpu.profiles)
    if (p.id == id) return &p;
  return nullptr;
}

std::vector<int> startsOf(const MigProfileInfo& p) {
  std::vector<int> s;
  for (const auto& pl : p.placements) s.push_back(pl.start);
  return s;
}

}  // namespace

class TestInventory : public QObject {
  Q_OBJECT

 private slots:
  void nvmlServesTheRecordedH100() {
    auto node = probeFake(recordedH100Fixtures(), kSysfsH100);
    QVERIFY2(node.ok(), node ? "" : node.error().str().c_str());
    QCOMPARE(node->source, std::string("nvml"));
    QCOMPARE(node->driverVersion, std::string("580.159.04"));
    QCOMPARE(node->gpus.size(), size_t{1});
    const GpuInventory& g = node->gpus[0];
    QCOMPARE(g.name, std::string("NVIDIA H100 80GB HBM3"));
    QCOMPARE(g.uuid, std::string("GPU-5e1ec7ed-0000-4000-8000-00000000a100"));
    QCOMPARE(g.pciBusId, std::string("00000000:00:06.0"));
    QCOMPARE(g.pciDeviceId, 0x233010DEu);
    QCOMPARE(g.memoryMiB, int64_t{81559});
    QVERIFY(g.mig.supported);
    QVERIFY(!g.mig.current);
    QVERIFY(!g.mig.pending);
    QVERIFY(g.gpuInstances.empty());
    QVERIFY(g.nvlinks.empty());
    // numa.txt: numa_node -1 on this VM with one NUMA node, which topo -m prints as 0.
    QCOMPARE(g.numaNode, 0);
    QCOMPARE(g.cpuAffinity, std::string("0-15"));
    QCOMPARE(g.profiles.size(), kH100Profiles.size());
    for (const auto& e : kH100Profiles) {
      const MigProfileInfo* p = profileById(g, e.id);
      QVERIFY2(p, std::to_string(e.id).c_str());
      QCOMPARE(p->computeSlices, e.slices);
      QCOMPARE(p->instanceCount, e.instances);
      QCOMPARE(p->sm, e.sm);
      QCOMPARE(p->engines.ce, e.ce);
      QCOMPARE(p->engines.dec, e.dec);
      QCOMPARE(p->engines.enc, e.enc);
      QCOMPARE(p->engines.jpeg, e.jpeg);
      QCOMPARE(p->engines.ofa, e.ofa);
      QCOMPARE(p->memoryMiB, e.memMiB);
      QCOMPARE(startsOf(*p), e.starts);
      for (const auto& pl : p->placements) QCOMPARE(pl.size, e.size);
    }
  }

  void recordedH100MatchesTheCatalog() {
    auto node = probeFake(recordedH100Fixtures(), kSysfsH100);
    QVERIFY(node.ok());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QVERIFY(check.allKnown());
    QCOMPARE(check.models[0]->id, std::string("H100-SXM5-80GB"));
    QVERIFY2(check.warnings.empty(), join(check.warnings, "\n").c_str());
  }

  // H200 on driver 580 reports 1g.35gb/2g.35gb and 3g.71gb/4g.71gb 0.25 GiB larger than the
  // catalog's older driver figures: warnings, and nothing else differs.
  void recordedH200WarnsAboutMemoryOnly() {
    auto node = probeFake(kH200 + "/nvml-probe.txt");
    QVERIFY(node.ok());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QCOMPARE(check.models[0]->id, std::string("H200-SXM-141GB"));
    QCOMPARE(check.warnings.size(), size_t{4});
    for (const auto& w : check.warnings) {
      QVERIFY2(has(w, ": memory ") && has(w, "0.25 GiB"), w.c_str());
    }
    QVERIFY(has(join(check.warnings, "\n"),
                "profile 1g.35gb (id 15): memory 32.50 GiB on this "
                "node, 32.25 GiB in the catalog"));
    QVERIFY(has(join(check.warnings, "\n"), "profile 3g.71gb (id 9): memory 69.75 GiB"));
  }

  void recordedNvidiaSmiGivesTheNvmlModel() {
    auto smi = probeNvidiaSmi(recordedNvidiaSmi(kH100));
    QVERIFY2(smi.ok(), smi ? "" : smi.error().str().c_str());
    auto nvml = probeFake(recordedH100Fixtures(), kSysfsH100);
    QVERIFY(nvml.ok());
    QCOMPARE(smi->source, std::string("nvidia-smi"));
    QCOMPARE(smi->driverVersion, nvml->driverVersion);
    QCOMPARE(smi->cudaVersion, std::string("13.0"));
    QCOMPARE(smi->gpus.size(), nvml->gpus.size());
    const GpuInventory& a = smi->gpus[0];
    const GpuInventory& b = nvml->gpus[0];
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.architecture, std::string("Hopper"));
    QCOMPARE(a.uuid, b.uuid);
    QCOMPARE(a.pciBusId, b.pciBusId);
    QCOMPARE(a.pciDeviceId, b.pciDeviceId);
    QCOMPARE(a.memoryMiB, b.memoryMiB);
    QCOMPARE(a.mig.supported, b.mig.supported);
    QCOMPARE(a.mig.current, b.mig.current);
    QCOMPARE(a.mig.pending, b.mig.pending);
    QCOMPARE(a.numaNode, b.numaNode);
    QCOMPARE(a.cpuAffinity, b.cpuAffinity);
    QCOMPARE(smi->links, nvml->links);
    QCOMPARE(a.profiles.size(), b.profiles.size());
    for (const auto& pb : b.profiles) {
      const MigProfileInfo* pa = profileById(a, pb.id);
      QVERIFY2(pa, std::to_string(pb.id).c_str());
      QCOMPARE(pa->computeSlices, pb.computeSlices);
      QCOMPARE(pa->instanceCount, pb.instanceCount);
      QCOMPARE(pa->sm, pb.sm);
      QVERIFY(pa->engines.ce == pb.engines.ce && pa->engines.dec == pb.engines.dec &&
              pa->engines.enc == pb.engines.enc && pa->engines.jpeg == pb.engines.jpeg &&
              pa->engines.ofa == pb.engines.ofa);
      QCOMPARE(pa->placements, pb.placements);
      // -lgip prints GiB with two decimals: 19.62 for NVML's 20096 MiB (19.625 GiB).
      QVERIFY2(std::abs(pa->memoryMiB - pb.memoryMiB) <= 6, pa->name.c_str());
    }
    QCOMPARE(profileById(a, 20)->name, std::string("1g.10gb+me"));
    const CatalogCheck check = checkAgainstCatalog(*smi, GpuCatalog::builtin());
    QVERIFY2(check.warnings.empty(), join(check.warnings, "\n").c_str());
  }

  void migEnabledVariantsFromTheCatalog_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("layout");
    QTest::newRow("A100 40GB") << "A100-SXM4-40GB"
                               << "3g.20gb@4,2g.10gb@0,1g.5gb@2,1g.5gb@3";
    QTest::newRow("A100 80GB") << "A100-SXM4-80GB"
                               << "3g.40gb@0(1c+2c),3g.40gb@4";
    QTest::newRow("H100") << "H100-SXM5-80GB"
                          << "4g.40gb@0(2c+2c),1g.10gb+me@4,1g.20gb@6";
    QTest::newRow("A30") << "A30-24GB"
                         << "2g.12gb@0,1g.6gb@2,1g.6gb+me@3";
    QTest::newRow("H100 MIG on, no instances") << "H100-SXM5-80GB"
                                               << "";
  }

  void migEnabledVariantsFromTheCatalog() {
    QFETCH(QString, model);
    QFETCH(QString, layout);
    const GpuModel* m = GpuCatalog::builtin().find(model.toStdString());
    QVERIFY(m && m->mig);
    auto parsed = parseMigLayout(*m, layout.toStdString());
    QVERIFY2(parsed.ok(), parsed ? "" : parsed.error().str().c_str());
    parsed->sortByStart();
    QTemporaryDir dir;
    const std::string fixture = dir.path().toStdString() + "/fixture.txt";
    writeText(fixture, fixtureFromCatalog(*m, *parsed, 2));
    auto node = probeFake(fixture);
    QVERIFY2(node.ok(), node ? "" : node.error().str().c_str());
    QCOMPARE(node->gpus.size(), size_t{2});
    for (const GpuInventory& g : node->gpus) {
      QCOMPARE(g.name, m->productName);
      QCOMPARE(pciDeviceIdText(g.pciDeviceId), m->pciDeviceIds.front());
      QCOMPARE(g.memoryMiB, int64_t{*m->memoryMiB});
      QVERIFY(g.mig.supported && g.mig.current && g.mig.pending);
      QCOMPARE(g.profiles.size(), m->mig->profiles.size());
      for (const MigProfile& c : m->mig->profiles) {
        const MigProfileInfo* p = profileById(g, c.id);
        QVERIFY2(p, c.name.c_str());
        QCOMPARE(p->computeSlices, c.computeSlices);
        QCOMPARE(p->instanceCount, c.maxCount);
        QCOMPARE(p->sm, c.sm);
        QVERIFY(p->engines.ce == c.engines.ce && p->engines.ofa == c.engines.ofa &&
                p->engines.jpeg == c.engines.jpeg && p->engines.dec == c.engines.dec);
        for (const auto& pl : p->placements) {
          QVERIFY(c.canStartAt(pl.start));
          QCOMPARE(pl.size, c.memorySlices);
        }
        QCOMPARE(static_cast<int>(p->placements.size()), std::popcount(c.startMask));
      }
      QCOMPARE(static_cast<int>(g.gpuInstances.size()), parsed->size());
      for (int i = 0; i < parsed->size(); ++i) {
        const MigInstance& want = (*parsed)[i];
        const GpuInstanceInfo& got = g.gpuInstances[static_cast<size_t>(i)];
        const MigProfile& p = m->mig->profiles[static_cast<size_t>(want.profile)];
        QCOMPARE(got.profileId, p.id);
        QCOMPARE(got.placement, (MigPlacement{want.start, p.memorySlices}));
        QCOMPARE(static_cast<int>(got.computeInstances.size()),
                 want.ciCount == 0 ? 1 : static_cast<int>(want.ciCount));
      }
      QCOMPARE(g.migDevices.size(), [&] {
        size_t n = 0;
        for (const auto& gi : g.gpuInstances) n += gi.computeInstances.size();
        return n;
      }());
      auto text = migLayoutText(g, *m);
      QVERIFY(text.ok());
      QCOMPARE(*text, layout.isEmpty() ? std::string("-") : formatMigLayout(*m, *parsed));
    }
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QCOMPARE(check.models[0]->id, m->id);
    QVERIFY2(check.warnings.empty(), join(check.warnings, "\n").c_str());
    // The spec entry loads, and the cluster holds the layout the driver reported.
    auto yaml = inventorySpecYaml(*node, check, SpecNames{"gpu-node-1", {}, "leaf-probe"});
    QVERIFY2(yaml.ok(), yaml ? "" : yaml.error().str().c_str());
    auto cluster = loadClusterSpec(*yaml, "probe.yaml");
    QVERIFY2(cluster.ok(),
             (cluster ? std::string() : cluster.error().str() + "\n" + *yaml).c_str());
    QCOMPARE((*cluster)->gpus().size(), size_t{2});
    const Gpu& gpu0 = (*cluster)->gpu(0);
    QCOMPARE(gpu0.sharing.mode, SharingMode::Mig);
    QCOMPARE(formatMigLayout(*m, gpu0.sharing.mig), formatMigLayout(*m, *parsed));
    QVERIFY(has(*yaml, "driver: \"580.159.04\""));
  }

  void nvlinkPeersAndPcieClasses() {
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/links.txt";
    // GPUs 0 and 1 joined by four NVLinks; GPU 2 behind PCIe bridges (PXB) from 0, SYS from 1.
    writeText(extra,
              "count 3\ngpu 1 name NVIDIA H100 80GB HBM3\ngpu 1 pci 00000000:00:07.0 233010DE\n"
              "gpu 1 mem_total_mib 81559\ngpu 1 mig_mode 0 pending 0 (Success)\n"
              "gpu 2 name NVIDIA H100 80GB HBM3\ngpu 2 pci 00000000:00:08.0 233010DE\n"
              "gpu 2 mem_total_mib 81559\ngpu 2 mig_mode 0 pending 0 (Success)\n"
              "nvlink 0 link 0 peer 00000000:00:07.0\nnvlink 0 link 1 peer 00000000:00:07.0\n"
              "nvlink 0 link 2 peer 00000000:00:07.0\nnvlink 0 link 3 peer 00000000:00:07.0\n"
              "nvlink 1 link 0 peer 00000000:00:06.0\nnvlink 1 link 1 peer 00000000:00:06.0\n"
              "nvlink 1 link 2 peer 00000000:00:06.0\nnvlink 1 link 3 peer 00000000:00:06.0\n"
              "topo 0 2 level 20\ntopo 2 0 level 20\n");
    auto node = probeFake(recordedH100Fixtures() + ":" + extra);
    QVERIFY2(node.ok(), node ? "" : node.error().str().c_str());
    QCOMPARE(node->gpus.size(), size_t{3});
    QCOMPARE(node->gpus[0].nvlinks.size(), size_t{4});
    QCOMPARE(node->gpus[0].nvlinks[2].peerBusId, std::string("00000000:00:07.0"));
    QCOMPARE(node->links[0][1].str(), std::string("NV4"));
    QCOMPARE(node->links[1][0].str(), std::string("NV4"));
    QCOMPARE(node->links[0][2].str(), std::string("PXB"));
    QCOMPARE(node->links[1][2].str(), std::string("SYS"));
    QVERIFY(topoText(*node).starts_with("\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\n"));
  }

  void nvmlMissingIsNotInstalled() {
    QVERIFY(nvmlLoadable("libnvidia-ml.so.1"));  // the fake, through LD_LIBRARY_PATH
    QVERIFY(!nvmlLoadable("libnvidia-ml-absent.so.1"));
    NvmlProbeOptions options;
    options.library = "libnvidia-ml-absent.so.1";
    auto node = probeNvml(options);
    QVERIFY(!node.ok());
    QVERIFY2(has(node.error().str(), "NVML not found: cannot load libnvidia-ml-absent.so.1"),
             node.error().str().c_str());
  }

  void nvmlErrorsAreReported_data() {
    QTest::addColumn<QString>("injected");
    QTest::addColumn<QString>("message");
    QTest::newRow("no driver") << "error nvmlInit_v2 9"
                               << "NVML nvmlInit_v2 failed: Driver Not Loaded (9)";
    QTest::newRow("memory call") << "error nvmlDeviceGetMemoryInfo 999"
                                 << "NVML nvmlDeviceGetMemoryInfo (GPU 0) failed: Unknown Error "
                                    "(999)";
    QTest::newRow("profile call") << "error nvmlDeviceGetGpuInstanceProfileInfo 4"
                                  << "nvmlDeviceGetGpuInstanceProfileInfo (GPU 0) failed: "
                                     "Insufficient Permissions (4)";
    QTest::newRow("placements")
        << "error nvmlDeviceGetGpuInstancePossiblePlacements_v2 999"
        << "nvmlDeviceGetGpuInstancePossiblePlacements_v2 (GPU 0) failed: Unknown Error (999)";
  }

  void nvmlErrorsAreReported() {
    QFETCH(QString, injected);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/error.txt";
    writeText(extra, injected.toStdString() + "\n");
    auto node = probeFake(recordedH100Fixtures() + ":" + extra);
    QVERIFY(!node.ok());
    QVERIFY2(has(node.error().str(), message.toStdString()), node.error().str().c_str());
  }

  // A GPU fallen off the bus (NVML answers GPU_IS_LOST) is listed by its index with the fault,
  // not a failed probe: tesserad must learn of it. The catalog check passes over it, and a spec
  // entry, which needs every GPU, is refused naming it.
  void lostGpuIsListedWithItsFault() {
    const GpuModel& m = *GpuCatalog::builtin().find("H100-SXM5-80GB");
    QTemporaryDir dir;
    const std::string fixture = dir.path().toStdString() + "/node.txt";
    writeText(fixture, fixtureFromCatalog(m, *parseMigLayout(m, "7g.80gb@0"), 2) + "lost 1\n");
    auto node = probeFake(fixture);
    QVERIFY2(node.ok(), node ? "" : node.error().str().c_str());
    QCOMPARE(node->gpus.size(), size_t{2});
    QVERIFY(node->gpus[0].fault.empty());
    QCOMPARE(node->gpus[0].name, m.productName);
    QCOMPARE(node->gpus[1].index, 1);
    QVERIFY2(node->gpus[1].fault ==
                 "fallen off the bus (NVML nvmlDeviceGetName (GPU 1) failed: "
                 "GPU is lost (15))",
             node->gpus[1].fault.c_str());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QVERIFY(check.allKnown());
    QVERIFY(check.models[0] != nullptr);
    QVERIFY(check.models[1] == nullptr);
    auto yaml = inventorySpecYaml(*node, check, SpecNames{"gpu-x", "", "leaf"});
    QVERIFY(!yaml.ok());
    QVERIFY2(has(yaml.error().str(), "GPU 1 has fallen off the bus"), yaml.error().str().c_str());
    QVERIFY(has(inventoryJson(*node, check), "\"fault\": \"fallen off the bus"));
  }

  void driverWithoutMigSupport() {
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/nomig.txt";
    writeText(extra, "gpu 0 mig_mode 0 pending 0 (Not Supported)\n");
    auto node = probeFake(recordedH100Fixtures() + ":" + extra);
    QVERIFY2(node.ok(), node ? "" : node.error().str().c_str());
    QVERIFY(!node->gpus[0].mig.supported);
    QVERIFY(node->gpus[0].profiles.empty());
    QCOMPARE(node->notes.size(), size_t{1});
    QVERIFY2(has(node->notes[0], "GPU 0 (NVIDIA H100 80GB HBM3): MIG not supported"),
             node->notes[0].c_str());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QCOMPARE(check.warnings.size(), size_t{1});
    QVERIFY(has(check.warnings[0], "the catalog says MIG capable, but the driver reports no MIG"));
  }

  void unknownProfileIsAWarningAndBlocksItsLayout() {
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/extra.txt";
    writeText(extra,
              "gpu 0 mig_mode 1 pending 1 (Success)\ngpu 0 max_mig_devices 7\n"
              "profile 16 id 99 slices 1 instances 7 sms 16 ce 1 dec 1 enc 0 jpeg 1 ofa 0 mem_mb "
              "9984 placements 0:1 1:1\ngi 0 id 3 profile 99 placement 1:1\n");
    auto node = probeFake(recordedH100Fixtures() + ":" + extra);
    QVERIFY2(node.ok(), node ? "" : node.error().str().c_str());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QCOMPARE(check.warnings.size(), size_t{1});
    QCOMPARE(check.warnings[0], std::string("H100-SXM5-80GB: profile 99 is not in the catalog"));
    auto layout = migLayoutText(node->gpus[0], *check.models[0]);
    QVERIFY(!layout.ok());
    QVERIFY2(has(layout.error().str(),
                 "GPU instance 3 has profile id 99, which catalog model "
                 "H100-SXM5-80GB does not have"),
             layout.error().str().c_str());
  }

  void catalogDifferencesAreWarnings() {
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/changed.txt";
    // Profile index 2 (3g.40gb) with other starts and one instance fewer.
    writeText(extra,
              "profile 2 id 9 slices 3 instances 1 sms 60 ce 3 dec 3 enc 0 jpeg 3 ofa 0 mem_mb "
              "40448 placements 4:4\n");
    auto node = probeFake(recordedH100Fixtures() + ":" + extra);
    QVERIFY(node.ok());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    const std::string all = join(check.warnings, "\n");
    QCOMPARE(check.warnings.size(), size_t{2});
    QVERIFY2(has(all, "profile 3g.40gb (id 9): instances 1 on this node, 2 in the catalog"),
             all.c_str());
    QVERIFY2(
        has(all, "profile 3g.40gb (id 9): legal starts {4} on this node, {0,4} in the catalog"),
        all.c_str());
  }

  void unknownModelGetsALoadableCatalogStanza() {
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/z100.txt";
    writeText(extra, "gpu 0 name NVIDIA Z100 96GB\ngpu 0 pci 00000000:00:06.0 999910DE\n");
    auto node = probeFake(recordedH100Fixtures() + ":" + extra);
    QVERIFY(node.ok());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    QVERIFY(!check.allKnown());
    QVERIFY(!check.models[0]);
    QVERIFY2(has(check.unknown[0],
                 "GPU 0 'NVIDIA Z100 96GB' (PCI device id 0x999910DE) is not in "
                 "the GPU catalog") &&
                 has(check.unknown[0], "--catalog FILE"),
             check.unknown[0].c_str());
    QVERIFY(!inventorySpecYaml(*node, check, SpecNames{"n", {}, "leaf"}).ok());
    const std::string stanza = catalogStanza(node->gpus[0]);
    auto catalog = GpuCatalog::fromYaml("version: 1\nmodels:\n" + stanza, "stanza.yaml");
    QVERIFY2(catalog.ok(), (catalog ? stanza : catalog.error().str() + "\n" + stanza).c_str());
    const GpuModel* z = catalog->find("NVIDIA Z100 96GB");
    QVERIFY(z && z->mig);
    QCOMPARE(z->pciDeviceIds, std::vector<std::string>{"0x999910DE"});
    QCOMPARE(*z->memoryMiB, 81559);
    QCOMPARE(z->mig->memorySlices, 8);
    QCOMPARE(z->mig->computeSlices, 7);
    QCOMPARE(z->mig->profiles.size(), kH100Profiles.size());
    for (const auto& e : kH100Profiles) {
      const int i = z->mig->profileIndexById(e.id);
      QVERIFY(i >= 0);
      const MigProfile& p = z->mig->profiles[static_cast<size_t>(i)];
      QCOMPARE(p.maxCount, e.instances);
      QCOMPARE(p.memorySlices, e.size);
      uint16_t mask = 0;
      for (int s : e.starts) mask = static_cast<uint16_t>(mask | (1u << s));
      QCOMPARE(p.startMask, mask);
    }
    // With the stanza merged, the same node matches and gives no warnings.
    GpuCatalog merged = GpuCatalog::builtin();
    QVERIFY(merged.merge(*catalog).ok());
    const CatalogCheck again = checkAgainstCatalog(*node, merged);
    QVERIFY(again.allKnown());
    QVERIFY2(again.warnings.empty(), join(again.warnings, "\n").c_str());
  }

  void truncatedXmlNamesFileAndLine() {
    const std::string xml = slurp(kH100 + "/nvidia-smi-q.xml");
    const std::string cut = xml.substr(0, xml.find("<fb_memory_usage>") + 20);
    auto node = parseNvidiaSmiXml(cut, "q.xml");
    QVERIFY(!node.ok());
    QVERIFY2(has(node.error().str(), "q.xml:") && has(node.error().str(), "not valid XML"),
             node.error().str().c_str());
  }

  void malformedXmlFields_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("where");
    // Lines count in the recorded file, whose first line is "$ nvidia-smi -q -x".
    QTest::newRow("memory") << "<total>81559 MiB</total>"
                            << "<total>lots</total>"
                            << "gpu[0].fb_memory_usage/total: memory total 'lots'"
                            << "nvidia-smi-q.xml:130:";
    QTest::newRow("no uuid") << "<uuid>GPU-5e1ec7ed-0000-4000-8000-00000000a100</uuid>"
                             << ""
                             << "gpu[0].uuid: GPU 0 has no <uuid>"
                             << "nvidia-smi-q.xml:9:";
    QTest::newRow("MIG mode") << "<current_mig>Disabled</current_mig>"
                              << "<current_mig>Maybe</current_mig>"
                              << "gpu[0].mig_mode/current_mig: MIG mode 'Maybe'"
                              << "nvidia-smi-q.xml:19:";
    QTest::newRow("device id") << "<pci_device_id>233010DE</pci_device_id>"
                               << "<pci_device_id>zz</pci_device_id>"
                               << "gpu[0].pci/pci_device_id: PCI device id 'zz'"
                               << "nvidia-smi-q.xml:81:";
    QTest::newRow("not smi") << "<nvidia_smi_log>"
                             << "<other_log>"
                             << "expected <nvidia_smi_log>"
                             << "nvidia-smi-q.xml:4:";
    QTest::newRow("unclosed") << "</product_name>"
                              << ""
                              << "not valid XML"
                              << "nvidia-smi-q.xml:";
  }

  void malformedXmlFields() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, message);
    QFETCH(QString, where);
    std::string xml = slurp(kH100 + "/nvidia-smi-q.xml");
    const auto at = xml.find(from.toStdString());
    QVERIFY(at != std::string::npos);
    xml.replace(at, static_cast<size_t>(from.size()), to.toStdString());
    QTemporaryDir tmp;
    for (const char* f : {"topo-m.txt", "mig-lgip.txt", "mig-lgipp.txt"})
      writeText(tmp.path().toStdString() + "/" + f, slurp(kH100 + "/" + f));
    writeText(tmp.path().toStdString() + "/nvidia-smi-q.xml", xml);
    auto node = probeNvidiaSmi(recordedNvidiaSmi(tmp.path().toStdString()));
    QVERIFY(!node.ok());
    const std::string e = node.error().str();
    QVERIFY2(has(e, message.toStdString()), e.c_str());
    QVERIFY2(has(e, where.toStdString()), e.c_str());
  }

  void malformedMigTables() {
    const std::string lgip = slurp(kH100 + "/mig-lgip.txt");
    auto profiles = parseMigProfiles(SmiText{lgip, "lgip.txt", 1});
    QVERIFY(profiles.ok());
    QCOMPARE((*profiles)[0].size(), size_t{7});
    auto unknown =
        addMigPlacements(SmiText{"GPU  0 Profile ID 42 Placements: {0,4}:4\n", "p", 5}, *profiles);
    QVERIFY(!unknown.ok());
    QVERIFY2(has(unknown.error().str(), "p:5: Profile ID: -lgipp names profile 42 of GPU 0"),
             unknown.error().str().c_str());
    auto shape =
        addMigPlacements(SmiText{"GPU  0 Profile ID 9 Placements: 0,4\n", "p", 1}, *profiles);
    QVERIFY(!shape.ok());
    std::string badRow = lgip;
    badRow.replace(badRow.find("9.75"), 4, "lots");
    auto bad = parseMigProfiles(SmiText{badRow, "lgip.txt", 1});
    QVERIFY(!bad.ok());
    QVERIFY2(has(bad.error().str(), "lgip.txt:7: Memory: -lgip row: bad memory size 'lots'"),
             bad.error().str().c_str());
    auto none = parseMigGpuInstances(SmiText{slurp(kH100 + "/mig-lgi.txt"), "lgi", 1});
    QVERIFY(none.ok() && none->empty());
  }

  void migInstancesFromNvidiaSmiTables() {
    const std::string lgi =
        "+-------------------------------------------------------+\n"
        "| GPU instances:                                        |\n"
        "| GPU   Name             Profile  Instance   Placement  |\n"
        "|                          ID       ID       Start:Size |\n"
        "|=======================================================|\n"
        "|   0  MIG 3g.40gb           9        2          4:4    |\n"
        "+-------------------------------------------------------+\n"
        "|   0  MIG 1g.10gb          19        9          0:1    |\n"
        "+-------------------------------------------------------+\n";
    const std::string lci =
        "+--------------------------------------------------------------------+\n"
        "| Compute instances:                                                 |\n"
        "| GPU     GPU       Name             Profile   Instance   Placement  |\n"
        "|       Instance                       ID        ID       Start:Size |\n"
        "|         ID                                                         |\n"
        "|====================================================================|\n"
        "|   0      2       MIG 1c.3g.40gb       0         0          0:1     |\n"
        "+--------------------------------------------------------------------+\n"
        "|   0      2       MIG 2c.3g.40gb       1         1          1:2     |\n"
        "+--------------------------------------------------------------------+\n"
        "|   0      9       MIG 1g.10gb          0         0          0:1     |\n"
        "+--------------------------------------------------------------------+\n";
    auto gis = parseMigGpuInstances(SmiText{lgi, "lgi", 1});
    QVERIFY2(gis.ok(), gis ? "" : gis.error().str().c_str());
    QVERIFY(addMigComputeInstances(SmiText{lci, "lci", 1}, *gis).ok());
    const auto& list = (*gis)[0];
    QCOMPARE(list.size(), size_t{2});
    QCOMPARE(list[0].id, 9);
    QCOMPARE(list[1].placement, (MigPlacement{4, 4}));
    QCOMPARE(list[1].computeInstances.size(), size_t{2});
    QCOMPARE(list[1].computeInstances[1].placement, (MigPlacement{1, 2}));
    GpuInventory gpu;
    gpu.gpuInstances = list;
    auto text = migLayoutText(gpu, *GpuCatalog::builtin().find("H100-SXM5-80GB"));
    QVERIFY(text.ok());
    QCOMPARE(*text, std::string("1g.10gb@0,3g.40gb@4(1c+2c)"));
    auto orphan = addMigComputeInstances(SmiText{lci, "lci", 1}, *gis = InstancesByGpu{});
    QVERIFY(!orphan.ok());
    QVERIFY2(has(orphan.error().str(), "lci:7: GPU Instance ID: -lci names GPU instance 2"),
             orphan.error().str().c_str());
  }

  void recordedDirectoryMissingFiles() {
    auto h200 = probeNvidiaSmi(recordedNvidiaSmi(kH200));  // recorded without -q -x
    QVERIFY(!h200.ok());
    QVERIFY2(has(h200.error().str(), "nvidia-smi-q.xml"), h200.error().str().c_str());
  }

  void sysfsNames() {
    QCOMPARE(sysfsPciName("00000000:0A:00.0"), std::string("0000:0a:00.0"));
    QCOMPARE(sysfsPciName("00010000:0A:00.0"), std::string("10000:0a:00.0"));
    const SysfsNuma numa = readSysfsNuma(kSysfsH100, "00000000:00:06.0");
    QCOMPARE(numa.node, 0);
    QCOMPARE(numa.cpuList, std::string("0-15"));
    QCOMPARE(readSysfsNuma(kSysfsH100, "00000000:00:07.0").node, -1);
  }

  void jsonCarriesTheInventory() {
    auto node = probeFake(recordedH100Fixtures(), kSysfsH100);
    QVERIFY(node.ok());
    const CatalogCheck check = checkAgainstCatalog(*node, GpuCatalog::builtin());
    const std::string json = inventoryJson(*node, check);
    auto doc = parseYaml(json, "probe.json");  // JSON is YAML
    QVERIFY(doc.ok());
    const auto gpu = (*doc)["gpus"][0];
    QCOMPARE(gpu["model"].as<std::string>(), std::string("H100-SXM5-80GB"));
    QCOMPARE(gpu["pci_device_id"].as<std::string>(), std::string("0x233010DE"));
    QCOMPARE(gpu["memory_mib"].as<int>(), 81559);
    QCOMPARE(gpu["mig_profiles"].size(), size_t{7});
    QCOMPARE(gpu["mig_profiles"][2]["placements"][1]["start"].as<int>(), 4);
    QCOMPARE(gpu["numa_node"].as<int>(), 0);
    QCOMPARE((*doc)["links"][0][0].as<std::string>(), std::string("X"));
  }
};

QTEST_GUILESS_MAIN(TestInventory)
#include "tst_inventory.moc"
