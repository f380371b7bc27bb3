// Metric time series in the store: samples round-trip and survive reopening, same-time samples
// replace, invalid names and values are refused whole, minute and hour rollups hold the right
// count/sum/min/max and only of buckets that have ended, compaction is idempotent and rolls late
// samples up again, retention deletes old rows of each table but nothing newer or not rolled up,
// Auto picks raw, 1m or 1h by retention and point budget, samples written in a caller's failed
// transaction leave nothing, and the series names.
#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/metric_store.h"

using namespace tessera;

namespace {

// An hour boundary in unix time (2023-11-14), so the bucket arithmetic below stays readable.
constexpr int64_t T0 = 1699999200;
static_assert(T0 % 3600 == 0);

struct Bucket {
  std::string series;
  int64_t time = 0;
  int64_t count = 0;
  double sum = 0, min = 0, max = 0;
};

// Rows as text, so that a failed comparison shows them. Time relative to T0.
QString describe(const std::vector<Bucket>& rows) {
  QStringList out;
  for (const Bucket& b : rows)
    out << QStringLiteral("%1@T0%2%3 n=%4 sum=%5 min=%6 max=%7")
               .arg(QString::fromStdString(b.series),
                    b.time >= T0 ? QStringLiteral("+") : QString())
               .arg(b.time - T0)
               .arg(b.count)
               .arg(b.sum, 0, 'g', 17)
               .arg(b.min, 0, 'g', 17)
               .arg(b.max, 0, 'g', 17);
  return out.join(QStringLiteral("; "));
}

// The rows of a rollup table; a failure shows up as a row that matches nothing.
std::vector<Bucket> buckets(Database& db, const std::string& table) {
  auto q = db.prepare("SELECT series, time, count, sum, min, max FROM " + table +
                      " ORDER BY series, time");
  if (!q) return {{"<error: " + q.error().message + ">"}};
  std::vector<Bucket> out;
  for (auto row = q->step(); row.ok() && *row; row = q->step())
    out.push_back({q->textAt(0), q->int64At(1), q->int64At(2), q->doubleAt(3), q->doubleAt(4),
                   q->doubleAt(5)});
  return out;
}

// One integer from SQL; -1 when the query fails, which no count here equals.
int64_t scalar(Database& db, const std::string& sql) {
  auto q = db.prepare(sql);
  if (!q) return -1;
  auto row = q->step();
  return row.ok() && *row ? q->int64At(0) : -1;
}

QString dump(Database& db) {
  return describe(buckets(db, "metric_minute")) + " | " + describe(buckets(db, "metric_hour")) +
         " | raw " + QString::number(scalar(db, "SELECT count(*) FROM metric_raw"));
}

}  // namespace

