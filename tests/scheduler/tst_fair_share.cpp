// Fair share over the team tree: deserved shares from weights, usage accrual and half-life decay,
// the factor 2^(-usedShare/deservedShare) and the DRF dominant shares. Hand-computed numbers.
#include <QtTest>

#include <cmath>

#include "scheduler/fair_share.h"

using namespace tessera;

namespace {

// research (weight 3) -> vision (1), nlp (3)
// ops      (weight 1)
// Teams are listed child-first on purpose: shares must not depend on file order.
std::vector<Team> tree() {
  return {
      Team{"vision", "research", 1, {}},
      Team{"research", "", 3, {}},
      Team{"nlp", "research", 3, {}},
      Team{"ops", "", 1, {}},
  };
}
constexpr int kVision = 0, kResearch = 1, kNlp = 2, kOps = 3;

}  // namespace

class TstFairShare : public QObject {
  Q_OBJECT

 private slots:
  void deservedSharesFromWeights() {
    const QuotaBook book(tree());
    const FairShare fs(book);
    // Top level: research 3 / (3 + 1) = 0.75, ops 1 / 4 = 0.25.
    QCOMPARE(fs.deservedShare(kResearch), 0.75);
    QCOMPARE(fs.deservedShare(kOps), 0.25);
    // Under research: vision 1 / (1 + 3) x 0.75 = 0.1875, nlp 3 / 4 x 0.75 = 0.5625.
    QCOMPARE(fs.deservedShare(kVision), 0.1875);
    QCOMPARE(fs.deservedShare(kNlp), 0.5625);
    // Siblings' shares add up to their parent's.
    QCOMPARE(fs.deservedShare(kVision) + fs.deservedShare(kNlp), fs.deservedShare(kResearch));
  }

  void nothingUsedMeansFactorOne() {
    const QuotaBook book(tree());
    const FairShare fs(book);
    for (int t = 0; t < 4; ++t) {
      QCOMPARE(fs.usage(t), 0.0);
      QCOMPARE(fs.usedShare(t), 0.0);
    }
    const auto f = fs.factors();
    QCOMPARE(f.size(), size_t{4});
    for (double v : f) QCOMPARE(v, 1.0);
  }

  void usageAccruesToAncestors() {
    const QuotaBook book(tree());
    FairShare fs(book);
    fs.addUsage(kVision, 100);
    fs.addUsage(kNlp, 300);
    fs.addUsage(kOps, 400);
    QCOMPARE(fs.usage(kVision), 100.0);
    QCOMPARE(fs.usage(kNlp), 300.0);
    QCOMPARE(fs.usage(kResearch), 400.0);  // 100 + 300
    QCOMPARE(fs.usage(kOps), 400.0);
    // Non-positive amounts and no team are ignored.
    fs.addUsage(kVision, 0);
    fs.addUsage(kVision, -50);
    fs.addUsage(-1, 1000);
    QCOMPARE(fs.usage(kVision), 100.0);
    QCOMPARE(fs.usage(kResearch), 400.0);
    // Total 800: research 400 / 800 = 0.5, ops 0.5; vision 100 / 400 x 0.5 = 0.125,
    // nlp 300 / 400 x 0.5 = 0.375.
    QCOMPARE(fs.usedShare(kResearch), 0.5);
    QCOMPARE(fs.usedShare(kOps), 0.5);
    QCOMPARE(fs.usedShare(kVision), 0.125);
    QCOMPARE(fs.usedShare(kNlp), 0.375);
    QCOMPARE(fs.usedShare(-1), 0.0);
    // Factors 2^(-used/deserved): research 2^(-0.5/0.75), ops 2^(-0.5/0.25) = 0.25,
    // vision 2^(-0.125/0.1875), nlp 2^(-0.375/0.5625): both 2^(-2/3).
    const auto f = fs.factors();
    QCOMPARE(f[kOps], 0.25);
    QCOMPARE(f[kResearch], std::exp2(-2.0 / 3.0));
    QCOMPARE(f[kVision], std::exp2(-2.0 / 3.0));
    QCOMPARE(f[kNlp], std::exp2(-2.0 / 3.0));
  }

