// The benchmarks' shared percentile definition (bench_stats.h): nearest rank, and the rule for
// when a sample holds a percentile at all.
#include <QTest>

#include "bench_stats.h"

using namespace tessera::bench;

class TstBenchStats : public QObject {
  Q_OBJECT
 private slots:
  void nearestRank() {
    std::vector<double> v;
    for (int i = 100; i >= 1; --i) v.push_back(i);  // 1..100, unsorted
    QCOMPARE(percentile(v, 0.5), 50.0);
    QCOMPARE(percentile(v, 0.9), 90.0);
    QCOMPARE(percentile(v, 0.99), 99.0);  // the second-largest of 100
    QCOMPARE(percentile(v, 1.0), 100.0);
    QCOMPARE(percentile({7}, 0.99), 7.0);
    QCOMPARE(percentile({}, 0.5), 0.0);
  }

  // A p99 of 20 samples is the largest one: the old ad-hoc index math called the second-largest
  // "p99"; here it is simply not a p99.
  void enoughSamples() {
    QVERIFY(!hasPercentile(0.99, 20));
    QVERIFY(!hasPercentile(0.99, 99));
    QVERIFY(hasPercentile(0.99, 100));
    QVERIFY(hasPercentile(0.95, 20));
    QVERIFY(!hasPercentile(0.90, 9));
    QVERIFY(hasPercentile(0.90, 10));
    QVERIFY(!hasPercentile(1.0, 1000));
  }

  void weighted() {
    // 98 events at 1 s, 2 at 5 s: the p99 event waited 5 s, the median 1 s.
    const std::vector<std::pair<double, uint64_t>> v = {{5, 2}, {1, 98}};
    QCOMPARE(weightedPercentile(v, 0.5), 1.0);
    QCOMPARE(weightedPercentile(v, 0.98), 1.0);
    QCOMPARE(weightedPercentile(v, 0.99), 5.0);
  }

  void summary() {
    const Summary s = summarize({3, 1, 2, 4});
    QCOMPARE(s.n, size_t{4});
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.median, 2.0);
    QCOMPARE(s.max, 4.0);
    QCOMPARE(s.mean, 2.5);
  }
};

QTEST_APPLESS_MAIN(TstBenchStats)
#include "tst_bench_stats.moc"
