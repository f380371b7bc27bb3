// The report writers: CSV (stable columns, RFC 4180 quoting, values read back), JSON (exact
// round trip, errors naming the field), the HTML document (tables, embedded charts, row caps,
// repeating table headers) and the PDF (its text read back with pdftotext), and that a failed
// write names the path and leaves no partial file.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QtTest>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <locale>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/report_csv.h"
#include "report/report_json.h"
#include "report_document.h"
#include "report_fixture.h"

using namespace tessera;
using tessera::test::cell;
using tessera::test::kAwkwardTeam;
using tessera::test::kHtmlTeam;
using tessera::test::manyJobs;
using tessera::test::near;
using tessera::test::Records;
using tessera::test::sampleReport;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string csvOf(const Report& r, const char* table) {
  std::ostringstream out;
  auto status = writeReportCsvTable(out, r, table);
  if (!status.ok()) qWarning("%s", status.error().str().c_str());
  return out.str();
}

std::string headerLine(const Report& r, const char* table) {
  const std::string text = csvOf(r, table);
  return text.substr(0, text.find("\r\n"));
}

std::vector<std::pair<std::string, double UsageFigures::*>> figureColumns() {
  return {{"gpu_hours_allocated", &UsageFigures::allocated},
          {"gpu_hours_busy", &UsageFigures::busy},
          {"gpu_hours_effective", &UsageFigures::effective},
          {"gpu_hours_measured", &UsageFigures::measured},
          {"gpu_hours_idle", &UsageFigures::idle},
          {"gpu_hours_whole_gpu", &UsageFigures::wholeGpu},
          {"gpu_hours_mig", &UsageFigures::mig},
          {"gpu_hours_fractional", &UsageFigures::fractional},
          {"gpu_hours_mps", &UsageFigures::mps},
          {"mig_slice_hours", &UsageFigures::migSliceHours},
          {"gpu_hours_lost_to_preemption", &UsageFigures::gpuHoursLost}};
}

void checkFigures(const Records& t, size_t row, const UsageFigures& f) {
  for (const auto& [column, member] : figureColumns()) CHECK_NUM(t, row, column, f.*member);
  QCOMPARE(cell(t, row, "preemptions"), std::to_string(f.preemptions));
  QCOMPARE(cell(t, row, "jobs"), std::to_string(f.jobs));
  CHECK_NUM(t, row, "cost", *f.cost);
  CHECK_NUM(t, row, "idle_cost", *f.idleCost);
}

// A locale with a decimal comma and thousands grouping: the CSV must not notice it.
struct GermanPunct : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

QString pdfText(const QString& pdf) {
  QProcess p;
  p.start("pdftotext", {"-layout", pdf, "-"});
  if (!p.waitForFinished(60000) || p.exitCode() != 0) return {};
  // NFKC: the PDF's "fi" ligature glyphs come out as U+FB01.
  return QString::fromUtf8(p.readAllStandardOutput()).normalized(QString::NormalizationForm_KC);
}

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// TESSERA_REPORT_TEST_OUT=dir keeps a copy of the rendered files there, to look at.
void keep(const QString& file) {
  const QString dir = qEnvironmentVariable("TESSERA_REPORT_TEST_OUT");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  const QString target = dir + "/" + QFileInfo(file).fileName();
  QFile::remove(target);
  QFile::copy(file, target);
}

}  // namespace

class TestReportWriters : public QObject {
  Q_OBJECT

 private slots:
  void csvTableList();
  void csvColumnsAreStable();
  void csvRoundTrip();
  void csvNumbersIgnoreLocale();
  void csvBesideAFile();
  void jsonRoundTrip();
  void jsonErrors();
  void htmlFile();
  void htmlCapsLongTables();
  void tableHeadersRepeat();
  void pdfFile();
  void emptyAndSimulatedReports();
  void failedWritesLeaveNoFile();
};

