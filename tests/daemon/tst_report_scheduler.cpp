// tesserad's scheduled reports without a daemon: which periods are due (calendar days, weeks
// from Monday and months in a time zone, a 23-hour day across the change to summer time), the
// file names, the scheduler writing the missing files once and catching up after a restart,
// html/pdf through a render command, and the `reports` configuration with its errors.
#include <QDateTime>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/config.h"
#include "daemon/report_scheduler.h"
#include "report/report_json.h"

// Lets QCOMPARE print std::string values when a comparison fails.
template <>
inline char* QTest::toString<std::string>(const std::string& s) {
  return qstrdup(s.c_str());
}

using namespace tessera;
namespace fs = std::filesystem;

namespace {

// A time as people write it, in `zone`.
Seconds at(const char* text, const char* zone = "UTC") {
  auto t = parseReportTime(text, zone, 0);
  if (!t) qFatal("%s", t.error().str().c_str());
  return *t;
}

ReportSchedule schedule(const char* name, ReportPeriod every, const char* zone,
                        std::vector<std::string> formats = {"json"}) {
  ReportSchedule s;
  s.name = name;
  s.every = every;
  s.timeZone = zone;
  s.formats = std::move(formats);
  return s;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> filesIn(const QString& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.toStdString()))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A stand-in for the backend: a report that only says which period it covers, and a count.
struct FakeBackend {
  int calls = 0;
  Seconds now = 0;
  ReportScheduler::Compute compute() {
    return [this](const ReportRequest& r, const std::function<bool()>&) {
      ++calls;
      Report report;
      report.header.cluster = "test";
      report.header.from = *r.from;
      report.header.to = *r.to;
      report.header.timeZone = r.timeZone;
      report.header.groupBy = r.groupBy;
      return std::variant<Report, ApiError>(std::move(report));
    };
  }
  ReportScheduler::Clock clock() {
    return [this] { return now; };
  }
};

const Logger& quietLog() {
  static const Logger log(false, Logger::Level::Error);
  return log;
}

Status loadConfigText(const QTemporaryDir& dir, const std::string& text, TesseradConfig& c) {
  const std::string path = dir.filePath("tesserad.yaml").toStdString();
  std::ofstream(path) << text;
  return loadTesseradConfig(path, c);
}

}  // namespace

class TstReportScheduler : public QObject {
  Q_OBJECT

 private slots:
  void dailyPeriodsEndingInTheWindow() {
    const auto s = schedule("d", ReportPeriod::Day, "UTC");
    const auto due = duePeriods(at("2026-03-01T12:00"), at("2026-03-04"), s);
    QCOMPARE(due.size(), size_t{3});  // a period ending exactly at now is due
    QCOMPARE(due[0].from, at("2026-03-01"));
    QCOMPARE(due[0].to, at("2026-03-02"));
    QCOMPARE(due[2].to, at("2026-03-04"));
    // Nothing before the next boundary, nothing when the clock has not moved or went back.
    QVERIFY(duePeriods(at("2026-03-04"), at("2026-03-04T23:59"), s).empty());
    QVERIFY(duePeriods(at("2026-03-04"), at("2026-03-04"), s).empty());
    QVERIFY(duePeriods(at("2026-03-04"), at("2026-03-01"), s).empty());
    // Checked exactly at a boundary: that period was already due at the last check.
    QCOMPARE(duePeriods(at("2026-03-02"), at("2026-03-03"), s).size(), size_t{1});
  }

