// The simulator verbs: `tessera simulate` (synthetic and trace workloads, events, outputs, JSON),
// `simulate compare` (table, JSON, SVG and PNG charts) and `simulate whatif`, with the exit codes
// every verb uses (0 ok, 1 invalid input, 2 unreadable input or bad option).
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "app/cli_test_util.h"

using namespace tessera;
using namespace tessera::test;

namespace {

const std::string kData = std::string(TESSERA_SOURCE_DIR) + "/tests/data";
const std::string kOpenb = TESSERA_OPENB_DIR;

double meanOf(const nlohmann::json& rows, const std::string& policy) {
  for (const auto& r : rows)
    if (r["policy"] == policy) return r["mean"].get<double>();
  return -1;
}

}  // namespace

class TstCliSimulate : public QObject {
  Q_OBJECT

 private slots:
  void simulatesASyntheticWorkloadOnTheDemoCluster() {
    const CliResult r = runCli({"simulate", "--synthetic", "80", "--rate", "40", "--seed", "3"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "synthetic: 80 jobs on 392 GPUs"));
    QVERIFY(contains(r.out, "80 jobs, 80 completed"));
    QVERIFY(contains(r.out, "queue wait p50"));
    QVERIFY(contains(r.out, "log hash"));
  }

  void jsonOutputIsMachineReadableAndDeterministic() {
    const std::vector<std::string> args{"simulate", "--synthetic", "60",  "--seed",
                                        "5",        "-o",          "json"};
    const CliResult a = runCli(args);
    QVERIFY2(a.code == 0, qPrintable(describe(a)));
    const auto j = nlohmann::json::parse(a.out);
    QCOMPARE(j["jobs"]["total"].get<int>(), 60);
    QCOMPARE(j["trace"]["source"].get<std::string>(), std::string("synthetic"));
    QVERIFY(j["utilization"]["allocation"].get<double>() > 0);
    QVERIFY(j["utilization"]["effective"].get<double>() < j["utilization"]["busy"].get<double>());
    QVERIFY(j.contains("stranded_gpus"));
    const CliResult b = runCli(args);
    QCOMPARE(nlohmann::json::parse(b.out)["log_hash"], j["log_hash"]);
  }

  void readsATraceAndWritesMetricFiles() {
    QTemporaryDir dir;
    const std::string summary = dir.filePath("summary.json").toStdString();
    const std::string samples = dir.filePath("samples.csv").toStdString();
    const std::string jobs = dir.filePath("jobs.csv").toStdString();
    const CliResult r =
        runCli({"simulate", "--workload", kData + "/traces/jobs-small.yaml", "--metrics-json",
                summary, "--samples-csv", samples, "--jobs-csv", jobs});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(nlohmann::json::parse(readFile(QString::fromStdString(summary))).contains("wait_s"));
    QVERIFY(readFile(QString::fromStdString(samples)).rfind("time_s,capacity_gpus,", 0) == 0);
    const std::string jobsCsv = readFile(QString::fromStdString(jobs));
    QVERIFY(jobsCsv.rfind("job,team,priority_class,", 0) == 0);
    QVERIFY(std::count(jobsCsv.begin(), jobsCsv.end(), '\n') >= 2);
  }

  void clusterEventsAreApplied() {
    const CliResult r =
        runCli({"simulate", "--synthetic", "40", "--events", kData + "/sim/events.yaml"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "node pod-a-01 failed"));
    QVERIFY(contains(r.out, "Xid 79 on pod-a-02/3"));
    QVERIFY(contains(r.out, "alice: drain node pod-a-03"));
  }

  void badInputsFailWithWhere() {
    const CliResult typo =
        runCli({"simulate", "--synthetic", "10", "--events", kData + "/sim/events-bad.yaml"});
    QCOMPARE(typo.code, 1);
    QVERIFY2(contains(typo.err, "events-bad.yaml:2:"), qPrintable(describe(typo)));
    QVERIFY(contains(typo.err, "repiar"));
    const CliResult node = runCli(
        {"simulate", "--synthetic", "10", "--events", kData + "/sim/events-unknown-node.yaml"});
    QCOMPARE(node.code, 1);
    QVERIFY2(contains(node.err, "events-unknown-node.yaml:2:") && contains(node.err, "pod-z-99"),
             qPrintable(describe(node)));
    const CliResult missing =
        runCli({"simulate", "--workload", "/nonexistent/trace.csv", "--format", "helios"});
    QCOMPARE(missing.code, 2);
    const CliResult format =
        runCli({"simulate", "--workload", kData + "/traces/helios-small.csv", "--format", "slurm"});
    QCOMPARE(format.code, 2);
    QVERIFY(contains(format.err, "unknown format 'slurm'"));
    for (const char* rate : {"0", "-5", "inf"}) {
      const CliResult r = runCli({"simulate", "--synthetic", "10", "--rate", rate});
      QCOMPARE(r.code, 2);
      QVERIFY(contains(r.err, "--rate"));
    }
    const CliResult pace = runCli({"simulate", "--synthetic", "10", "--pace", "inf"});
    QCOMPARE(pace.code, 2);
    const CliResult seeds = runCli({"simulate", "compare", "--synthetic", "10", "--seeds", "-1"});
    QCOMPARE(seeds.code, 2);
    const CliResult chart =
        runCli({"simulate", "compare", "--synthetic", "10", "--chart", "x.gif"});
    QCOMPARE(chart.code, 2);
    QVERIFY(chart.out.empty());  // refused before any run
    const CliResult noGpus = runCli({"simulate", "--cluster", kData + "/sim/no-gpus.yaml"});
    QCOMPARE(noGpus.code, 1);
    QVERIFY2(contains(noGpus.err, "no GPUs"), qPrintable(describe(noGpus)));
    const CliResult empty = runCli({"simulate", "--workload", kData + "/traces/empty.csv"});
    QCOMPARE(empty.code, 1);
    const CliResult duration = runCli({"simulate", "--synthetic", "10", "--duration", "soon"});
    QCOMPARE(duration.code, 2);
    QVERIFY(contains(duration.err, "--duration"));
  }