void TestReportWriters::csvTableList() {
  const std::vector<std::string> withPrices = {"summary",  "usage", "mig",        "idle_jobs",
                                               "stranded", "waits", "chargeback", "fair_share",
                                               "series",   "notes"};
  QCOMPARE(reportCsvTables(sampleReport()), withPrices);
  auto without = withPrices;
  without.erase(std::find(without.begin(), without.end(), "chargeback"));
  QCOMPARE(reportCsvTables(sampleReport("")), without);

  std::ostringstream out;
  auto status = writeReportCsvTable(out, sampleReport(""), "chargeback");
  QVERIFY(!status.ok());
  QVERIFY(status.error().message.find("no price table") != std::string::npos);
  status = writeReportCsvTable(out, sampleReport(), "usage_by_team");
  QVERIFY(!status.ok());
  QVERIFY(status.error().message.find("summary, usage") != std::string::npos);
  QVERIFY(out.str().empty());
}

void TestReportWriters::csvColumnsAreStable() {
  // Changing any of these lines breaks whoever imports the files: update
  // docs/report-formats.md and say so in the release notes.
  const Report r = sampleReport();
  const std::string figures =
      "gpu_hours_allocated,gpu_hours_busy,gpu_hours_effective,gpu_hours_measured,gpu_hours_idle,"
      "gpu_hours_whole_gpu,gpu_hours_mig,gpu_hours_fractional,mig_slice_hours,preemptions,"
      "gpu_hours_lost_to_preemption,jobs";
  QCOMPARE(headerLine(r, "summary"),
           "cluster,source,from_utc,to_utc,from_seconds,to_seconds,wall_clock,time_zone,"
           "generated_at_utc,group_by,idle_threshold,idle_min_duration_seconds,currency,gpus,"
           "capacity_gpu_hours," +
               figures + ",cost,idle_cost,idle_jobs_total,series_step_seconds,gpu_hours_mps");
  QCOMPARE(headerLine(r, "usage"), "team," + figures + ",cost,idle_cost,gpu_hours_mps");
  QCOMPARE(headerLine(r, "mig"), "team,gpu_model,mig_profile,instance_hours,mig_slice_hours,cost");
  QCOMPARE(headerLine(r, "idle_jobs"),
           "job_id,team,gpus,gpu_hours_idle,idle_episodes,longest_idle_seconds,idle_cost");
  QCOMPARE(headerLine(r, "stranded"), "cause,gpu_hours_stranded,share_of_capacity");
  QCOMPARE(headerLine(r, "waits"),
           "priority_class,jobs_started,wait_p50_seconds,wait_p95_seconds,wait_p99_seconds,"
           "wait_max_seconds,wait_mean_seconds,jobs_waiting_at_end,longest_waiting_at_end_seconds");
  QCOMPARE(headerLine(r, "chargeback"),
           "team,department,gpu_hours_allocated,gpu_hours_idle,currency,cost,idle_cost,"
           "share_of_cost");
  QCOMPARE(headerLine(r, "fair_share"),
           "team,weight,gpu_hours,usage_share,deserved_share,usage_to_deserved_ratio");
  QCOMPARE(headerLine(r, "series"),
           "start_seconds,start_utc,capacity_gpus,allocated_gpus,busy_gpus,effective_gpus");
  QCOMPARE(headerLine(r, "notes"), "note");

  // Without prices: no cost columns; the key column is named by the group.
  Report plain = sampleReport("");
  plain.header.groupBy = ReportGroup::GpuModel;
  QCOMPARE(headerLine(plain, "usage"), "model," + figures + ",gpu_hours_mps");
  QCOMPARE(headerLine(plain, "mig"), "model,gpu_model,mig_profile,instance_hours,mig_slice_hours");
  QCOMPARE(headerLine(plain, "idle_jobs"),
           "job_id,team,gpus,gpu_hours_idle,idle_episodes,longest_idle_seconds");
  QVERIFY(headerLine(plain, "summary").find("cost") == std::string::npos);
  QCOMPARE(reportCsvColumns(plain, "fair_share").size(), size_t(6));
}