  void berlinDaysFollowDaylightSaving() {
    const auto s = schedule("d", ReportPeriod::Day, "Europe/Berlin");
    // 2026-03-29: clocks go from 02:00 CET to 03:00 CEST, the day has 23 hours.
    const auto due = duePeriods(at("2026-03-29T00:30", "Europe/Berlin"),
                                at("2026-03-30T00:00", "Europe/Berlin"), s);
    QCOMPARE(due.size(), size_t{1});
    QCOMPARE(due[0].from, at("2026-03-28T23:00:00Z"));
    QCOMPARE(due[0].to, at("2026-03-29T22:00:00Z"));
    QCOMPARE(due[0].to - due[0].from, Seconds{23 * 3600});
    QCOMPARE(reportStem("out", s, due[0].from), std::string("out/d-2026-03-29"));
    // The day before is 24 hours, and 00:00 local is 23:00 UTC the day before.
    const auto before = duePeriods(at("2026-03-28T12:00", "Europe/Berlin"),
                                   at("2026-03-29T00:00", "Europe/Berlin"), s);
    QCOMPARE(before.size(), size_t{1});
    QCOMPARE(before[0].to - before[0].from, Seconds{24 * 3600});
    QCOMPARE(reportStem("out", s, before[0].from), std::string("out/d-2026-03-28"));
  }

  void weeksStartOnMonday() {
    const auto s = schedule("w", ReportPeriod::Week, "Europe/Berlin");
    // From Wednesday 2026-03-04 to Tuesday 2026-03-31: the weeks that ended on the Mondays
    // 03-09, 03-16, 03-23 and 03-30; the last spans the change to summer time.
    const auto due = duePeriods(at("2026-03-04T10:00", "Europe/Berlin"),
                                at("2026-03-31T10:00", "Europe/Berlin"), s);
    QCOMPARE(due.size(), size_t{4});
    QCOMPARE(due[0].from, at("2026-03-02", "Europe/Berlin"));  // a Monday
    QCOMPARE(due[0].to, at("2026-03-09", "Europe/Berlin"));
    QCOMPARE(due[0].to - due[0].from, Seconds{7 * 86400});
    QCOMPARE(due[3].from, at("2026-03-23", "Europe/Berlin"));
    QCOMPARE(due[3].to - due[3].from, Seconds{7 * 86400 - 3600});
    for (const DuePeriod& p : due)
      QCOMPARE(QDateTime::fromSecsSinceEpoch(p.from, QTimeZone("Europe/Berlin")).date().dayOfWeek(),
               1);
  }

  void monthsAndSeveralSchedules() {
    const std::vector<ReportSchedule> all{schedule("m", ReportPeriod::Month, "UTC"),
                                          schedule("d", ReportPeriod::Day, "UTC")};
    const auto due = duePeriods(at("2026-02-14"), at("2026-04-01T06:00"), all);
    std::vector<DuePeriod> months, days;
    for (const DuePeriod& p : due) (p.schedule == 0 ? months : days).push_back(p);
    QCOMPARE(months.size(), size_t{2});
    QCOMPARE(months[0].from, at("2026-02-01"));
    QCOMPARE(months[0].to, at("2026-03-01"));
    QCOMPARE(months[1].to, at("2026-04-01"));
    QCOMPARE(days.size(), size_t{14 + 31 + 1});  // Feb 14..28, all of March
  }

  void catchUpIsBounded() {
    const auto s = schedule("d", ReportPeriod::Day, "UTC");
    const auto due = duePeriods(at("2020-01-01"), at("2026-01-01"), s);
    QCOMPARE(due.size(), kMaxCatchUpPeriods);
    QCOMPARE(due.back().to, at("2026-01-01"));  // the newest are kept
  }