class TstMetricStore : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  int opened_ = 0;

  // A fresh database file per test.
  Database freshDb() {
    auto db = Database::open(dir_.filePath(QString("m%1.db").arg(++opened_)).toStdString());
    if (!db) qFatal("cannot open the test database: %s", db.error().str().c_str());
    return std::move(db).value();
  }

 private slots:
  void resolutionNames() {
    for (auto r : {MetricResolution::Auto, MetricResolution::Raw, MetricResolution::Minute,
                   MetricResolution::Hour})
      QCOMPARE(parseMetricResolution(metricResolutionName(r)), std::optional(r));
    QCOMPARE(std::string(metricResolutionName(MetricResolution::Minute)), std::string("1m"));
    QCOMPARE(std::string(metricResolutionName(MetricResolution::Hour)), std::string("1h"));
    QVERIFY(!parseMetricResolution("5m"));
    QVERIFY(!parseMetricResolution("Raw"));
    QVERIFY(!parseMetricResolution(""));
  }

  void samplesRoundTripAndSurviveReopening() {
    const std::string path = dir_.filePath("durable.db").toStdString();
    {
      auto db = Database::open(path);
      QVERIFY(db.ok());
      MetricStore m(*db);
      QVERIFY(m.record(T0, {{"gpu_util", 0.5}, {"jobs_pending", 12}}).ok());
      QVERIFY(m.record(T0 + 10, {{"gpu_util", 0.75}}).ok());
      auto s = m.query("gpu_util", T0, T0 + 20, MetricResolution::Raw);
      QVERIFY2(s.ok(), s.ok() ? "" : s.error().str().c_str());
      QCOMPARE(s->name, std::string("gpu_util"));
      QCOMPARE(s->resolution, MetricResolution::Raw);
      QCOMPARE(s->points.size(), size_t{2});
      QCOMPARE(s->points[0].time, T0);
      QCOMPARE(s->points[0].value, 0.5);
      QCOMPARE(s->points[0].min, 0.5);
      QCOMPARE(s->points[0].max, 0.5);
      QCOMPARE(s->points[0].count, int64_t{1});
      QCOMPARE(s->points[1].value, 0.75);
      QCOMPARE(m.query("gpu_util", T0, T0 + 10, MetricResolution::Raw)->points.size(),
               size_t{1});  // `to` is exclusive
      QVERIFY(m.compact(T0 + 60).ok());
    }
    auto db = Database::open(path);
    QVERIFY(db.ok());
    MetricStore m(*db);
    auto raw = m.query("gpu_util", T0, T0 + 20, MetricResolution::Raw);
    QVERIFY(raw.ok());
    QCOMPARE(raw->points.size(), size_t{2});
    QCOMPARE(raw->points[1].time, T0 + 10);
    QCOMPARE(raw->points[1].value, 0.75);
    auto minute = m.query("gpu_util", T0, T0 + 60, MetricResolution::Minute);
    QVERIFY(minute.ok());
    QCOMPARE(minute->points.size(), size_t{1});
    QCOMPARE(minute->points[0].value, 0.625);
    QCOMPARE(m.query("jobs_pending", T0, T0 + 1)->points.at(0).value, 12.0);
  }

  void aSecondSampleAtTheSameTimeReplacesTheFirst() {
    Database db = freshDb();
    MetricStore m(db);
    QVERIFY(m.record(T0, {{"a", 1}}).ok());
    QVERIFY(m.record(T0, {{"a", 2}}).ok());
    QVERIFY(m.record(T0 + 1, {{"b", 1}, {"b", 3}}).ok());  // within one batch too: the last
    auto a = m.query("a", T0, T0 + 10, MetricResolution::Raw);
    QCOMPARE(a->points.size(), size_t{1});
    QCOMPARE(a->points[0].value, 2.0);
    auto b = m.query("b", T0, T0 + 10, MetricResolution::Raw);
    QCOMPARE(b->points.size(), size_t{1});
    QCOMPARE(b->points[0].value, 3.0);
  }

  void invalidNamesAndValuesAreRefusedWhole() {
    Database db = freshDb();
    MetricStore m(db);
    for (const std::string bad :
         {"", "gpu util", "cpu;DROP TABLE x", "na\xc3\xafve", "a\nb", "x/y"}) {
      const Status s = m.record(T0, {{"fine", 1}, {bad, 2}});
      QVERIFY2(!s.ok(), bad.c_str());
      QVERIFY2(s.error().message.find("\"" + bad + "\"") != std::string::npos,
               s.error().message.c_str());
    }
    const Status nan = m.record(T0, {{"fine", 1}, {"ratio", std::nan("")}});
    QVERIFY(!nan.ok());
    QVERIFY2(nan.error().message.find("\"ratio\"") != std::string::npos &&
                 nan.error().message.find("finite") != std::string::npos,
             nan.error().message.c_str());
    QVERIFY(!m.record(T0, {{"inf", std::numeric_limits<double>::infinity()}}).ok());
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_raw"), int64_t{0});  // not even "fine"
    QVERIFY(!m.query("gpu util", T0, T0 + 1).ok());

    // Prometheus-style names with labels are fine.
    const std::string labelled = R"(gpu_util{node="n1",gpu="0"})";
    QVERIFY(m.record(T0, {{labelled, 0.9}, {"a:b.c-d=e_F9", 1}}).ok());
    QCOMPARE(m.query(labelled, T0, T0 + 1)->points.size(), size_t{1});
  }

  void minutesRollUpOnlyOnceTheyHaveEnded() {
    Database db = freshDb();
    MetricStore m(db);
    for (const auto& [t, v] : std::vector<std::pair<int64_t, double>>{
             {T0 + 5, 1}, {T0 + 20, 4}, {T0 + 59, 7}, {T0 + 60, 10}, {T0 + 70, 20}})
      QVERIFY(m.record(t, {{"u", v}}).ok());
    QVERIFY(m.compact(T0 + 90).ok());
    // The minute from T0 + 60 is still going on at T0 + 90.
    QCOMPARE(describe(buckets(db, "metric_minute")), describe({{"u", T0, 3, 12, 1, 7}}));

    // A 1m query shows it anyway, computed from the raw samples so far.
    auto s = m.query("u", T0, T0 + 120, MetricResolution::Minute);
    QVERIFY(s.ok());
    QCOMPARE(s->resolution, MetricResolution::Minute);
    QCOMPARE(s->points.size(), size_t{2});
    QCOMPARE(s->points[0].time, T0);
    QCOMPARE(s->points[0].count, int64_t{3});
    QCOMPARE(s->points[0].value, 4.0);  // the mean
    QCOMPARE(s->points[0].min, 1.0);
    QCOMPARE(s->points[0].max, 7.0);
    QCOMPARE(s->points[1].time, T0 + 60);
    QCOMPARE(s->points[1].count, int64_t{2});
    QCOMPARE(s->points[1].value, 15.0);
    // A bucket is in a range by its start.
    QCOMPARE(m.query("u", T0 + 30, T0 + 120, MetricResolution::Minute)->points.size(), size_t{1});

    // It has ended when its last second has passed: not at T0 + 119, at T0 + 120.
    QVERIFY(m.compact(T0 + 119).ok());
    QCOMPARE(buckets(db, "metric_minute").size(), size_t{1});
    QVERIFY(m.compact(T0 + 120).ok());
    QCOMPARE(describe(buckets(db, "metric_minute")),
             describe({{"u", T0, 3, 12, 1, 7}, {"u", T0 + 60, 2, 30, 10, 20}}));
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_raw"), int64_t{5});  // raw kept 6 h
  }

  // Simulated clocks may start anywhere: buckets are floors, also below zero.
  void bucketsOfNegativeTimesAreFloors() {
    Database db = freshDb();
    MetricStore m(db);
    QVERIFY(m.record(-90, {{"a", 2}}).ok());
    QVERIFY(m.record(-60, {{"a", 3}}).ok());
    QVERIFY(m.record(-30, {{"a", 1}}).ok());
    QVERIFY(m.compact(0).ok());
    QCOMPARE(describe(buckets(db, "metric_minute")),
             describe({{"a", -120, 1, 2, 2, 2}, {"a", -60, 2, 4, 1, 3}}));
    QCOMPARE(describe(buckets(db, "metric_hour")), describe({{"a", -3600, 3, 6, 1, 3}}));
  }

  void hoursRollUpFromMinutes() {
    Database db = freshDb();
    MetricStore m(db);
    // A sample every 30 s for two hours: value k at T0 + 30 k.
    QVERIFY(
        db.transaction([&](Database&) -> Status {
            for (int k = 0; k < 240; ++k)
              TESSERA_CHECK(m.recordInTransaction(T0 + 30 * k, {{"u", static_cast<double>(k)}}));
            return okStatus();
          }).ok());
    QVERIFY(m.compact(T0 + 3645).ok());
    // 0 + 1 + ... + 119 = 7140; the second hour has not ended.
    QCOMPARE(describe(buckets(db, "metric_hour")), describe({{"u", T0, 120, 7140, 0, 119}}));
    const auto minutes = buckets(db, "metric_minute");
    QCOMPARE(minutes.size(), size_t{60});
    QCOMPARE(describe({minutes[59]}), describe({{"u", T0 + 3540, 2, 118 + 119, 118, 119}}));

    // The hour in progress, half from compacted minutes and half from raw samples: 120 + ... + 239.
    QVERIFY(m.compact(T0 + 5400).ok());
    auto s = m.query("u", T0, T0 + 7200, MetricResolution::Hour);
    QVERIFY(s.ok());
    QCOMPARE(s->points.size(), size_t{2});
    QCOMPARE(s->points[0].count, int64_t{120});
    QCOMPARE(s->points[0].value, 59.5);
    QCOMPARE(s->points[1].time, T0 + 3600);
    QCOMPARE(s->points[1].count, int64_t{120});
    QCOMPARE(s->points[1].value, 21540.0 / 120);
    QCOMPARE(s->points[1].min, 120.0);
    QCOMPARE(s->points[1].max, 239.0);
    QVERIFY(m.compact(T0 + 7200).ok());
    QCOMPARE(describe(buckets(db, "metric_hour")),
             describe({{"u", T0, 120, 7140, 0, 119}, {"u", T0 + 3600, 120, 21540, 120, 239}}));
  }

  void compactionIsIdempotentAndRollsLateSamplesUpAgain() {
    Database db = freshDb();
    MetricStore m(db);
    const auto value = [](int k) { return static_cast<double>((7 * k) % 13); };
    QVERIFY(db.transaction([&](Database&) -> Status {
                for (int k = 0; k < 720; ++k)  // every 10 s for two hours, two series
                  TESSERA_CHECK(
                      m.recordInTransaction(T0 + 10 * k, {{"u", value(k)}, {"v", -value(k)}}));
                return okStatus();
              }).ok());
    const int64_t now = T0 + 7300;
    QVERIFY(m.compact(now).ok());
    const QString once = dump(db);
    QCOMPARE(buckets(db, "metric_hour").size(), size_t{4});
    QVERIFY(m.compact(now).ok());
    QCOMPARE(dump(db), once);
    // The high-water marks only save work: without them a full rescan gives the same rows.
    QVERIFY(
        db.exec("DELETE FROM meta WHERE key IN ('metric_minute_done', 'metric_hour_done')").ok());
    QVERIFY(m.compact(now).ok());
    QCOMPARE(dump(db), once);

    // A late sample in a minute and an hour already rolled up: both are rolled up again.
    double hourSum = 0;
    for (int k = 0; k < 360; ++k) hourSum += value(k);
    QVERIFY(m.record(T0 + 15, {{"u", 1000}}).ok());
    QVERIFY(m.compact(now).ok());
    const auto minutes = buckets(db, "metric_minute");
    QCOMPARE(describe({minutes.front()}), describe({{"u", T0, 7, 27 + 1000, 0, 1000}}));
    QCOMPARE(describe({buckets(db, "metric_hour").front()}),
             describe({{"u", T0, 361, hourSum + 1000, 0, 1000}}));
    QVERIFY(m.compact(now).ok());
    QCOMPARE(describe({buckets(db, "metric_minute").front()}), describe({minutes.front()}));
  }

  void retentionDeletesOldRowsOfEachTable() {
    Database db = freshDb();
    MetricStore m(db, MetricRetention{600, 2 * 3600, 86400});
    // A sample a minute, 30 s into it, for two days.
    QVERIFY(db.transaction([&](Database&) -> Status {
                for (int k = 0; k < 2 * 1440; ++k)
                  TESSERA_CHECK(m.recordInTransaction(T0 + 60 * k + 30, {{"u", 1}}));
                return okStatus();
              }).ok());
    const int64_t now = T0 + 2 * 86400;
    QVERIFY(m.compact(now).ok());
    QCOMPARE(scalar(db, "SELECT min(time) FROM metric_raw"), now - 600 + 30);
    QCOMPARE(scalar(db, "SELECT max(time) FROM metric_raw"), now - 30);
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_raw"), int64_t{10});
    QCOMPARE(scalar(db, "SELECT min(time) FROM metric_minute"), now - 7200);
    QCOMPARE(scalar(db, "SELECT max(time) FROM metric_minute"), now - 60);
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_minute"), int64_t{120});
    QCOMPARE(scalar(db, "SELECT min(time) FROM metric_hour"), now - 86400);
    QCOMPARE(scalar(db, "SELECT max(time) FROM metric_hour"), now - 3600);
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_hour"), int64_t{24});

    // A sample older than raw retention keeps is dropped: its minute could not be rolled up again
    // correctly. One within it is kept and rolled up.
    QVERIFY(m.record(now - 3600, {{"u", 5}}).ok());
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_raw"), int64_t{10});
    QVERIFY(m.record(now - 299, {{"u", 5}}).ok());
    QVERIFY(m.compact(now).ok());
    auto late = m.query("u", now - 300, now - 240, MetricResolution::Minute);
    QVERIFY(late.ok());
    QCOMPARE(late->points.size(), size_t{1});
    QCOMPARE(late->points[0].count, int64_t{2});
    QCOMPARE(late->points[0].max, 5.0);
  }

  // Retention 0 still keeps the samples of the minute in progress: they are not rolled up yet.
  void retentionNeverDeletesWhatIsNotRolledUp() {
    Database db = freshDb();
    MetricStore m(db, MetricRetention{0, 0, 0});
    QVERIFY(m.record(T0 + 10, {{"u", 1}}).ok());
    QVERIFY(m.record(T0 + 70, {{"u", 2}}).ok());
    QVERIFY(m.compact(T0 + 90).ok());
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_raw"), int64_t{1});
    QCOMPARE(scalar(db, "SELECT time FROM metric_raw"), T0 + 70);
    QCOMPARE(describe(buckets(db, "metric_minute")), describe({{"u", T0, 1, 1, 1, 1}}));
  }

  void autoPicksTheFinestResolutionThatCoversAndFits() {
    Database db = freshDb();
    MetricStore m(db);  // raw 6 h, 1m 7 days, 1h 400 days
    QCOMPARE(m.query("u", T0, T0 + 60)->points.size(), size_t{0});  // empty store
    const int64_t end = T0 + 9 * 86400;
    // A sample a minute for nine days, then every 10 s in the last hour.
    QVERIFY(db.transaction([&](Database&) -> Status {
                for (int64_t t = T0; t < end; t += t < end - 3600 ? 60 : 10)
                  TESSERA_CHECK(m.recordInTransaction(t, {{"u", static_cast<double>(t % 97)}}));
                return okStatus();
              }).ok());
    QVERIFY(m.compact(end).ok());
    const auto pick = [&](int64_t from, int64_t to, size_t maxPoints) {
      auto s = m.query("u", from, to, MetricResolution::Auto, maxPoints);
      if (!s) qFatal("query failed: %s", s.error().str().c_str());
      return std::move(s).value();
    };

    auto recent = pick(end - 3600, end, 2000);
    QCOMPARE(recent.resolution, MetricResolution::Raw);
    QCOMPARE(recent.points.size(), size_t{360});
    auto budget = pick(end - 3600, end, 100);  // 360 raw samples are too many
    QCOMPARE(budget.resolution, MetricResolution::Minute);
    QCOMPARE(budget.points.size(), size_t{60});
    QCOMPARE(budget.points[0].count, int64_t{6});
    auto tight = pick(end - 3600, end, 59);
    QCOMPARE(tight.resolution, MetricResolution::Hour);
    QCOMPARE(tight.points.size(), size_t{1});
    QCOMPARE(tight.points[0].count, int64_t{360});

    auto halfDay = pick(end - 12 * 3600, end - 11 * 3600, 2000);  // raw is gone there
    QCOMPARE(halfDay.resolution, MetricResolution::Minute);
    QCOMPARE(halfDay.points.size(), size_t{60});
    QCOMPARE(m.query("u", end - 12 * 3600, end - 11 * 3600, MetricResolution::Raw)->points.size(),
             size_t{0});

    auto week = pick(end - 8 * 86400, end - 8 * 86400 + 6 * 3600, 2000);  // 1m is gone there
    QCOMPARE(week.resolution, MetricResolution::Hour);
    QCOMPARE(week.points.size(), size_t{6});
    QCOMPARE(week.points[0].count, int64_t{60});
    QCOMPARE(
        m.query("u", end - 8 * 86400, end - 7 * 86400, MetricResolution::Minute)->points.size(),
        size_t{0});
  }

  void samplesOfAFailedCallerTransactionLeaveNothing() {
    Database db = freshDb();
    MetricStore m(db);
    QVERIFY(m.record(T0, {{"kept", 1}}).ok());
    QVERIFY(m.compact(T0 + 120).ok());
    const QString before = dump(db);
    const Status s = db.transaction([&](Database& d) -> Status {
      TESSERA_CHECK(d.exec("INSERT INTO meta VALUES('engine_tick', '1')"));
      // A new series, and a late sample that moves the rollup marks back.
      TESSERA_CHECK(m.recordInTransaction(T0 + 30, {{"gpu_util", 0.9}, {"kept", 2}}));
      return Error{"the engine state did not commit", {}};
    });
    QVERIFY(!s.ok());
    QCOMPARE(*m.seriesNames(), std::vector<std::string>{"kept"});
    auto kept = m.query("kept", T0, T0 + 60, MetricResolution::Raw);
    QCOMPARE(kept->points.size(), size_t{1});
    QCOMPARE(kept->points[0].value, 1.0);
    QCOMPARE(dump(db), before);
    QCOMPARE(scalar(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'metric_minute_done'"),
             T0 + 120);
    QCOMPARE(scalar(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'metric_latest'"),
             T0 + 120);
    QCOMPARE(scalar(db, "SELECT count(*) FROM meta WHERE key = 'engine_tick'"), int64_t{0});
  }

  void seriesNamesSpanAllTables() {
    Database db = freshDb();
    MetricStore m(db, MetricRetention{600, 7 * 86400, 400 * 86400});
    QCOMPARE(m.seriesNames()->size(), size_t{0});
    QVERIFY(m.record(T0, {{"b_old", 1}}).ok());
    QVERIFY(m.record(T0 + 7200, {{"c", 1}, {"a", 2}}).ok());
    QVERIFY(m.record(T0 + 7210, {{"a", 3}}).ok());
    QVERIFY(m.compact(T0 + 7260).ok());
    // b_old is left only in the rollups.
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_raw WHERE series = 'b_old'"), int64_t{0});
    QCOMPARE(scalar(db, "SELECT count(*) FROM metric_minute WHERE series = 'b_old'"), int64_t{1});
    auto names = m.seriesNames();
    QVERIFY(names.ok());
    QCOMPARE(*names, (std::vector<std::string>{"a", "b_old", "c"}));
  }
};

QTEST_APPLESS_MAIN(TstMetricStore)
#include "tst_metric_store.moc"