void TestReportWriters::csvRoundTrip() {
  QTemporaryDir tmp;
  const Report r = sampleReport();
  const std::string dir = tmp.filePath("csv/nested").toStdString();
  auto status = writeReportCsv(r, dir);
  QVERIFY2(status.ok(), status.ok() ? "" : status.error().str().c_str());
  std::vector<std::string> expectedFiles;
  for (const auto& t : reportCsvTables(r)) expectedFiles.push_back(t + ".csv");
  std::sort(expectedFiles.begin(), expectedFiles.end());
  QCOMPARE(filesIn(dir), expectedFiles);
  auto table = [&](const char* name) { return test::parseCsv(readAll(dir + "/" + name + ".csv")); };

  const Records summary = table("summary");
  QCOMPARE(summary.size(), size_t(2));
  QCOMPARE(cell(summary, 0, "cluster"), r.header.cluster);
  QCOMPARE(cell(summary, 0, "from_utc"), std::string("2025-11-01T12:26:40Z"));
  QCOMPARE(cell(summary, 0, "to_seconds"), std::to_string(r.header.to));
  QCOMPARE(cell(summary, 0, "group_by"), std::string("team"));
  QCOMPARE(cell(summary, 0, "currency"), std::string("EUR"));
  QCOMPARE(cell(summary, 0, "idle_min_duration_seconds"), std::string("1800"));
  CHECK_NUM(summary, 0, "capacity_gpu_hours", r.capacityGpuHours);
  checkFigures(summary, 0, r.total);

  const Records usage = table("usage");
  QCOMPARE(usage.size(), r.usage.size() + 1);
  for (size_t i = 0; i < r.usage.size(); ++i) {
    QCOMPARE(cell(usage, i, "team"), r.usage[i].key);
    checkFigures(usage, i, r.usage[i].figures);
  }
  QVERIFY(readAll(dir + "/usage.csv").find("\"beta, \"\"quoted\"\" team\"") != std::string::npos);

  const Records mig = table("mig");
  QCOMPARE(cell(mig, 0, "mig_profile"), std::string("3g.40gb"));
  CHECK_NUM(mig, 1, "instance_hours", 0.125);
  QCOMPARE(cell(mig, 1, "cost"), std::string());  // absent: empty

  const Records idle = table("idle_jobs");
  QCOMPARE(cell(idle, 0, "job_id"), std::string("1001"));
  QCOMPARE(cell(idle, 1, "team"), kAwkwardTeam);
  CHECK_NUM(idle, 1, "gpu_hours_idle", 1.0 / 3);
  QCOMPARE(cell(idle, 0, "longest_idle_seconds"), std::string("7500"));

  const Records stranded = table("stranded");
  QCOMPARE(cell(stranded, 0, "cause"), std::string("mig_layout"));
  CHECK_NUM(stranded, 1, "share_of_capacity", 3.25 / 1536);

  const Records waits = table("waits");
  CHECK_NUM(waits, 0, "wait_p95_seconds", 7200);
  CHECK_NUM(waits, 0, "wait_mean_seconds", 4100.25);
  QCOMPARE(cell(waits, 1, "jobs_started"), std::string("30"));

  const Records charge = table("chargeback");
  QCOMPARE(cell(charge, 1, "department"), std::string("ops, infra"));
  QCOMPARE(cell(charge, 1, "currency"), std::string("EUR"));
  CHECK_NUM(charge, 0, "cost", 2469.14);

  const Records fair = table("fair_share");
  CHECK_NUM(fair, 1, "usage_share", 0.0002);
  CHECK_NUM(fair, 0, "usage_to_deserved_ratio", 1.85);

  const Records series = table("series");
  QCOMPARE(series.size(), size_t(25));
  QCOMPARE(cell(series, 23, "start_seconds"), std::to_string(r.series[23].start));
  CHECK_NUM(series, 23, "allocated_gpus", r.series[23].allocated);

  const Records notes = table("notes");
  QCOMPARE(cell(notes, 1, "note"), r.notes[1]);  // the quoted line break survives
}

void TestReportWriters::csvNumbersIgnoreLocale() {
  QCOMPARE(csvNumber(0.1 + 0.2), std::string("0.3"));
  QCOMPARE(csvNumber(1234567.25), std::string("1234567.25"));
  QCOMPARE(csvNumber(-0.0), std::string("0"));
  QCOMPARE(csvNumber(24), std::string("24"));
  QCOMPARE(csvNumber(std::nan("")), std::string());
  QVERIFY(near(csvNumber(1.0 / 3), 1.0 / 3));

  std::ostringstream german;
  german.imbue(std::locale(std::locale::classic(), new GermanPunct));
  QVERIFY(writeReportCsvTable(german, sampleReport(), "usage").ok());
  QCOMPARE(german.str(), csvOf(sampleReport(), "usage"));
  QVERIFY(german.str().find("1234.5678901,") != std::string::npos);
}