  void writesMissingFilesOnceAndNamesThemByPeriod() {
    QTemporaryDir dir;
    FakeBackend fake;
    fake.now = at("2026-03-28T12:00", "Europe/Berlin");
    ReportsConfig config;
    config.dir = dir.path().toStdString();
    config.schedules = {schedule("teams", ReportPeriod::Day, "Europe/Berlin", {"csv", "json"})};
    ReportScheduler scheduler(config, fake.compute(), fake.clock(), quietLog());
    QCOMPARE(scheduler.runOnce(), size_t{0});  // the first start writes nothing old
    QCOMPARE(fake.calls, 0);
    fake.now = at("2026-03-30T01:00", "Europe/Berlin");
    QCOMPARE(scheduler.runOnce(), size_t{2});  // 03-28 and the 23-hour 03-29
    QCOMPARE(fake.calls, 2);
    QCOMPARE(scheduler.runOnce(), size_t{0});
    QCOMPARE(fake.calls, 2);

    const std::string stem = dir.filePath("teams-2026-03-29").toStdString();
    auto report = loadReportJsonFile(stem + ".json");
    QVERIFY2(report, report ? "" : report.error().str().c_str());
    QCOMPARE(report->header.from, at("2026-03-29", "Europe/Berlin"));
    QCOMPARE(report->header.to, at("2026-03-30", "Europe/Berlin"));
    QCOMPARE(report->header.timeZone, std::string("Europe/Berlin"));
    for (const char* table : {"summary", "usage", "notes"})
      QVERIFY2(fs::exists(stem + "-" + table + ".csv"), table);
    QVERIFY(readAll(stem + "-summary.csv").starts_with("cluster,"));
    // No working files are left behind.
    for (const std::string& name : filesIn(dir.path())) QVERIFY2(name[0] != '.', name.c_str());
  }

  void restartWritesTheMissedPeriodsOnce() {
    QTemporaryDir dir;
    FakeBackend fake;
    ReportsConfig config;
    config.dir = dir.path().toStdString();
    config.schedules = {schedule("daily", ReportPeriod::Day, "UTC", {"csv", "json"})};
    fake.now = at("2026-05-01");
    {
      ReportScheduler first(config, fake.compute(), fake.clock(), quietLog());
      first.runOnce();
      fake.now = at("2026-05-02T00:10");
      QCOMPARE(first.runOnce(), size_t{1});
    }
    // Down for three days; the JSON of 05-01 was lost meanwhile, its CSV set is whole.
    fs::remove(dir.filePath("daily-2026-05-01.json").toStdString());
    fake.now = at("2026-05-05T08:00");
    fake.calls = 0;
    ReportScheduler second(config, fake.compute(), fake.clock(), quietLog());
    QCOMPARE(second.runOnce(), size_t{4});  // 05-01 (its JSON only) to 05-04
    QCOMPARE(fake.calls, 4);
    for (const char* day : {"01", "02", "03", "04"}) {
      const std::string stem = dir.filePath("daily-2026-05-").toStdString() + day;
      QVERIFY2(fs::exists(stem + ".json"), day);
      QVERIFY2(fs::exists(stem + "-notes.csv"), day);
    }
    QVERIFY(!fs::exists(dir.filePath("daily-2026-05-05.json").toStdString()));
    QCOMPARE(second.runOnce(), size_t{0});
    QCOMPARE(newestWrittenPeriod(config.dir, config.schedules[0]), at("2026-05-04"));
  }

  void renderCommandMakesHtmlAndPdf() {
    QTemporaryDir dir;
    FakeBackend fake;
    ReportsConfig config;
    config.dir = dir.path().toStdString();
    // Stands in for `tessera report --input FILE.json --format F -o OUT`: checks its
    // arguments and copies the JSON to OUT.
    config.renderCommand = {"/bin/sh", "-c",
                            "test \"$1 $2 $4 $6\" = \"report --input --format -o\" && "
                            "test -f \"$3\" && test \"$QT_QPA_PLATFORM\" != \"\" && "
                            "{ echo \"$5\"; cat \"$3\"; } > \"$7\"",
                            "render"};
    config.schedules = {schedule("r", ReportPeriod::Day, "UTC", {"html", "pdf"})};
    ReportScheduler scheduler(config, fake.compute(), fake.clock(), quietLog());
    auto files = scheduler.produce(config.schedules[0], at("2026-01-01"), at("2026-01-02"));
    QVERIFY2(files, files ? "" : files.error().str().c_str());
    QCOMPARE(files->size(), size_t{2});
    const std::string html = readAll(dir.filePath("r-2026-01-01.html").toStdString());
    QVERIFY2(html.starts_with("html\n{"), html.c_str());
    QVERIFY(readAll(dir.filePath("r-2026-01-01.pdf").toStdString()).starts_with("pdf\n"));
    QVERIFY(html.find(kReportJsonSchema) != std::string::npos);
    // The temporary JSON it rendered from is gone.
    QCOMPARE(filesIn(dir.path()),
             (std::vector<std::string>{"r-2026-01-01.html", "r-2026-01-01.pdf"}));
  }

