// MIG apply on a node (inventory/mig_apply.h): the nvidia-smi sequence planned from NVML's view
// of a GPU (the fake libnvidia-ml.so.1 serving catalog-made fixtures), the refusals, and the
// sequence run against the fake nvidia-smi (tests/inventory/fake-nvidia-smi.sh), which records
// its argv and edits the fixture as the driver would: NVML then reads the planned layout back.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

#include "inventory/inventory_output.h"
#include "inventory/mig_apply.h"
#include "inventory/nvml_fixture.h"
#include "inventory/nvml_probe.h"
#include "topology/gpu_catalog.h"

using namespace tessera;

namespace {

const GpuModel& h100() {
  return *GpuCatalog::builtin().find("H100-SXM5-80GB");
}

MigLayout layout(const std::string& text) {
  auto parsed = parseMigLayout(h100(), text);
  if (!parsed) qFatal("layout %s: %s", text.c_str(), parsed.error().str().c_str());
  return *parsed;
}

std::string slurp(const QString& path) {
  std::ifstream in(path.toStdString());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Node {
 public:
  // The fake NVML serves one H100 with `current`; the fake nvidia-smi logs to smi.log.
  explicit Node(const std::string& current, const std::string& extra = {}) {
    fixture_ = dir_.filePath("nvml.txt");
    std::ofstream(fixture_.toStdString())
        << test::fixtureFromCatalog(h100(), layout(current), 1) << extra;
    qputenv("TESSERA_FAKE_NVML", fixture_.toUtf8());
    qputenv("FAKE_SMI_LOG", dir_.filePath("smi.log").toUtf8());
  }
  [[nodiscard]] GpuInventory gpu() const {
    NvmlProbeOptions options;
    options.sysfsRoot = dir_.filePath("no-sysfs").toStdString();
    auto node = probeNvml(options);
    if (!node) qFatal("probe: %s", node.error().str().c_str());
    return node->gpus.at(0);
  }
  [[nodiscard]] std::string layoutNow() const { return *migLayoutText(gpu(), h100()); }
  [[nodiscard]] std::string smiLog() const { return slurp(dir_.filePath("smi.log")); }

 private:
  QTemporaryDir dir_;
  QString fixture_;
};

const std::string kSmi = FAKE_NVIDIA_SMI;

std::string planText(const Node& node, const std::string& target) {
  auto plan = planMigApply(node.gpu(), h100(), layout(target));
  if (!plan) return "refused: " + plan.error().str();
  return formatMigCommands("nvidia-smi", *plan);
}

}  // namespace

class TestMigApply : public QObject {
  Q_OBJECT

 private slots:
  void plansDestroysThenCreatesAtExplicitPlacements() {
    const Node node("3g.40gb@0,3g.40gb@4");
    // The busy 3g.40gb@4 stays; 3g.40gb@0 (GI id 1 in the fixture) goes, its compute instances
    // first; the new instances are created largest first at their planned starts.
    QCOMPARE(planText(node, "2g.20gb@0,1g.10gb@2,1g.10gb@3,3g.40gb@4*"),
             std::string("nvidia-smi mig -i 0 -gi 1 -dci\n"
                         "nvidia-smi mig -i 0 -gi 1 -dgi\n"
                         "nvidia-smi mig -i 0 -cgi 14:0 -C\n"
                         "nvidia-smi mig -i 0 -cgi 19:2 -C\n"
                         "nvidia-smi mig -i 0 -cgi 19:3 -C\n"));
    QCOMPARE(planText(node, "3g.40gb@0,3g.40gb@4"), std::string());  // nothing to do
    // Planned compute instances: -cgi without -C, then -cci into the instance it made.
    QCOMPARE(planText(node, "3g.40gb@0,3g.40gb@4(1c+2c)"),
             std::string("nvidia-smi mig -i 0 -gi 2 -dci\n"
                         "nvidia-smi mig -i 0 -gi 2 -dgi\n"
                         "nvidia-smi mig -i 0 -cgi 9:4\n"
                         "nvidia-smi mig -i 0 -gi <new> -cci 0,1\n"));
  }