void TestReportWriters::csvBesideAFile() {
  QTemporaryDir tmp;
  const std::string path = tmp.filePath("march.CSV").toStdString();
  QVERIFY(writeReportCsv(sampleReport(""), path).ok());
  const auto paths = reportCsvPaths(sampleReport(""), path);
  QCOMPARE(paths.front(), tmp.filePath("march-summary.csv").toStdString());
  QCOMPARE(filesIn(tmp.path().toStdString()).size(), paths.size());
  for (const auto& p : paths) QVERIFY2(fs::exists(p), p.c_str());
}

void TestReportWriters::jsonRoundTrip() {
  Report simulated = sampleReport("");
  simulated.header.wallClock = false;
  simulated.header.groupBy = ReportGroup::Node;
  simulated.header.from = 0;
  for (const Report& r : {sampleReport(), simulated}) {
    for (bool pretty : {true, false}) {
      const std::string text = reportToJson(r, pretty);
      QVERIFY(text.find("\"schema\":") != std::string::npos);
      QVERIFY(text.find("tessera.report/v1") != std::string::npos);
      auto back = reportFromJson(text, "report.json");
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
      test::compare(r, *back);
      if (QTest::currentTestFailed()) return;
      QCOMPARE(reportToJson(*back, pretty), text);
    }
  }
  QTemporaryDir tmp;
  const std::string file = tmp.filePath("r.json").toStdString();
  QVERIFY(writeReportJsonFile(sampleReport(), file).ok());
  auto loaded = loadReportJsonFile(file);
  QVERIFY(loaded.ok());
  test::compare(sampleReport(), *loaded);
}

void TestReportWriters::jsonErrors() {
  using nlohmann::json;
  const json good = json::parse(reportToJson(sampleReport()));
  auto errorOf = [](const json& j) {
    auto r = reportFromJson(j.dump(), "server:50051");
    return r.ok() ? std::string("accepted") : r.error().str();
  };
  auto expect = [](const std::string& error, const std::string& text) {
    QVERIFY2(error.find(text) != std::string::npos, (error + " lacks " + text).c_str());
  };

  json j = good;
  j["schema"] = "tessera.report/v2";
  expect(errorOf(j), "server:50051: schema: is 'tessera.report/v2'");
  j = good;
  j.erase("schema");
  expect(errorOf(j), "schema: missing field");
  j = good;
  j["usage"][1]["figures"].erase("busy");
  expect(errorOf(j), "server:50051: usage[1].figures.busy: missing field");
  j = good;
  j["header"]["gpus"] = "many";
  expect(errorOf(j), "header.gpus: expected an integer, got string");
  j = good;
  j["series"][3]["start"] = 1.5;
  expect(errorOf(j), "series[3].start: expected an integer, got a number with a fraction");
  j = good;
  j["idle_jobs"][0]["job"] = -4;
  expect(errorOf(j), "idle_jobs[0].job: expected a non-negative integer");
  j = good;
  j["header"]["group_by"] = "galaxy";
  expect(errorOf(j), "header.group_by: unknown group 'galaxy'");
  j = good;
  j["notes"][1] = 7;
  expect(errorOf(j), "notes[1]: expected a string");
  j = good;
  j["waits"] = json::object();
  expect(errorOf(j), "waits: expected an array, got object");
  j = good;
  j["future_field"] = {1, 2, 3};  // v1 may grow: unknown fields are fine
  QCOMPARE(errorOf(j), std::string("accepted"));
  // Reports written before MPS shares have no "mps" figure: it reads as none; a wrong type is
  // still an error.
  j = good;
  j["total"].erase("mps");
  QCOMPARE(errorOf(j), std::string("accepted"));
  QCOMPARE(reportFromJson(j.dump(), "old.json")->total.mps, 0.0);
  j["usage"][0]["figures"]["mps"] = "some";
  expect(errorOf(j), "usage[0].figures.mps: expected a number, got string");

  auto syntax = reportFromJson("{\n  \"schema\": ,\n}", "r.json");
  QVERIFY(!syntax.ok());
  expect(syntax.error().str(), "r.json:2:");
  expect(syntax.error().str(), "not valid JSON");
  auto array = reportFromJson("[]", "r.json");
  QVERIFY(!array.ok());
  expect(array.error().str(), "expected a JSON object");
  auto missing = loadReportJsonFile("/nonexistent/report.json");
  QVERIFY(!missing.ok());
  expect(missing.error().str(), "/nonexistent/report.json");
}