  void aFailingRenderIsAnErrorAndLeavesNoFile() {
    QTemporaryDir dir;
    FakeBackend fake;
    ReportsConfig config;
    config.dir = dir.path().toStdString();
    config.renderCommand = {"/bin/sh", "-c", "echo 'no fonts' >&2; echo partial > \"$7\"; exit 3",
                            "render"};
    config.schedules = {schedule("r", ReportPeriod::Day, "UTC", {"json", "pdf"})};
    ReportScheduler scheduler(config, fake.compute(), fake.clock(), quietLog());
    auto files = scheduler.produce(config.schedules[0], at("2026-01-01"), at("2026-01-02"));
    QVERIFY(!files);
    QVERIFY2(files.error().message.find("exit code 3") != std::string::npos,
             files.error().message.c_str());
    QVERIFY2(files.error().message.find("no fonts") != std::string::npos,
             files.error().message.c_str());
    QCOMPARE(filesIn(dir.path()), std::vector<std::string>{"r-2026-01-01.json"});
    // A program that does not exist.
    config.renderCommand = {dir.filePath("no-such-tessera").toStdString()};
    ReportScheduler missing(config, fake.compute(), fake.clock(), quietLog());
    QVERIFY(!missing.produce(config.schedules[0], at("2026-01-01"), at("2026-01-02")));
  }

  void aFailedReportIsNotWritten() {
    QTemporaryDir dir;
    ReportsConfig config;
    config.dir = dir.path().toStdString();
    config.schedules = {schedule("x", ReportPeriod::Day, "UTC", {"json"})};
    auto refuse = [](const ReportRequest&, const std::function<bool()>&) {
      return std::variant<Report, ApiError>(ApiError{ErrorKind::Unavailable, "database gone"});
    };
    Seconds now = at("2026-01-01T12:00");
    ReportScheduler scheduler(
        config, refuse, [&now] { return now; }, quietLog());
    scheduler.runOnce();
    now = at("2026-01-02T12:00");
    QCOMPARE(scheduler.runOnce(), size_t{0});
    QVERIFY(filesIn(dir.path()).empty());
  }

  void theSchedulerThreadStopsPromptly() {
    QTemporaryDir dir;
    FakeBackend fake;
    ReportsConfig config;
    config.dir = dir.path().toStdString();
    config.schedules = {schedule("t", ReportPeriod::Day, "UTC", {"json"})};
    ReportScheduler scheduler(config, fake.compute(), fake.clock(), quietLog());
    scheduler.start(std::chrono::milliseconds(10));
    QTest::qWait(50);
    scheduler.stop();
    scheduler.stop();  // idempotent
  }