  void halfLifeDecay() {
    const QuotaBook book(tree());
    FairShare fs(book);
    const Seconds halfLife = 3600;
    fs.addUsage(kVision, 1000);
    fs.addUsage(kOps, 200);
    fs.decayTo(halfLife, halfLife);  // one half-life after 0
    QCOMPARE(fs.usage(kVision), 500.0);
    QCOMPARE(fs.usage(kResearch), 500.0);
    QCOMPARE(fs.usage(kOps), 100.0);
    fs.decayTo(3 * halfLife, halfLife);  // two more
    QCOMPARE(fs.usage(kVision), 125.0);
    QCOMPARE(fs.usage(kOps), 25.0);
    // Half a half-life: 2^(-1/2).
    fs.decayTo(3 * halfLife + halfLife / 2, halfLife);
    QCOMPARE(fs.usage(kVision), 125.0 * std::exp2(-0.5));
    // Going back in time or standing still changes nothing.
    const double before = fs.usage(kVision);
    fs.decayTo(halfLife, halfLife);
    QCOMPARE(fs.usage(kVision), before);
    fs.decayTo(3 * halfLife + halfLife / 2, halfLife);
    QCOMPARE(fs.usage(kVision), before);
    // Uniform decay keeps the shares: vision 1000 / 1200 of all usage, ops 200 / 1200.
    QCOMPARE(fs.usedShare(kResearch), 1000.0 / 1200.0);
    QCOMPARE(fs.usedShare(kOps), 200.0 / 1200.0);
  }

  void decayForgetsOldUsage() {
    const QuotaBook book(tree());
    FairShare fs(book);
    // vision used a lot long ago, nlp a little just now: after many half-lives, nlp dominates.
    fs.addUsage(kVision, 1e6);
    fs.decayTo(20 * 3600, 3600);  // x 2^-20: ~0.95
    fs.addUsage(kNlp, 100);
    QVERIFY(fs.usage(kVision) < 1.0);
    QVERIFY(fs.usage(kNlp) > 99.0);
    const auto f = fs.factors();
    QVERIFY(f[kVision] > f[kNlp]);
  }

  void lessUsedTeamRanksHigher() {
    const QuotaBook book(tree());
    FairShare fs(book);
    fs.addUsage(kVision, 100);
    fs.addUsage(kNlp, 100);
    // Same usage, but nlp deserves 3x as much: nlp's factor is higher.
    auto f = fs.factors();
    QVERIFY(f[kNlp] > f[kVision]);
    // vision 2^(-0.5/0.1875), nlp 2^(-0.5/0.5625).
    QCOMPARE(f[kVision], std::exp2(-0.5 / 0.1875));
    QCOMPARE(f[kNlp], std::exp2(-0.5 / 0.5625));
    // Equal weights: the one that used less is ahead, the one that used nothing has factor 1.
    const QuotaBook flat(std::vector<Team>{{"a", "", 1, {}}, {"b", "", 1, {}}, {"c", "", 1, {}}});
    FairShare g(flat);
    g.addUsage(0, 300);
    g.addUsage(1, 100);
    f = g.factors();
    QVERIFY(f[1] > f[0]);
    QCOMPARE(f[2], 1.0);
    // a: 2^(-0.75 / (1/3)) = 2^-2.25, b: 2^(-0.25 / (1/3)) = 2^-0.75.
    QCOMPARE(f[0], std::exp2(-2.25));
    QCOMPARE(f[1], std::exp2(-0.75));
  }

  void dominantSharesWithWeights() {
    const QuotaBook book(std::vector<Team>{{"a", "", 2, {}}, {"b", "", 1, {}}, {"c", "", 1, {}}});
    const ResourceUse capacity{16, 100, 1000};
    const std::vector<ResourceUse> use{
        {4, 10, 500},  // GPU 0.25, CPU 0.1, memory 0.5: dominant memory 0.5, / weight 2 = 0.25
        {8, 60, 0},    // GPU 0.5, CPU 0.6: dominant CPU 0.6
        {0, 0, 0},     // nothing: 0
    };
    const auto d = dominantShares(capacity, use, book);
    QCOMPARE(d.size(), size_t{3});
    QCOMPARE(d[0], 0.25);
    QCOMPARE(d[1], 0.6);
    QCOMPARE(d[2], 0.0);
    // A resource the cluster does not have (capacity 0) does not count.
    const auto noMemory = dominantShares({16, 100, 0}, {{4, 10, 500}}, book);
    QCOMPARE(noMemory[0], 0.125);  // GPU 4 / 16 = 0.25, / weight 2
  }
};

QTEST_APPLESS_MAIN(TstFairShare)
#include "tst_fair_share.moc"