void TestReportWriters::htmlFile() {
  QTemporaryDir tmp;
  const std::string path = tmp.filePath("report.html").toStdString();
  auto status = writeReportHtml(sampleReport(), path);
  QVERIFY2(status.ok(), status.ok() ? "" : status.error().str().c_str());
  keep(QString::fromStdString(path));
  const QString html = QString::fromStdString(readAll(path));
  for (const char* title :
       {"Summary", "Usage by team", "MIG instances", "Idle jobs", "Stranded capacity",
        "Queue waits", "Chargeback", "Fair share", "Notes", "atlas-prod"}) {
    QVERIFY2(html.contains(title), title);
  }
  QVERIFY(html.contains("beta, &quot;quoted&quot; team"));
  QVERIFY(html.contains("gamma&lt;&amp;&gt;"));  // escaped, not markup
  QVERIFY(html.contains("<thead>"));
  QCOMPARE(html.count("src=\"data:image/png;base64,"), 3);  // series, usage, stranded
  QVERIFY(html.contains("1h 05m"));                         // the p50 wait of "high"
  QVERIFY(html.contains("1,234.6"));                        // alpha's allocated GPU-hours
  QVERIFY(!html.contains("Showing the first"));

  // Without prices: no chargeback section, no cost column.
  const QString plain = reportHtml(sampleReport(""), ReportChartImages::None);
  QVERIFY(!plain.contains("Chargeback"));
  QVERIFY(!plain.contains("Cost ("));
  QVERIFY(!plain.contains("<img"));
}

void TestReportWriters::htmlCapsLongTables() {
  const QString html = reportHtml(manyJobs(620), ReportChartImages::None);
  QVERIFY(html.contains("Usage by job"));
  QVERIFY(html.contains("Showing the first 500 of 620 rows; the CSV has all."));
  QVERIFY(html.contains(">100499<"));
  QVERIFY(!html.contains(">100500<"));
  std::ostringstream csv;
  QVERIFY(writeReportCsvTable(csv, manyJobs(620), "usage").ok());
  QCOMPARE(test::parseCsv(csv.str()).size(), size_t(621));  // the CSV never cuts
}

void TestReportWriters::tableHeadersRepeat() {
  auto doc = reportTextDocument(sampleReport());
  int tables = 0;
  for (QTextFrame* frame : doc->rootFrame()->childFrames()) {
    auto* table = qobject_cast<QTextTable*>(frame);
    if (table == nullptr || table->format().headerRowCount() == 0) continue;
    QCOMPARE(table->format().headerRowCount(), 1);
    ++tables;
  }
  QVERIFY2(tables >= 8, qPrintable(QString::number(tables)));  // summary + 7 data tables
  for (const char* chart : {"series", "usage", "stranded"}) {
    QVariant image = doc->resource(QTextDocument::ImageResource, reportChartUrl(chart));
    QVERIFY2(image.isValid(), chart);
  }
}

