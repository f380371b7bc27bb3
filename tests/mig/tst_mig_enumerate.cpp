// MIG enumeration, "what still fits" and the fragmentation measure.
//
// Expected counts are derived by hand (docs/mig-layout-syntax.md, "Enumeration counts"), not
// from the code under test. For the 8-slice GPUs no placement crosses the half boundary except
// 7g, counts and engines never bind without +me, so layouts without +me number
//   1 (7g) + L x U, L = 2 + 6*6 = 38 (4g, 3g, or two pairs with 6 options each),
//                   U = 1 + 6*3 = 19 (3g@4, or pair {4,5} (6 options) x pair {6,7} (3 options)),
// = 723; each layout with k 1g instances yields k more with one of them as 1g+me:
// sum of k = 48*19 + 38*18 = 1596, so 723 + 1596 = 2319 in all. Maximal layouts cover slices 0-6:
// 1 + 11*7 = 78 without +me, plus 12*7 + 11*7 = 161 with one +me = 239.
// A30 (4 slices): 1 + 5*5 = 26 without +me, + 50 with one +me (1g or 2g variant) = 76;
// maximal: 1 + 2*2 = 5, + 12 = 17.
#include <QtTest>

#include <set>

#include "mig/mig_capacity.h"
#include "mig/mig_validate.h"
#include "mig_test_util.h"

using namespace tessera;
using tessera::test::layout;
using tessera::test::model;

class TstMigEnumerate : public QObject {
  Q_OBJECT