  void configReadsTheReportsSection() {
    QTemporaryDir dir;
    const std::string prices = dir.filePath("prices.yaml").toStdString();
    std::ofstream(prices) << "currency: EUR\ndefault_gpu_hour: 2.5\n";
    TesseradConfig c;
    const Status st = loadConfigText(dir,
                                     "reports:\n"
                                     "  dir: /tmp/reports\n"
                                     "  render_command: [/usr/bin/xvfb-run, /usr/bin/tessera]\n"
                                     "  schedules:\n"
                                     "    - {name: teams-daily, every: daily, group_by: team,\n"
                                     "       formats: [csv, json, html, pdf],\n"
                                     "       time_zone: Europe/Berlin, prices: " +
                                         prices +
                                         "}\n"
                                         "    - name: pools-weekly\n"
                                         "      every: weekly\n"
                                         "      group_by: pool\n"
                                         "      formats: json\n"
                                         "      teams: [vision, nlp]\n",
                                     c);
    QVERIFY2(st, st ? "" : st.error().str().c_str());
    QCOMPARE(c.reports.dir, std::string("/tmp/reports"));
    QCOMPARE(c.reports.renderCommand.size(), size_t{2});
    QCOMPARE(c.reports.schedules.size(), size_t{2});
    const ReportSchedule& daily = c.reports.schedules[0];
    QCOMPARE(daily.name, std::string("teams-daily"));
    QCOMPARE(daily.formats.size(), size_t{4});
    QCOMPARE(daily.timeZone, std::string("Europe/Berlin"));
    QVERIFY(daily.prices);
    QCOMPARE(daily.prices->currency, std::string("EUR"));
    const ReportSchedule& weekly = c.reports.schedules[1];
    QVERIFY(weekly.every == ReportPeriod::Week);
    QVERIFY(weekly.groupBy == ReportGroup::Pool);
    QCOMPARE(weekly.formats, std::vector<std::string>{"json"});
    QCOMPARE(weekly.teams.size(), size_t{2});
    QVERIFY(validateTesseradConfig(c));
    TesseradConfig noDir;
    noDir.reports.schedules = c.reports.schedules;
    QVERIFY(!validateTesseradConfig(noDir));
  }

  void configErrorsNameFileLineAndKey_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expected");
    const QString head = "reports:\n  dir: out\n  schedules:\n    - name: r\n";
    QTest::newRow("format") << head + "      formats: [csv, docx]\n"
                            << ":5:16: reports.schedules[0].formats: unknown format 'docx'";
    QTest::newRow("zone") << head + "      formats: [csv]\n      time_zone: Mars/Olympus\n"
                          << ":6:18: reports.schedules[0].time_zone: unknown time zone";
    QTest::newRow("group") << head + "      formats: [csv]\n      group_by: planet\n"
                           << ":6:17: reports.schedules[0].group_by: unknown group 'planet'";
    QTest::newRow("prices") << head + "      formats: [csv]\n      prices: /no/such/prices.yaml\n"
                            << ":6:15: reports.schedules[0].prices: price table:";
    QTest::newRow("every") << head + "      formats: [csv]\n      every: hourly\n"
                           << ":6:14: reports.schedules[0].every: 'hourly'";
    QTest::newRow("no formats") << head << ":4:7: reports.schedules[0].formats: is required";
    QTest::newRow("unknown key") << head + "      formats: [csv]\n      colour: red\n"
                                 << ":6:15: reports.schedules[0].colour: unknown key 'colour'";
    QTest::newRow("twice") << head + "      formats: [csv]\n    - {name: r, formats: [json]}\n"
                           << ":6:7: reports.schedules[1].name: 'r' is used by two schedules";
    QTest::newRow("name") << "reports:\n  schedules:\n    - {name: ../x, formats: [csv]}\n"
                          << ":3:14: reports.schedules[0].name: '../x'";
    QTest::newRow("section key") << "reports:\n  directory: out\n"
                                 << ":2:3: reports.directory: unknown key 'reports.directory'";
  }

  void configErrorsNameFileLineAndKey() {
    QFETCH(QString, yaml);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    TesseradConfig c;
    const Status st = loadConfigText(dir, yaml.toStdString(), c);
    QVERIFY(!st);
    const std::string text = st.error().str();
    QVERIFY2(text.starts_with(dir.filePath("tesserad.yaml").toStdString()), text.c_str());
    QVERIFY2(text.find(expected.toStdString()) != std::string::npos, text.c_str());
  }

  void renderArgumentsFollowTheReportVerb() {
    QCOMPARE(renderArguments({"/usr/bin/tessera"}, "in.json", "pdf", "out.pdf"),
             (std::vector<std::string>{"/usr/bin/tessera", "report", "--input", "in.json",
                                       "--format", "pdf", "-o", "out.pdf"}));
  }
};

QTEST_GUILESS_MAIN(TstReportScheduler)
#include "tst_report_scheduler.moc"
