// `tessera simulate sharing-study`: the side-by-side table, JSON, CSV and the bar chart, and bad
// input named by its option with the exit codes every verb uses (0 ok, 1 invalid input, 2
// unreadable input or bad option). The study's figures are tested in tests/sim.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "app/cli_test_util.h"

using namespace tessera;
using namespace tessera::test;

namespace {

const std::string kData = std::string(TESSERA_SOURCE_DIR) + "/tests/data";
const std::string kSmall = kData + "/sim/study-small.yaml";
const std::string kNoMig = kData + "/sim/study-no-mig.yaml";

std::vector<std::string> study(std::vector<std::string> more) {
  std::vector<std::string> args{"simulate", "sharing-study", "--cluster", kSmall,   "--synthetic",
                                "60",       "--rate",        "30",        "--seed", "4"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

class TstCliSharingStudy : public QObject {
  Q_OBJECT

 private slots:
  void printsTheModesSideBySide() {
    const CliResult r = runCli(study({}));
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "sharing study: synthetic (60 jobs) on study-small (16 GPUs)"));
    for (const char* mode : {"\nwhole ", "\ntime-slicing ", "\nmps ", "\nmig "})
      QVERIFY2(contains(r.out, mode), mode);
    QVERIFY(contains(r.out, "MIG layouts (repartition planner):"));
    QVERIFY(contains(r.out, "without fault isolation"));
  }

  void jsonCsvAndChart() {
    const CliResult j = runCli(study({"-o", "json", "--modes", "mig,whole"}));
    QVERIFY2(j.code == 0, qPrintable(describe(j)));
    const auto doc = nlohmann::json::parse(j.out);
    QCOMPARE(doc["modes"].size(), size_t{2});
    QCOMPARE(doc["modes"][0]["mode"].get<std::string>(), std::string("mig"));
    QVERIFY(doc["modes"][0].contains("gpus_needed"));
    QCOMPARE(doc["wait_targets_s"]["inference"].get<int>(), 300);
    const CliResult c = runCli(study({"-o", "csv", "--modes", "mps", "--no-search"}));
    QVERIFY2(c.code == 0, qPrintable(describe(c)));
    QVERIFY(c.out.rfind("mode,skipped,gpus,shared_gpus,gpus_needed,", 0) == 0);
    QVERIFY(contains(c.out, "\nmps,,16,"));
    QTemporaryDir dir;
    const std::string svg = dir.filePath("study.svg").toStdString();
    const CliResult chart = runCli(study({"--chart", svg, "--no-search"}));
    QVERIFY2(chart.code == 0, qPrintable(describe(chart)));
    QVERIFY(contains(readFile(QString::fromStdString(svg)), "jobs co-located without fault"));
  }

  // MIG on a cluster without MIG-capable GPUs: skipped with the reason, refused when asked for.
  void migWithoutMigGpus() {
    const std::vector<std::string> base{
        "simulate", "sharing-study", "--cluster", kNoMig, "--synthetic", "30", "--no-search"};
    const CliResult skipped = runCli(base);
    QVERIFY2(skipped.code == 0, qPrintable(describe(skipped)));
    QVERIFY(contains(skipped.out, "skipped: cluster 'study-no-mig' has no MIG-capable GPU"));
    auto asked = base;
    asked.insert(asked.end(), {"--modes", "whole,mig"});
    const CliResult refused = runCli(asked);
    QCOMPARE(refused.code, 1);
    QVERIFY2(contains(refused.err,
                      "--modes: mig cannot run: cluster 'study-no-mig' has no "
                      "MIG-capable GPU"),
             qPrintable(describe(refused)));
    QVERIFY(refused.out.empty());
  }

  void badInputNamesTheOption() {
    struct Case {
      std::vector<std::string> args;
      const char* message;
    };
    const std::vector<Case> cases{
        {{"--modes", "whole,vgpu"}, "--modes: unknown mode 'vgpu'"},
        {{"--slots", "-1"}, "--slots must be 2 to 64"},
        {{"--slots", "1"}, "--slots must be 2 to 64"},
        {{"--threads", "-2"}, "--threads must be 0"},
        {{"--wait-target", "inference=-5m"}, "--wait-target: bad duration '-5m'"},
        {{"--wait-target", "gaming=5m"}, "--wait-target: unknown workload class 'gaming'"},
        {{"--rate", "-5"}, "--rate"},
        {{"--chart", "study.gif"}, "--chart: the file must end in .svg or .png"},
        {{"--snapshot", kData + "/sim/events.yaml"}, "--snapshot: the sharing study"},
        {{"--events", kData + "/sim/events.yaml"}, "--events: the sharing study"},
    };
    for (const auto& c : cases) {
      const CliResult r = runCli(study(c.args));
      QCOMPARE(r.code, 2);
      QVERIFY2(contains(r.err, c.message), qPrintable(describe(r)));
      QVERIFY(r.out.empty());
    }
    const CliResult missing =
        runCli({"simulate", "sharing-study", "--cluster", "/nonexistent.yaml"});
    QCOMPARE(missing.code, 2);
    QVERIFY2(contains(missing.err, "/nonexistent.yaml"), qPrintable(describe(missing)));
    const CliResult output = runCli(study({"-o", "xml"}));
    QVERIFY(output.code != 0);
    QVERIFY(contains(output.err, "xml"));
  }
};

QTEST_GUILESS_MAIN(TstCliSharingStudy)
#include "tst_cli_sharing_study.moc"