  void malformedTraceRowsStopOrAreSkipped() {
    const std::string bad = kData + "/traces/helios-malformed.csv";
    const CliResult stop = runCli({"simulate", "--workload", bad, "--format", "helios"});
    QCOMPARE(stop.code, 1);
    QVERIFY2(contains(stop.err, "helios-malformed.csv:"), qPrintable(describe(stop)));
    const CliResult keep =
        runCli({"simulate", "--workload", bad, "--format", "helios", "--keep-going", "-o", "json"});
    QVERIFY2(keep.code == 0, qPrintable(describe(keep)));
    QVERIFY(contains(keep.err, "skipped"));
    QVERIFY(nlohmann::json::parse(keep.out)["trace"]["skipped_rows"].get<int>() > 0);
  }

  void compareRunsPoliciesAndSeedsAndDrawsCharts() {
    QTemporaryDir dir;
    const std::string svg = dir.filePath("cmp.svg").toStdString();
    const CliResult r =
        runCli({"simulate", "compare", "--synthetic", "40", "--policy", "default", "--policy",
                kData + "/sim/policy-spread.yaml", "--seeds", "1,2", "--chart", svg});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "policy-spread"));
    // Header and 4 runs; blank line, title, header and 4 runs of placement quality; "wrote".
    QCOMPARE(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 4 + 3 + 4 + 1);
    QVERIFY(contains(r.out, "gang-topology"));
    const std::string chart = readFile(QString::fromStdString(svg));
    QVERIFY(contains(chart, "<svg"));
    QCOMPARE(std::count(chart.begin(), chart.end(), '<') > 20, true);  // axes, ticks, two lines
    QVERIFY(contains(chart, "policy-spread"));
    const std::string png = dir.filePath("cmp.png").toStdString();
    const CliResult p =
        runCli({"simulate", "compare", "--synthetic", "20", "--chart", png, "-o", "json"});
    QVERIFY2(p.code == 0, qPrintable(describe(p)));
    QCOMPARE(nlohmann::json::parse(p.out).size(), size_t{1});
    QImage image(QString::fromStdString(png));
    QCOMPARE(image.width(), 800);
    const CliResult badChart = runCli({"simulate", "compare", "--synthetic", "10", "--chart",
                                       dir.filePath("x.gif").toStdString()});
    QCOMPARE(badChart.code, 2);
    const CliResult badQuality = runCli({"simulate", "compare", "--synthetic", "10",
                                         "--quality-chart", dir.filePath("x.gif").toStdString()});
    QCOMPARE(badQuality.code, 2);
    QVERIFY(contains(badQuality.err, "--quality-chart"));
  }

  // Placement quality per run in JSON, and per policy in a bar chart of three panels.
  void compareReportsPlacementQuality() {
    QTemporaryDir dir;
    const std::string svg = dir.filePath("quality.svg").toStdString();
    const CliResult r = runCli({"simulate", "compare", "--synthetic", "60", "--policy", "default",
                                "--policy", kData + "/sim/policy-spread.yaml", "--seeds", "1",
                                "--quality-chart", svg, "-o", "json"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    const auto runs = nlohmann::json::parse(r.out);
    QCOMPARE(runs.size(), size_t{2});
    for (const auto& run : runs) {
      const auto& q = run["placement"];
      QVERIFY(q["mig_samples"].get<int>() > 0);
      QVERIFY(q["mig_3g_placeable"].get<double>() > 0);  // the demo cluster has MIG GPUs
      QVERIFY(q["gangs_domain_judged"].get<int>() > 0);  // and multi-GPU training gangs
      const double share = q["nvlink_domain_share"].get<double>();
      QCOMPARE(share, q["gangs_in_one_nvlink_domain"].get<double>() /
                          q["gangs_domain_judged"].get<double>());
      QVERIFY(run["summary"]["stranded_gpus"].contains("gang-topology"));
    }
    const std::string chart = readFile(QString::fromStdString(svg));
    for (const char* panel : {"MIG room", "gangs together", "stranded GPUs by cause"})
      QVERIFY2(contains(chart, panel), panel);
    QVERIFY(contains(chart, "policy-spread"));
    QVERIFY(contains(chart, "gang-topology"));
  }

  void whatIfShowsBothSides() {
    const CliResult r = runCli({"simulate", "whatif", "--synthetic", "60", "--rate", "200",
                                "--changes", kData + "/sim/whatif-more-nodes.yaml"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "what-if 'two-more-dgx'"));
    QVERIFY(contains(r.out, "queue wait p95"));
    const CliResult j = runCli({"simulate", "whatif", "--synthetic", "30", "--changes",
                                kData + "/sim/whatif-more-nodes.yaml", "-o", "json"});
    QVERIFY2(j.code == 0, qPrintable(describe(j)));
    QCOMPARE(nlohmann::json::parse(j.out)["variant"].get<std::string>(),
             std::string("two-more-dgx"));
    const CliResult missing = runCli({"simulate", "whatif", "--synthetic", "10"});
    QCOMPARE(missing.code, 2);
  }

  // The FGD paper's experiment on the real default trace, two seeds: FGD strands less than random.
  void openbExperimentComparesPolicies() {
    QTemporaryDir dir;
    const std::string svg = dir.filePath("openb.svg").toStdString();
    const std::vector<std::string> base{"simulate",   "openb",
                                        "--nodes",    kOpenb + "/openb_node_list_gpu_node.csv",
                                        "--pods",     kOpenb + "/openb_pod_list_default.csv",
                                        "--policies", "random,fgd",
                                        "--seeds",    "42-43"};
    std::vector<std::string> text = base;
    text.insert(text.end(), {"--chart", svg});
    const CliResult r = runCli(text);
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "openb_pod_list_default: 1213 nodes, 8152 pods"));
    QVERIFY(contains(readFile(QString::fromStdString(svg)), ">fgd</text>"));
    std::vector<std::string> json = base;
    json.insert(json.end(), {"-o", "json"});
    const CliResult j = runCli(json);
    QVERIFY2(j.code == 0, qPrintable(describe(j)));
    const auto rows = nlohmann::json::parse(j.out);
    QCOMPARE(rows.size(), size_t{2});
    QCOMPARE(rows[0]["unallocated_at_100"].size(), size_t{2});
    QVERIFY(meanOf(rows, "fgd") > 0);
    QVERIFY(meanOf(rows, "fgd") < meanOf(rows, "random"));
  }

  void openbBadInputs() {
    const std::string nodes = kOpenb + "/openb_node_list_gpu_node.csv";
    const std::string pods = kData + "/traces/openb-pods-small.csv";
    const CliResult policy =
        runCli({"simulate", "openb", "--nodes", nodes, "--pods", pods, "--policies", "magic"});
    QCOMPARE(policy.code, 2);
    QVERIFY2(contains(policy.err, "unknown placement policy 'magic'"),
             qPrintable(describe(policy)));
    const CliResult seeds =
        runCli({"simulate", "openb", "--nodes", nodes, "--pods", pods, "--seeds", "9-x"});
    QCOMPARE(seeds.code, 2);
    QVERIFY(contains(seeds.err, "--seeds"));
    const CliResult broken = runCli({"simulate", "openb", "--nodes",
                                     kData + "/traces/openb-nodes-malformed.csv", "--pods", pods});
    QCOMPARE(broken.code, 1);
    QVERIFY2(contains(broken.err, "openb-nodes-malformed.csv:"), qPrintable(describe(broken)));
    const CliResult family =
        runCli({"simulate", "openb", "--nodes", nodes, "--pods", pods, "--family", "bigpods:50%"});
    QCOMPARE(family.code, 2);
    QVERIFY2(contains(family.err, "unknown trace family 'bigpods'"), qPrintable(describe(family)));
  }

  // --family runs the families generated from the pod list instead of the list itself.
  void openbFamilies() {
    const CliResult r =
        runCli({"simulate", "openb", "--nodes", kOpenb + "/openb_node_list_gpu_node.csv", "--pods",
                kOpenb + "/openb_pod_list_default.csv", "--policies", "fgd", "--seeds", "42",
                "--family", "multigpu:50%", "--family", "cpu-only:25%", "--engine-ties"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(r.out, "openb_pod_list_default/multigpu50: 1213 nodes, 8152 pods"));
    QVERIFY(contains(r.out, "openb_pod_list_default/cpu-only25: 1213 nodes"));
    QVERIFY(!contains(r.out, "openb_pod_list_default: "));
  }
};

QTEST_APPLESS_MAIN(TstCliSimulate)
#include "tst_cli_simulate.moc"
