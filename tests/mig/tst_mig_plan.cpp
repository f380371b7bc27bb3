// Repartition planning: busy instances stay, idle ones are reused when possible, impossible
// targets are explained.
#include <QtTest>

#include "mig/mig_plan.h"
#include "mig/mig_validate.h"
#include "mig_test_util.h"
#include "topology/gpu_catalog.h"

using namespace tessera;
using tessera::test::layout;
using tessera::test::model;

class TstMigPlan : public QObject {
  Q_OBJECT

 private:
  static Expected<MigPlan> plan(const char* current, const char* target, const char* gpu = "H100") {
    const GpuModel& m = model(gpu);
    return planMigRepartition(m, layout(m, current), layout(m, target));
  }
  static QString text(const MigLayout& l) {
    return QString::fromStdString(formatMigLayout(model("H100"), l));
  }
  static int count(const MigPlan& p, MigPlanStep::Kind kind) {
    return static_cast<int>(std::count_if(p.steps.begin(), p.steps.end(),
                                          [&](const auto& s) { return s.kind == kind; }));
  }

 private slots:
  void busyInstanceStaysWhereItIs() {
    auto p = plan("3g.40gb@4*,2g.20gb@0,1g.10gb@2,1g.10gb@3", "3g.40gb,1g.20gb,1g.20gb");
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QCOMPARE(text(p->target), QString("1g.20gb@0,1g.20gb@2,3g.40gb@4"));
    QVERIFY(p->target[2].busy);
    QCOMPARE(p->keptInstances, 1);
    QCOMPARE(count(*p, MigPlanStep::Kind::Destroy), 3);
    QCOMPARE(count(*p, MigPlanStep::Kind::Create), 2);
    QVERIFY(validateMigLayout(*model("H100").mig, p->target).ok());
  }

  // Keeping the idle 3g@0 would leave no 1g slot for the second 1g; the plan must keep 3g@4.
  void reusesTheIdleInstanceThatLeadsToAValidTarget() {
    auto p = plan("3g.40gb@0,3g.40gb@4", "3g.40gb,2g.20gb,1g.10gb,1g.10gb");
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QCOMPARE(text(p->target), QString("2g.20gb@0,1g.10gb@2,1g.10gb@3,3g.40gb@4"));
    QCOMPARE(p->keptInstances, 1);
    QCOMPARE(count(*p, MigPlanStep::Kind::Destroy), 1);
    QCOMPARE(p->steps.front().instance.start, int8_t{0});
    QCOMPARE(count(*p, MigPlanStep::Kind::Create), 3);
  }

  // A busy instance must find its target entry whatever order the target lists them in.
  void busyMatchingIgnoresTargetOrder() {
    for (const char* target : {"3g.40gb,3g.40gb@0", "3g.40gb@0,3g.40gb", "3g.40gb@4,3g.40gb"}) {
      auto p = plan("3g.40gb@0*,3g.40gb@4*", target);
      QVERIFY2(p.ok(), target);
      QVERIFY(p->steps.empty());
      QCOMPARE(p->keptInstances, 2);
    }
    auto p = plan("3g.40gb@0*", "3g.40gb@4");
    QVERIFY(!p.ok());
    QVERIFY(QString::fromStdString(p.error().message)
                .contains("busy instance 3g.40gb@0 is not in the target"));
  }

  // "(1c)" on a 1g instance is its default compute instance: the busy instance matches the target.
  void defaultComputeInstanceMatches() {
    auto p = plan("1g.10gb@0(1c)*", "1g.10gb");
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QVERIFY(p->steps.empty());
  }

  void disallowedFixedStartIsCheckOne() {
    auto p = plan("-", "2g.20gb@1,1g.10gb");
    QVERIFY(!p.ok());
    const QString why = QString::fromStdString(p.error().message);
    QVERIFY2(why.contains("check 1") && why.contains("{0,2,4}"), qPrintable(why));
  }

