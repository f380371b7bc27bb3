// Core helpers: error locations, Expected, string and CPU-list parsing.
#include <QtTest>

#include "core/error.h"
#include "core/expected.h"
#include "core/strings.h"

using namespace tessera;

class TstCore : public QObject {
  Q_OBJECT

 private slots:
  void errorLocationText() {
    QCOMPARE(QString::fromStdString(Error{"bad", {"a.yaml", 3, 7, "nodes[0].name"}}.str()),
             QString("a.yaml:3:7: nodes[0].name: bad"));
    QCOMPARE(QString::fromStdString(Error{"bad", {"a.yaml", 3, 0, ""}}.str()),
             QString("a.yaml:3: bad"));
    QCOMPARE(QString::fromStdString(Error{"bad", {"", 0, 0, "gpus"}}.str()), QString("gpus: bad"));
    QCOMPARE(QString::fromStdString(Error{"bad", {}}.str()), QString("bad"));
  }

  void expectedHoldsValueOrError() {
    Expected<int> v = 4;
    QVERIFY(v.ok());
    QCOMPARE(*v, 4);
    Expected<int> e = Error{"nope", {}};
    QVERIFY(!e.ok());
    QCOMPARE(QString::fromStdString(e.error().message), QString("nope"));
  }

  void parseIntRejectsJunk() {
    QCOMPARE(parseInt(" 42 ").value_or(-1), 42);
    QVERIFY(!parseInt("4x"));
    QVERIFY(!parseInt(""));
    QVERIFY(!parseInt("1.5"));
    QCOMPARE(parseInt("-3").value_or(0), -3);
  }

  void cpuLists() {
    auto cpus = parseCpuList("0-3,8,10-11");
    QVERIFY(cpus);
    QCOMPARE(cpus->size(), size_t{7});
    QCOMPARE(cpus->back(), 11);
    QVERIFY(parseCpuList("")->empty());
    QVERIFY(!parseCpuList("3-1"));
    QVERIFY(!parseCpuList("a-b"));
    QVERIFY(!parseCpuList("1,,2"));
  }

  void splitAndJoin() {
    const auto parts = split("a,b,,c", ',');
    QCOMPARE(parts.size(), size_t{4});
    QVERIFY(parts[2].empty());
    QCOMPARE(QString::fromStdString(join({"x", "y"}, ", ")), QString("x, y"));
    QCOMPARE(QString::fromStdString(toLower("H100-SXM")), QString("h100-sxm"));
  }
};

QTEST_APPLESS_MAIN(TstCore)
#include "tst_core.moc"