 private slots:
  void layoutCounts_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("all");
    QTest::addColumn<int>("maximal");
    for (const char* gpu : {"A100-SXM4-40GB", "A100-PCIE-40GB", "A100-SXM4-80GB", "A100-PCIE-80GB",
                            "H100-SXM5-80GB", "H100-PCIE-80GB", "H100-NVL-94GB", "H200-SXM-141GB",
                            "H200-NVL-141GB", "GH200-96GB", "GH200-144GB"})
      QTest::newRow(gpu) << gpu << 2319 << 239;
    QTest::newRow("A30-24GB") << "A30-24GB" << 76 << 17;
  }
  void layoutCounts() {
    QFETCH(QString, gpu);
    QFETCH(int, all);
    QFETCH(int, maximal);
    const MigGeometry& g = *model(gpu.toUtf8().constData()).mig;
    QCOMPARE(int(forEachMigLayout(g, false, [](const MigLayout&) {})), all);
    QCOMPARE(int(forEachMigLayout(g, true, [](const MigLayout&) {})), maximal);
  }

  // Every enumerated layout is valid, appears once, and maximal ones admit nothing more.
  void enumeratedLayoutsAreValidDistinctAndMaximal() {
    const GpuModel& m = model("H100");
    std::set<std::string> seen;
    forEachMigLayout(*m.mig, false, [&](const MigLayout& l) {
      QVERIFY(validateMigLayout(*m.mig, l).ok());
      QVERIFY(seen.insert(formatMigLayout(m, l)).second);
    });
    QCOMPARE(seen.size(), size_t{2319});
    forEachMigLayout(*m.mig, true,
                     [&](const MigLayout& l) { QVERIFY(migWhatFits(*m.mig, l).empty()); });
  }

  void whatFitsOnPartialGpu() {
    const GpuModel& m = model("H100");
    // 3g.40gb@0 + 1g.10gb@4: the -lgip example of the reference leaves 1g at 5 and 6 only (2/7),
    // no 3g (0/2); 1g.20gb only at 6, 2g nowhere (slots 4-5 broken by the 1g@4).
    const auto fits = migWhatFits(*m.mig, layout(m, "3g.40gb@0,1g.10gb@4"));
    std::map<std::string, uint16_t> byName;
    for (const auto& f : fits)
      byName[m.mig->profiles[static_cast<size_t>(f.profile)].name] = f.starts;
    QCOMPARE(byName["1g.10gb"], uint16_t((1u << 5) | (1u << 6)));
    QCOMPARE(byName["1g.10gb+me"], uint16_t((1u << 5) | (1u << 6)));
    QCOMPARE(byName["1g.20gb"], uint16_t(1u << 6));
    QVERIFY(!byName.count("2g.20gb"));
    QVERIFY(!byName.count("3g.40gb"));
    QVERIFY(!byName.count("4g.40gb"));
    QVERIFY(!byName.count("7g.80gb"));
  }

  void whatFitsRespectsMediaExtensionLimit() {
    const GpuModel& m = model("H100");
    const auto fits = migWhatFits(*m.mig, layout(m, "1g.10gb+me@0"));
    for (const auto& f : fits)
      QVERIFY(!m.mig->profiles[static_cast<size_t>(f.profile)].mediaExtensions);
  }

  void maxAdditional() {
    const GpuModel& m = model("H100");
    const MigGeometry& g = *m.mig;
    const MigUsage empty = MigUsage::of(g, MigLayout{});
    QCOMPARE(migMaxAdditional(g, empty, g.profileIndex("1g.10gb")), 7);
    QCOMPARE(migMaxAdditional(g, empty, g.profileIndex("2g.20gb")), 3);
    QCOMPARE(migMaxAdditional(g, empty, g.profileIndex("1g.10gb+me")), 1);
    const MigUsage used = MigUsage::of(g, layout(m, "1g.10gb@1,1g.10gb@5"));
    QCOMPARE(migMaxAdditional(g, used, g.profileIndex("2g.20gb")),
             1);  // pairs {0,1},{4,5} broken, {2,3} free
    QCOMPARE(
        migMaxAdditional(g, MigUsage::of(g, layout(m, "1g.10gb@1")), g.profileIndex("2g.20gb")), 2);
    QCOMPARE(migMaxAdditional(g, used, g.profileIndex("1g.20gb")), 2);  // at 2 and 6
  }

  void fragmentationMeasure() {
    const GpuModel& m = model("H100");
    const MigGeometry& g = *m.mig;
    MigDemand only3g;
    only3g.weights = {{g.profileIndex("3g.40gb"), 1.0}};
    // Empty GPU: two 3g fit, nothing stranded.
    auto f = migFragmentation(g, MigLayout{}, only3g);
    QCOMPARE(f.freeSlices, 8);
    QCOMPARE(f.strandedSlices, 0.0);
    // One 1g@1 and one 1g@5 break both 3g placements: all 6 free slices are stranded for 3g.
    f = migFragmentation(g, layout(m, "1g.10gb@1,1g.10gb@5"), only3g);
    QCOMPARE(f.freeSlices, 6);
    QCOMPARE(f.strandedSlices, 6.0);
    QCOMPARE(f.score, 0.75);
    // The same two 1g packed at 0 and 1 keep the 3g at 4 placeable: 2 stranded (slices 2-3).
    f = migFragmentation(g, layout(m, "1g.10gb@0,1g.10gb@1"), only3g);
    QCOMPARE(f.strandedSlices, 2.0);
    // Mixed demand: weights average the per-profile stranded slices.
    MigDemand mixed;
    mixed.weights = {{g.profileIndex("3g.40gb"), 1.0}, {g.profileIndex("1g.10gb"), 3.0}};
    f = migFragmentation(g, layout(m, "1g.10gb@1,1g.10gb@5"), mixed);
    // 3g: 6 stranded; 1g: 5 more fit (0,2,3,4,6) -> slice 7 stranded = 1. (6*1 + 1*3) / 4 = 2.25.
    QCOMPARE(f.strandedSlices, 2.25);
    QCOMPARE(f.score, 2.25 / 8);
  }

  void uniformDemandSkipsMediaExtensions() {
    const MigGeometry& g = *model("A100-80GB").mig;
    const MigDemand d = MigDemand::uniform(g);
    QCOMPARE(d.weights.size(), size_t{6});
    for (auto [p, w] : d.weights) QVERIFY(!g.profiles[static_cast<size_t>(p)].mediaExtensions);
  }
};

QTEST_APPLESS_MAIN(TstMigEnumerate)
#include "tst_mig_enumerate.moc"