void TestReportWriters::pdfFile() {
  if (QStandardPaths::findExecutable("pdftotext").isEmpty()) {
    QFAIL("pdftotext is missing: install poppler-utils (installer/bootstrap-debian12.sh)");
  }
  QTemporaryDir tmp;
  const QString path = tmp.filePath("report.pdf");
  auto status = writeReportPdf(sampleReport(), path.toStdString());
  QVERIFY2(status.ok(), status.ok() ? "" : status.error().str().c_str());
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  QCOMPARE(file.read(5), QByteArray("%PDF-"));
  keep(path);
  const QString text = pdfText(path);
  QVERIFY2(!text.isEmpty(), "pdftotext failed");
  for (const char* expected :
       {"atlas-prod", "alpha", "gamma<&>", "Usage by team", "MIG instances", "Idle jobs",
        "Stranded capacity", "Queue waits", "Chargeback", "Fair share", "Notes", "1,234.6",
        "2,469.14", "1h 05m", "1d 04h", "3g.40gb", "ops, infra", "MIG layout"}) {
    QVERIFY2(text.contains(expected), expected);
  }
  QVERIFY(text.contains(QString::fromStdString(kAwkwardTeam)));

  // A long table goes over several pages and its header row repeats on each.
  const QString longPath = tmp.filePath("long.pdf");
  QVERIFY(writeReportPdf(manyJobs(620), longPath.toStdString()).ok());
  keep(longPath);
  const QStringList pages = pdfText(longPath).split('\f', Qt::SkipEmptyParts);
  QVERIFY2(pages.size() > 5, qPrintable(QString::number(pages.size())));
  int pagesWithHeader = 0;
  for (const QString& page : pages) pagesWithHeader += page.contains("Allocated") ? 1 : 0;
  QVERIFY2(pagesWithHeader >= pages.size() - 3, qPrintable(QString::number(pagesWithHeader)));
  QVERIFY(pages.join("").contains("Showing the first 500 of 620 rows"));
}

void TestReportWriters::emptyAndSimulatedReports() {
  QTemporaryDir tmp;
  Report empty;
  empty.header.cluster = "empty-cluster";
  const QString html = reportHtml(empty);
  QVERIFY(html.contains("No GPUs were allocated in this period."));
  QVERIFY(!html.contains("<img"));  // nothing to chart
  QVERIFY(writeReportPdf(empty, tmp.filePath("empty.pdf").toStdString()).ok());
  QVERIFY(writeReportCsv(empty, tmp.filePath("empty").toStdString()).ok());
  QVERIFY(reportFromJson(reportToJson(empty), "empty").ok());

  Report simulated = sampleReport("");
  simulated.header.wallClock = false;
  simulated.header.from = 0;
  simulated.header.to = 86400;
  for (size_t i = 0; i < simulated.series.size(); ++i)
    simulated.series[i].start = Seconds(i) * 3600;
  const QString path = tmp.filePath("simulated.pdf");
  QVERIFY(writeReportPdf(simulated, path.toStdString()).ok());
  QVERIFY(pdfText(path).contains("simulated time"));
  std::ostringstream csv;
  QVERIFY(writeReportCsvTable(csv, simulated, "series").ok());
  const Records series = test::parseCsv(csv.str());
  QCOMPARE(cell(series, 1, "start_seconds"), std::string("3600"));
  QCOMPARE(cell(series, 1, "start_utc"), std::string());  // no calendar in simulated time
}

void TestReportWriters::failedWritesLeaveNoFile() {
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString();
  { std::ofstream(dir + "/plain-file") << "x"; }
  auto expectError = [](const Status& s, const std::string& path) {
    QVERIFY2(!s.ok(), path.c_str());
    QVERIFY2(s.error().str().find(path) != std::string::npos, s.error().str().c_str());
  };
  // A directory under a regular file cannot be made, even by root.
  const std::string underFile = dir + "/plain-file/csv";
  expectError(writeReportCsv(sampleReport(), underFile), underFile);
  expectError(writeReportCsv(sampleReport(), dir + "/plain-file"), dir + "/plain-file");
  const std::string html = dir + "/plain-file/r.html";
  expectError(writeReportHtml(sampleReport(), html), html);
  const std::string pdf = dir + "/missing/r.pdf";
  expectError(writeReportPdf(sampleReport(), pdf), pdf);
  const std::string json = dir + "/a-directory";
  fs::create_directory(json);
  expectError(writeReportJsonFile(sampleReport(), json), json);

  // A write that fails half way keeps the old file and leaves no temporary one.
  const std::string kept = dir + "/kept.csv";
  { std::ofstream(kept) << "old"; }
  auto status = writeFileAtomically(kept, [](std::ostream& out) {
    out << "half a tab";
    out.setstate(std::ios::badbit);  // as a full disk would
  });
  expectError(status, kept);
  QCOMPARE(readAll(kept), std::string("old"));
  QCOMPARE(filesIn(dir), (std::vector<std::string>{"a-directory", "kept.csv", "plain-file"}));
  QVERIFY(fs::is_empty(json));
}

QTEST_MAIN(TestReportWriters)
#include "tst_report_writers.moc"
