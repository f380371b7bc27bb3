// The GPU catalog: the shipped data agrees with the hardware reference, user catalogs load and
// merge, and malformed catalogs are rejected with file:line and field.
#include <QtTest>

#include <QRegularExpression>
#include <fstream>

#include "topology/gpu_catalog.h"

using namespace tessera;

namespace {

const GpuModel& model(const char* name) {
  const GpuModel* m = GpuCatalog::builtin().find(name);
  if (!m) qFatal("model %s missing", name);
  return *m;
}

std::string errorOf(const std::string& yaml) {
  auto c = GpuCatalog::fromYaml(yaml, "user.yaml");
  return c.ok() ? std::string("<loaded>") : c.error().str();
}

const char* kTiny = R"(version: 1
models:
  - id: X1000
    product_name: "Example X1000"
    architecture: unknown
    memory_mib: 1000
    mig:
      memory_slices: 4
      compute_slices: 4
      engines: {ce: 4, dec: 0, enc: 0, jpeg: 0, ofa: 0}
      profiles:
        - {name: 1g.1gb, id: 1, max: 4, ce: 1, dec: 0, enc: 0, jpeg: 0, ofa: 0, memory_gib: 0.25, memory_slices: 1, compute_slices: 1, starts: [0, 1, 2, 3]}
)";

}  // namespace

class TstGpuCatalog : public QObject {
  Q_OBJECT

 private slots:
  void builtinHasEveryRequiredModel() {
    for (const char* id :
         {"A100-SXM4-40GB", "A100-SXM4-80GB", "H100-SXM5-80GB", "H100-PCIE-80GB", "H100-NVL-94GB",
          "H200-SXM-141GB", "GH200-96GB", "GH200-144GB", "A30-24GB", "L40S", "L4", "A10", "T4",
          "V100-SXM2-16GB", "V100-SXM2-32GB", "P100"}) {
      QVERIFY2(GpuCatalog::builtin().find(id) != nullptr, id);
    }
  }

  // Every GPU model named in the openb trace's node list resolves (the trace uses short names).
  void openbModelsResolve() {
    for (const char* name : {"P100", "T4", "V100M16", "V100M32", "A10", "G1", "G2", "G3"})
      QVERIFY2(GpuCatalog::builtin().find(name) != nullptr, name);
    QCOMPARE(QString::fromStdString(model("V100M32").id), QString("V100-SXM2-32GB"));
  }

  void lookupIsCaseInsensitiveByIdProductAndAlias() {
    QCOMPARE(&model("h100-sxm5-80gb"), &model("NVIDIA H100 80GB HBM3"));
    QVERIFY(GpuCatalog::builtin().find("no-such-gpu") == nullptr);
  }

  void migTablesMatchTheReference() {
    // H100 SXM (reference 1.3/1.4): 3g.40gb is ID 9, max 2, 60 SMs, starts {0,4}, 4 memory slices.
    const MigGeometry& h = *model("H100").mig;
    const MigProfile& p3 = h.profiles[static_cast<size_t>(h.profileIndex("3g.40gb"))];
    QCOMPARE(p3.id, 9);
    QCOMPARE(p3.maxCount, 2);
    QCOMPARE(p3.sm, 60);
    QCOMPARE(p3.startMask, uint16_t{0b00010001});
    QCOMPARE(p3.memorySlices, 4);
    QCOMPARE(h.totals.ofa, 1);
    QCOMPARE(h.totals.dec, 7);
    const MigProfile& p15 = h.profiles[static_cast<size_t>(h.profileIndex("1g.20gb"))];
    QCOMPARE(p15.id, 15);
    QCOMPARE(p15.sm, 26);  // one compute slice, yet 26 SMs (reference note)
    QCOMPARE(p15.startMask, uint16_t{0b01010101});
    // A30: 4 slices, its own profile IDs.
    const MigGeometry& a30 = *model("A30").mig;
    QCOMPARE(a30.memorySlices, 4);
    QCOMPARE(a30.profiles[static_cast<size_t>(a30.profileIndex("2g.12gb+me"))].id, 6);
    QCOMPARE(a30.profiles[static_cast<size_t>(a30.profileIndex("4g.24gb"))].id, 0);
    // A100-40GB engines (reference 1.5: CE 7, DEC 5, JPEG 1, OFA 1).
    const MigGeometry& a100 = *model("A100-SXM4-40GB").mig;
    QCOMPARE(a100.totals.ce, 7);
    QCOMPARE(a100.totals.dec, 5);
    QCOMPARE(a100.totals.jpeg, 1);
    QVERIFY(!model("L40S").migCapable());
  }