  // Identical instances are placed as sets, not orderings: a 16-slice GPU of a user catalog with
  // twelve 1-slice instances must plan at once (12! orderings would not finish).
  void identicalInstancesArePlacedAsSets() {
    const char* yaml = R"(version: 1
models:
  - id: X16
    product_name: X16
    architecture: unknown
    mig:
      memory_slices: 16
      compute_slices: 16
      engines: {ce: 16, dec: 0, enc: 0, jpeg: 0, ofa: 0}
      profiles:
        - {name: 1g.1gb, id: 1, max: 16, ce: 1, dec: 0, enc: 0, jpeg: 0, ofa: 0, memory_gib: 1, memory_slices: 1, compute_slices: 1, starts: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}
        - {name: 2g.2gb, id: 2, max: 8, ce: 2, dec: 0, enc: 0, jpeg: 0, ofa: 0, memory_gib: 2, memory_slices: 2, compute_slices: 2, starts: [0, 2, 4, 6, 8, 10, 12, 14]}
)";
    auto catalog = GpuCatalog::fromYaml(yaml, "x16.yaml");
    QVERIFY(catalog.ok());
    const GpuModel& m = *catalog->find("X16");
    auto p = planMigRepartition(m, MigLayout{}, *parseMigLayout(m, "12x1g.1gb,2x2g.2gb"));
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QCOMPARE(p->target.size(), 14);
    QVERIFY(validateMigLayout(*m.mig, p->target).ok());
    // 13 x 1g + 2 x 2g needs 17 slices: refused at the set level, no search.
    QVERIFY(!planMigRepartition(m, MigLayout{}, *parseMigLayout(m, "13x1g.1gb,2x2g.2gb")).ok());
  }

  void sameLayoutNeedsNoSteps() {
    auto p = plan("3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3*", "3g.40gb,2g.20gb,1g.10gb,1g.10gb");
    QVERIFY(p.ok());
    QVERIFY(p->steps.empty());
    QCOMPARE(p->keptInstances, 4);
  }

  void createsLargestFirst() {
    auto p = plan("-", "1g.10gb,1g.10gb,3g.40gb,2g.20gb");
    QVERIFY(p.ok());
    QCOMPARE(count(*p, MigPlanStep::Kind::Create), 4);
    const auto& g = *model("H100").mig;
    int last = 99;
    for (const auto& s : p->steps) {
      const int size = g.profiles[static_cast<size_t>(s.instance.profile)].memorySlices;
      QVERIFY(size <= last);
      last = size;
    }
  }

  void fixedStartIsRespected() {
    auto p = plan("-", "3g.40gb@0,1g.10gb@6");
    QVERIFY(p.ok());
    QCOMPARE(text(p->target), QString("3g.40gb@0,1g.10gb@6"));
    QVERIFY(!plan("-", "3g.40gb@2").ok());
  }

  void busyInstanceMissingFromTarget() {
    auto p = plan("3g.40gb@4*,3g.40gb@0", "4g.40gb");
    QVERIFY(!p.ok());
    QVERIFY2(QString::fromStdString(p.error().message)
                 .contains("busy instance 3g.40gb@4 is not in the target"),
             p.error().message.c_str());
  }

  void busyInstanceBlocksTheTarget() {
    auto p = plan("1g.10gb@3*", "1g.10gb,4g.40gb");
    QVERIFY(!p.ok());
    const QString why = QString::fromStdString(p.error().message);
    QVERIFY2(why.contains("4g.40gb fits nowhere") && why.contains("@0 blocked by 1g.10gb@3 (busy)"),
             qPrintable(why));
  }

  void impossibleSets() {
    auto p = plan("-", "3g.40gb,3g.40gb,1g.10gb");
    QVERIFY(!p.ok());
    QVERIFY2(QString::fromStdString(p.error().message).contains("needs 9 memory slices"),
             p.error().message.c_str());
    p = plan("-", "4g.40gb,4g.40gb");
    QVERIFY(!p.ok());
    QVERIFY2(QString::fromStdString(p.error().message).contains("exceeds its maximum of 1"),
             p.error().message.c_str());
    p = plan("-", "1g.10gb+me,1g.10gb+me");
    QVERIFY(!p.ok());
    // Adds up (7 memory and 7 compute slices) but cannot be placed: 1g@1 breaks the 2g pair {0,1}.
    p = plan("-", "1g.10gb@1,2g.20gb,2g.20gb,2g.20gb");
    QVERIFY(!p.ok());
    QVERIFY2(QString::fromStdString(p.error().message).contains("fits nowhere"),
             p.error().message.c_str());
  }

  void invalidCurrentLayoutIsRejected() {
    auto p = plan("3g.40gb@0,3g.40gb@2", "3g.40gb");
    QVERIFY(!p.ok());
    QVERIFY(QString::fromStdString(p.error().message).contains("current layout is invalid"));
  }

  void a30Plan() {
    auto p = plan("2g.12gb@0*,1g.6gb@2,1g.6gb@3", "2g.12gb,2g.12gb", "A30");
    QVERIFY(p.ok());
    QCOMPARE(QString::fromStdString(formatMigLayout(model("A30"), p->target)),
             QString("2g.12gb@0,2g.12gb@2"));
    QCOMPARE(count(*p, MigPlanStep::Kind::Destroy), 2);
  }

  // Among equally cheap targets the planner leaves the least fragmentation: two 1g next to a
  // busy 3g@0 go to 4 and 5 (keeping 1g.20gb@6 placeable) rather than 5 and 6.
  void prefersLessFragmentation() {
    auto p = plan("3g.40gb@0*", "3g.40gb,1g.10gb,1g.10gb");
    QVERIFY(p.ok());
    QCOMPARE(text(p->target), QString("3g.40gb@0,1g.10gb@4,1g.10gb@5"));
  }
};

QTEST_APPLESS_MAIN(TstMigPlan)
#include "tst_mig_plan.moc"
