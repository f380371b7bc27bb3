// The scheduler verbs: `tessera schedule` on the demo cluster and workload (text and JSON, with
// explanations and a replayable export), `tessera scenario run` and `tessera policy show|validate`,
// with their exit codes (0 ok, 1 invalid input or failed expectations, 2 unreadable input).
// Expected jobs and reasons follow from resources/demo-workload.yaml as commented.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

#include "app/cli_test_util.h"

using namespace tessera;
using namespace tessera::test;

namespace {

const std::string kScenarios = std::string(TESSERA_SOURCE_DIR) + "/tests/scenarios";

nlohmann::json jobById(const nlohmann::json& jobs, int id) {
  for (const auto& j : jobs)
    if (j["id"] == id) return j;
  return {};
}

}  // namespace

class TstCliSchedule : public QObject {
  Q_OBJECT

 private slots:
  void scheduleDemoText() {
    const CliResult r = runCli({"schedule"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "RUNNING"));
    QVERIFY(contains(r.out, "PENDING (queue order)"));
    // Job 22 is submitted on hold in the demo workload.
    QVERIFY2(contains(r.out, "held by an operator"), qPrintable(describe(r)));
  }

  void scheduleDemoJson() {
    const CliResult r = runCli({"schedule", "-o", "json", "--explain", "23"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    const auto doc = nlohmann::json::parse(r.out);
    // Jobs 24 and 25 are submitted at 30m and 1h: at t=0 only the other 23 have arrived.
    QCOMPARE(doc["jobs"].size(), size_t{23});
    QVERIFY(jobById(doc["jobs"], 24).is_null());
    // The 16 x 4 GB200 gang fits only inside the 72-GPU NVL rack: it runs there.
    const auto rack = jobById(doc["jobs"], 2);
    QCOMPARE(rack["state"].get<std::string>(), std::string("running"));
    QVERIFY(contains(rack["placement"].get<std::string>(), "nvl72-"));
    // 7g.80gb needs a whole A100, and every inference GPU is partitioned: the explanation
    // proposes a repartition.
    QCOMPARE(doc["explanations"].size(), size_t{1});
    const auto ex = doc["explanations"][0];
    QCOMPARE(ex["state"].get<std::string>(), std::string("pending"));
    bool repartition = false;
    for (const auto& c : ex["counterfactuals"])
      repartition = repartition || c["kind"] == "repartition";
    QVERIFY2(repartition, ex.dump().c_str());
    // Every GPU counted: the free ones plus what the running jobs hold as whole GPUs.
    QVERIFY(doc["free_whole_gpus"].get<int>() < 392);
  }

  // Later arrivals take part once the clock passes their submit time.
  void scheduleAtLaterTime() {
    const CliResult r = runCli({"schedule", "--at", "1h", "-o", "json"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    const auto doc = nlohmann::json::parse(r.out);
    QCOMPARE(doc["jobs"].size(), size_t{25});
    QCOMPARE(doc["now"].get<int>(), 3600);
  }

  void exportReplays() {
    QTemporaryDir dir;
    const QString file = dir.filePath("snapshot.yaml");
    const CliResult r = runCli({"schedule", "--export", file.toStdString()});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(readFile(file), "name: exported-from-tessera-schedule"));
    const CliResult replay = runCli({"scenario", "run", file.toStdString()});
    QVERIFY2(replay.code == 0, qPrintable(describe(replay)));
    QVERIFY(contains(replay.out, ": OK ("));
  }

  void scheduleBadInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing workload")
        << QStringList{"schedule", "--workload", "/nonexistent/w.yaml"} << "/nonexistent/w.yaml";
    QTest::newRow("bad --at") << QStringList{"schedule", "--at", "soon"} << "--at: bad duration";
    QTest::newRow("unknown job to explain")
        << QStringList{"schedule", "--explain", "999"} << "no job 999";
  }

  void scheduleBadInput() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    std::vector<std::string> a;
    for (const auto& s : args) a.push_back(s.toStdString());
    const CliResult r = runCli(a);
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, message.toStdString()), qPrintable(describe(r)));
  }

  void scenarioRunPassesAndFails() {
    const std::string good = kScenarios + "/gang-all-or-nothing.yaml";
    CliResult r = runCli({"scenario", "run", good});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    // The same scenario with a wrong expectation fails with exit 1 and names the line.
    QTemporaryDir dir;
    std::string text = readFile(QString::fromStdString(good));
    const auto at = text.find("state: running");
    QVERIFY(at != std::string::npos);
    text.replace(at, 14, "state: failed ");
    const QString bad = dir.filePath("bad.yaml");
    QVERIFY(writeFile(bad, text));
    r = runCli({"scenario", "run", bad.toStdString()});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.out, "bad.yaml:"), qPrintable(describe(r)));
    r = runCli({"scenario", "run", "/nonexistent.yaml"});
    QCOMPARE(r.code, 2);
  }

  void policyShowAndValidate() {
    CliResult r = runCli({"policy", "show"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "queue_order: [priority, operator-order, fair-share, submit-time]"));
    QVERIFY(
        contains(r.out, "# score: binpack fgd fgd-reach fraction-pack mig-fit spread topology"));
    QTemporaryDir dir;
    const QString bad = dir.filePath("p.yaml");
    QVERIFY(writeFile(bad, "version: 1\nscore:\n  - {name: tightest}\n"));
    r = runCli({"policy", "validate", bad.toStdString()});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, "p.yaml:3:") && contains(r.err, "unknown score plugin 'tightest'"),
             qPrintable(describe(r)));
    const QString good = dir.filePath("q.yaml");
    QVERIFY(writeFile(good, "version: 1\nscore:\n  - {name: fgd, weight: 2}\n"));
    r = runCli({"policy", "validate", good.toStdString()});
    QCOMPARE(r.code, 0);
  }
};

QTEST_GUILESS_MAIN(TstCliSchedule)
#include "tst_cli_schedule.moc"