  // Independent of the loader's own checks: the shipped file keeps the documented vocabulary.
  void builtinFollowsTheDocumentedRules() {
    const QRegularExpression profileName(QStringLiteral("^[0-9]+g\\.[A-Za-z0-9._+-]+$"));
    const QRegularExpression pciId(QStringLiteral("^0x[0-9A-Fa-f]{8}$"));
    const QStringList architectures{"pascal",       "volta",  "turing",    "ampere",
                                    "ada-lovelace", "hopper", "blackwell", "unknown"};
    for (const auto& m : GpuCatalog::builtin().models()) {
      QVERIFY2(architectures.contains(QString::fromStdString(m->architecture)), m->id.c_str());
      for (const auto& id : m->pciDeviceIds)
        QVERIFY2(pciId.match(QString::fromStdString(id)).hasMatch(), id.c_str());
      if (!m->mig) continue;
      for (const auto& p : m->mig->profiles) {
        QVERIFY2(profileName.match(QString::fromStdString(p.name)).hasMatch(), p.name.c_str());
        QVERIFY2(p.engines.within(m->mig->totals), p.name.c_str());
        QVERIFY2(p.memoryGiB >= 0, p.name.c_str());
      }
    }
  }

  void unconfirmedFactsAreRecordedAsData() {
    // The reference marks the H200 7g.141gb SM count unconfirmed; the catalog must say so.
    const MigGeometry& h200 = *model("H200").mig;
    QVERIFY(!h200.profiles[static_cast<size_t>(h200.profileIndex("7g.141gb"))].unconfirmed.empty());
  }

  void userCatalogLoadsAndMerges() {
    auto extra = GpuCatalog::fromYaml(kTiny, "user.yaml");
    QVERIFY2(extra.ok(), extra.ok() ? "" : extra.error().str().c_str());
    GpuCatalog merged = GpuCatalog::builtin();
    const size_t before = merged.models().size();
    QVERIFY(merged.merge(*extra).ok());
    QCOMPARE(merged.models().size(), before + 1);
    QVERIFY(merged.find("X1000") && merged.find("X1000")->migCapable());
    QVERIFY(merged.merge(*extra).ok());  // same id again replaces, not duplicates
    QCOMPARE(merged.models().size(), before + 1);
    QCOMPARE(merged.findShared("X1000").get(), merged.find("X1000"));
  }

  // A user model may not take a name that a built-in model it does not replace answers to.
  void mergeRefusesShadowingAliases() {
    std::string yaml = kTiny;
    yaml.replace(yaml.find("    architecture: unknown"), 0, "    aliases: [H100]\n");
    auto extra = GpuCatalog::fromYaml(yaml, "user.yaml");
    QVERIFY(extra.ok());
    GpuCatalog merged = GpuCatalog::builtin();
    const size_t before = merged.models().size();
    auto status = merged.merge(*extra);
    QVERIFY(!status.ok());
    QVERIFY2(QString::fromStdString(status.error().message)
                 .contains("model 'X1000' uses the name 'H100', which already belongs to model "
                           "'H100-SXM5-80GB'"),
             status.error().message.c_str());
    QCOMPARE(merged.models().size(), before);
    QCOMPARE(QString::fromStdString(merged.find("H100")->id), QString("H100-SXM5-80GB"));
  }

