// `tessera simulate --record` and `tessera report` end to end, in-process: a recorded simulation
// reported in every format, the report's GPU-hours checked against the simulator's own
// accounting, and bad input answered with the documented exit codes.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "app/cli_test_util.h"
#include "report/report_json.h"

using namespace tessera;
using tessera::test::contains;
using tessera::test::describe;
using tessera::test::runCli;

class TestCliReport : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string db_, summary_;

  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    db_ = path("run.db");
    summary_ = path("summary.json");
    const auto r = runCli({"simulate", "--synthetic", "200", "--rate", "20", "--seed", "3",
                           "--record", db_, "--metrics-json", summary_, "--no-progress"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
  }

  void recordRefusesToOverwrite() {
    const auto r = runCli({"simulate", "--synthetic", "10", "--record", db_, "--no-progress"});
    QCOMPARE(r.code, 2);
    QVERIFY(contains(r.err, "exists already"));
  }

  // The report and the simulator account GPU-hours independently (the ledger's rows against
  // the simulator's per-run bookkeeping); over the whole run they must agree.
  void jsonAgreesWithTheSimulatorsAccounting() {
    const auto r = runCli({"report", "--db", db_, "-o", "-"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    auto report = reportFromJson(r.out, "stdout");
    QVERIFY2(report, report ? "" : report.error().str().c_str());
    const auto summary =
        nlohmann::json::parse(tessera::test::readFile(QString::fromStdString(summary_)));
    const double used = summary.at("gpu_hours_used").get<double>();
    QVERIFY(used > 0);
    QVERIFY2(
        std::abs(report->total.allocated - used) < 1e-6 * used,
        qPrintable(QString("report %1 vs simulator %2").arg(report->total.allocated).arg(used)));
    double byTeam = 0;
    for (const auto& u : report->usage) byTeam += u.figures.allocated;
    QVERIFY(std::abs(byTeam - report->total.allocated) < 1e-6 * used);
    QVERIFY(!report->header.wallClock);  // a simulation's clock
    QCOMPARE(report->header.cluster, std::string("tessera-demo"));
  }

  void csvFilesAndOneTableOnStdout() {
    const std::string out = path("csv");
    auto r = runCli({"report", "--db", db_, "-o", out, "--group-by", "model"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    for (const char* table : {"summary", "usage", "mig", "waits", "fair_share", "series"})
      QVERIFY2(QFile::exists(QString::fromStdString(out + "/" + table + ".csv")), table);
    r = runCli({"report", "--db", db_, "-o", "-", "--table", "usage", "--group-by", "model"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(r.out.starts_with("model,gpu_hours_allocated,"));
    QVERIFY(contains(r.out, "H100-SXM5-80GB"));
    r = runCli({"report", "--db", db_, "--format", "csv", "-o", "-"});
    QCOMPARE(r.code, 2);  // CSV on stdout is one table
    QVERIFY(contains(r.err, "--table"));
  }

  void pdfAndHtmlFromTheDatabaseAndFromJson() {
    const std::string pdf = path("r.pdf"), json = path("r.json"), html = path("r.html");
    auto r = runCli({"report", "--db", db_, "-o", pdf, "--tz", "Europe/Berlin"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(tessera::test::readFile(QString::fromStdString(pdf)).starts_with("%PDF"));
    QProcess text;
    text.start("pdftotext", {"-layout", QString::fromStdString(pdf), "-"});
    QVERIFY2(text.waitForFinished(30000), "pdftotext (poppler-utils) is needed");
    const QString extracted = QString::fromUtf8(text.readAllStandardOutput());
    QVERIFY(extracted.contains("tessera-demo"));
    QVERIFY(extracted.contains("Usage by team"));
    r = runCli({"report", "--db", db_, "-o", json});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    r = runCli({"report", "--input", json, "-o", html});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY(contains(tessera::test::readFile(QString::fromStdString(html)), "tessera-demo"));
  }

  void rangesArePartsOfTheWhole() {
    // Two halves of the history add up to the whole.
    auto whole = reportFromJson(runCli({"report", "--db", db_, "-o", "-"}).out, "whole");
    QVERIFY(whole);
    const Seconds mid = (whole->header.from + whole->header.to) / 2;
    const std::string at = "@" + std::to_string(mid);
    auto first = reportFromJson(runCli({"report", "--db", db_, "--to", at, "-o", "-"}).out, "1");
    auto second = reportFromJson(runCli({"report", "--db", db_, "--from", at, "-o", "-"}).out, "2");
    QVERIFY(first && second);
    QCOMPARE(first->header.to, mid);
    const double sum = first->total.allocated + second->total.allocated;
    QVERIFY(std::abs(sum - whole->total.allocated) < 1e-6 * whole->total.allocated);
    QVERIFY(first->total.allocated > 0 && second->total.allocated > 0);
  }

  void badInputGetsClearErrors() {
    auto r = runCli({"report", "--db", db_, "--team", "nobody", "-o", "-"});
    QCOMPARE(r.code, 1);
    QVERIFY(contains(r.err, "unknown team 'nobody'"));
    r = runCli({"report", "--db", db_, "--from", "@500", "--to", "@100", "-o", "-"});
    QCOMPARE(r.code, 1);
    QVERIFY(contains(r.err, "inverted"));
    r = runCli({"report", "--db", path("missing.db"), "-o", "-"});
    QCOMPARE(r.code, 2);
    QVERIFY(contains(r.err, "missing.db"));
    r = runCli({"report", "--db", db_, "--group-by", "color", "-o", "-"});
    QCOMPARE(r.code, 1);
    QVERIFY(contains(r.err, "--group-by"));
    r = runCli({"report", "--db", db_, "--from", "last tuesday", "-o", "-"});
    QCOMPARE(r.code, 1);
    QVERIFY(contains(r.err, "--from"));
    r = runCli({"report", "-o", "-"});
    QCOMPARE(r.code, 2);
    QVERIFY(contains(r.err, "exactly one source"));
    const QString prices = dir_.filePath("prices.yaml");
    QVERIFY(tessera::test::writeFile(prices, "gpu_hour: {L4: 0.5}\n"));
    r = runCli({"report", "--db", db_, "--prices", prices.toStdString(), "-o", "-"});
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, "no price for") && contains(r.err, "H100-SXM5-80GB"),
             qPrintable(describe(r)));
    QVERIFY(tessera::test::writeFile(prices, "gpu_hour: {L4: -1}\n"));
    r = runCli({"report", "--db", db_, "--prices", prices.toStdString(), "-o", "-"});
    QCOMPARE(r.code, 1);
    QVERIFY(contains(r.err, "prices.yaml:1:"));
    r = runCli({"report", "--db", db_, "--prices", path("no-such-prices.yaml"), "-o", "-"});
    QCOMPARE(r.code, 2);  // a missing file is a usage error
    QVERIFY(contains(r.err, "no-such-prices.yaml"));
    // A file that is not a Tessera database is refused, and left as it was.
    const QString foreign = dir_.filePath("foreign.db");
    QVERIFY(tessera::test::writeFile(foreign, "not a database at all"));
    r = runCli({"report", "--db", foreign.toStdString(), "-o", "-"});
    QCOMPARE(r.code, 1);
    QCOMPARE(tessera::test::readFile(foreign), std::string("not a database at all"));
  }
};

QTEST_MAIN(TestCliReport)
#include "tst_cli_report.moc"