  void refusesBusyInstancesAndMigOff() {
    const Node node("3g.40gb@0,3g.40gb@4");
    // A busy instance the GPU does not have where planned: work runs there, nothing is done.
    const std::string busy = planText(node, "4g.40gb@0*,3g.40gb@4");
    QVERIFY2(busy.find("refused: GPU 0: the busy instance 4g.40gb@0 is not on the GPU as "
                       "planned") == 0,
             busy.c_str());
    auto unplaced = planMigApply(node.gpu(), h100(), layout("3g.40gb,3g.40gb@4"));
    QVERIFY(!unplaced);
    QVERIFY2(unplaced.error().str().find("3g.40gb has no placement") != std::string::npos,
             unplaced.error().str().c_str());

    GpuInventory off = node.gpu();
    off.mig.current = false;
    auto refused = planMigApply(off, h100(), layout("7g.80gb@0"));
    QVERIFY(!refused);
    QVERIFY2(refused.error().str().find("MIG mode is off") != std::string::npos,
             refused.error().str().c_str());
  }

  void runsAgainstTheFakeNvidiaSmiAndReadsBack() {
    const Node node("3g.40gb@0,3g.40gb@4");
    auto plan = planMigApply(node.gpu(), h100(), layout("2g.20gb@0,1g.10gb@2,1g.10gb@3,3g.40gb@4"));
    QVERIFY(plan);
    std::string outputs;
    const Status run = runMigApply(liveNvidiaSmi(kSmi), "nvidia-smi", *plan,
                                   [&](const std::string& line, const std::string& out) {
                                     outputs += line + "\n" + out;
                                   });
    QVERIFY2(run, run ? "" : run.error().str().c_str());
    QCOMPARE(node.smiLog(), std::string("mig -i 0 -gi 1 -dci\n"
                                        "mig -i 0 -gi 1 -dgi\n"
                                        "mig -i 0 -cgi 14:0 -C\n"
                                        "mig -i 0 -cgi 19:2 -C\n"
                                        "mig -i 0 -cgi 19:3 -C\n"));
    QVERIFY2(outputs.find("Successfully destroyed GPU instance ID  1 from GPU  0") !=
                 std::string::npos,
             outputs.c_str());
    QCOMPARE(node.layoutNow(), std::string("2g.20gb@0,1g.10gb@2,1g.10gb@3,3g.40gb@4"));
  }

  void runsPlannedComputeInstancesWithTheNewGpuInstanceId() {
    const Node node("7g.80gb@0");
    auto plan = planMigApply(node.gpu(), h100(), layout("3g.40gb@0(1c+2c),3g.40gb@4"));
    QVERIFY(plan);
    const Status run = runMigApply(liveNvidiaSmi(kSmi), "nvidia-smi", *plan, {});
    QVERIFY2(run, run ? "" : run.error().str().c_str());
    // The fixture's 7g is GI 1; the fake driver gives the new 3g.40gb@0 id 2 (as the real one
    // appears to), which only -cgi's output tells.
    QVERIFY2(node.smiLog().find("mig -i 0 -cgi 9:0\nmig -i 0 -gi 2 -cci 0,1\n") !=
                 std::string::npos,
             node.smiLog().c_str());
    QCOMPARE(node.layoutNow(), std::string("3g.40gb@0(1c+2c),3g.40gb@4"));
  }

  void stopsAtTheFirstFailure() {
    const Node node("3g.40gb@0,3g.40gb@4");
    qputenv("FAKE_SMI_FAIL", "-cgi");
    auto plan = planMigApply(node.gpu(), h100(), layout("7g.80gb@0"));
    QVERIFY(plan);
    const Status run = runMigApply(liveNvidiaSmi(kSmi), "nvidia-smi", *plan, {});
    qunsetenv("FAKE_SMI_FAIL");
    QVERIFY(!run);
    QVERIFY2(run.error().str().find("step 5 of 5 failed (exit 1): nvidia-smi mig -i 0 -cgi 0:0 "
                                    "-C: Unable to create a GPU instance on GPU  0 using profile "
                                    "0: In use by another client") == 0,
             run.error().str().c_str());
    QCOMPARE(node.layoutNow(), std::string("-"));  // what was done stays done: NVML says so
  }

  void createdGpuInstanceIdIsParsed() {
    QCOMPARE(createdGpuInstanceId("Successfully created GPU instance ID  2 on GPU  0 using "
                                  "profile MIG 3g.40gb (ID  9)\n"),
             2);
    QCOMPARE(createdGpuInstanceId("Unable to create a GPU instance on GPU  0 using profile 9: "
                                  "Insufficient Resources\n"),
             -1);
  }
};

QTEST_GUILESS_MAIN(TestMigApply)
#include "tst_mig_apply.moc"