  void fromFileReportsMissingFile() {
    auto c = GpuCatalog::fromFile("/nonexistent/catalog.yaml");
    QVERIFY(!c.ok());
    QVERIFY(QString::fromStdString(c.error().str()).contains("/nonexistent/catalog.yaml"));
  }

  void malformedCatalogs_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expected");
    const QString base = QString::fromUtf8(kTiny);
    QTest::newRow("version") << QString(base).replace("version: 1", "version: 2")
                             << "user.yaml:1:10: version: unsupported catalog version 2";
    QTest::newRow("typo key") << QString(base).replace("memory_mib", "memory_mb")
                              << "user.yaml:6:5: models[0].memory_mb: unknown field 'memory_mb'";
    QTest::newRow("start past end")
        << QString(base).replace("starts: [0, 1, 2, 3]", "starts: [0, 3, 4]")
        << "models[0].mig.profiles[0].starts[2]: must be at most 3, got 4";
    QTest::newRow("size past end")
        << QString(base).replace("memory_slices: 1,", "memory_slices: 2,")
        << "start 3 + 2 memory slices runs past the GPU's 4";
    QTest::newRow("not a number")
        << QString(base).replace("max: 4", "max: four")
        << "user.yaml:12:38: models[0].mig.profiles[0].max: expected a whole number, got 'four'";
    QTest::newRow("missing id") << QString(base).replace("id: X1000\n    ", "")
                                << "missing required field 'id'";
    QTest::newRow("yaml syntax") << QString(base).replace("memory_mib: 1000", "memory_mib: [1000")
                                 << "user.yaml:";
    QTest::newRow("empty file") << QString("") << "user.yaml: the file is empty";
    QTest::newRow("duplicate name")
        << base +
               QString("  - {id: X2000, product_name: \"Example X1000\", architecture: unknown}\n")
        << "already used by model 'X1000'";
  }
  // Each rule of "Rules a catalog must follow" (docs/gpu-catalog.md), with its exact location.
  void catalogRules_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expected");
    const QString base = QString::fromUtf8(kTiny);
    const auto withAliases = [&](const QString& list) {
      return QString(base).replace("    architecture:",
                                   "    aliases: " + list + "\n    architecture:");
    };
    const auto withPciIds = [&](const QString& list) {
      return QString(base).replace("    memory_mib:",
                                   "    pci_device_ids: " + list + "\n    memory_mib:");
    };
    const auto withName = [&](const QString& name) {
      return QString(base).replace("name: 1g.1gb,", "name: " + name + ",");
    };
    const QString nameShape =
        "' must look like <G>g.<memory>: digits, 'g.', then letters, digits or . _ + - (e.g. "
        "1g.10gb, 1g.10gb+me, 7g.141gb)";

    QTest::newRow("unknown architecture")
        << QString(base).replace("architecture: unknown", "architecture: armv9")
        << "user.yaml:5:19: models[0].architecture: unknown architecture 'armv9' (expected one of "
           "pascal, volta, turing, ampere, ada-lovelace, hopper, blackwell, unknown)";
    QTest::newRow("architecture is case-sensitive")
        << QString(base).replace("architecture: unknown", "architecture: Hopper")
        << "user.yaml:5:19: models[0].architecture: unknown architecture 'Hopper'";

    QTest::newRow("alias repeats own id")
        << withAliases("[X1K, x1000]")
        << "user.yaml:5:20: models[0].aliases[1]: alias 'x1000' repeats the model's own id "
           "'X1000' (names compare case-insensitively)";
    QTest::newRow("alias repeats own product name")
        << withAliases("[\"EXAMPLE x1000\"]")
        << "user.yaml:5:15: models[0].aliases[0]: alias 'EXAMPLE x1000' repeats the model's own "
           "product_name 'Example X1000'";
    QTest::newRow("alias listed twice")
        << withAliases("[X1K, x1k]")
        << "user.yaml:5:20: models[0].aliases[1]: alias 'x1k' repeats alias 'X1K' of the same "
           "model";
    QTest::newRow("model id with a space")
        << QString(base).replace("id: X1000", "id: \"X 1000\"")
        << "user.yaml:3:9: models[0].id: model id 'X 1000' may only contain letters, digits, "
           "'.', '_' and '-'";
    QTest::newRow("duplicate model id")
        << base + "  - {id: x1000, product_name: \"Other\", architecture: unknown}\n"
        << "user.yaml:13:10: models[1].id: duplicate model id 'x1000'";

    QTest::newRow("PCI ID too short")
        << withPciIds("[\"0x2330\"]")
        << "user.yaml:6:22: models[0].pci_device_ids[0]: PCI device ID '0x2330' must be 0x "
           "followed by 8 hex digits, device then vendor (e.g. 0x233010DE)";
    QTest::newRow("PCI ID not hex")
        << withPciIds("[\"0x233010DE\", \"0x233010DG\"]")
        << "user.yaml:6:36: models[0].pci_device_ids[1]: PCI device ID '0x233010DG' must be 0x";
    QTest::newRow("PCI ID with 0X") << withPciIds("[\"0X233010DE\"]")
                                    << "user.yaml:6:22: models[0].pci_device_ids[0]: PCI device ID";

    QTest::newRow("start listed twice")
        << QString(base).replace("starts: [0, 1, 2, 3]", "starts: [0, 1, 1, 3]")
        << "user.yaml:12:151: models[0].mig.profiles[0].starts[2]: start 1 is listed twice";
    QTest::newRow("negative memory_gib")
        << QString(base).replace("memory_gib: 0.25", "memory_gib: -1")
        << "user.yaml:12:93: models[0].mig.profiles[0].memory_gib: must be a number >= 0 (0 = "
           "unknown), got '-1'";
    QTest::newRow("infinite memory_gib")
        << QString(base).replace("memory_gib: 0.25", "memory_gib: inf")
        << "user.yaml:12:93: models[0].mig.profiles[0].memory_gib: must be a number >= 0";

    for (const char* name : {"-", "empty", "3x1g", "\"a,b@c(1c)*\"", "1g", "1g.", "g.10gb",
                             "1g.10gb(1c)", "1g.10gb@0"})
      QTest::newRow(qPrintable(QString("profile name ") + name))
          << withName(name)
          << "user.yaml:12:18: models[0].mig.profiles[0].name: profile name '" +
                 QString(name).remove('"') + nameShape;

    QTest::newRow("profile engines above the GPU's")
        << QString(base).replace("max: 4, ce: 1,", "max: 4, ce: 5,")
        << "user.yaml:12:45: models[0].mig.profiles[0].ce: profile '1g.1gb' needs 5 ce engines, "
           "more than the GPU's total of 4 (mig.engines.ce)";
    QTest::newRow("no CI rule for a profile's GI size")
        << QString(base).replace("      profiles:",
                                 "      compute_instances: {2: {1: 2, 2: 1}}\n      profiles:")
        << "user.yaml:13:133: models[0].mig.profiles[0].compute_slices: profile '1g.1gb' has "
           "compute_slices 1, but mig.compute_instances has no key 1 (add a rule '1: {...}' for "
           "GPU instances of that size)";
  }
  void catalogRules() {
    QFETCH(QString, yaml);
    QFETCH(QString, expected);
    const QString got = QString::fromStdString(errorOf(yaml.toStdString()));
    QVERIFY2(got.startsWith(expected), qPrintable(got));
  }

  // Without a compute_instances table the model still loads: CI splits are then refused.
  void catalogWithoutCiTableLoads() {
    auto c = GpuCatalog::fromYaml(kTiny, "user.yaml");
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
    QVERIFY(c->find("X1000")->mig->computeInstances.empty());
  }

  void malformedCatalogs() {
    QFETCH(QString, yaml);
    QFETCH(QString, expected);
    const QString got = QString::fromStdString(errorOf(yaml.toStdString()));
    QVERIFY2(got.contains(expected), qPrintable(got));
  }
};

QTEST_APPLESS_MAIN(TstGpuCatalog)
#include "tst_gpu_catalog.moc"
