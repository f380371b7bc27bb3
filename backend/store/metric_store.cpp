#include "store/metric_store.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tessera {
namespace {

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 3600;
constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();

// Bookkeeping in `meta`. Invariants: raw samples before minute_done are rolled into
// metric_minute, minutes before hour_done into metric_hour (hour_done <= minute_done); a sample
// before accept_from could not be rolled up correctly any more, because retention deleted part of
// its bucket's data; latest is the newest time recorded or compacted at, what Auto's retention
// check counts back from.
constexpr const char* kMinuteDone = "metric_minute_done";
constexpr const char* kHourDone = "metric_hour_done";
constexpr const char* kAcceptFrom = "metric_accept_from";
constexpr const char* kLatest = "metric_latest";

// Start of the bucket holding `t` (floor, also for negative simulated times), saturating.
int64_t floorTo(int64_t t, int64_t step) {
  if (t < kMinTime + step) return kMinTime;
  return t - ((t % step) + step) % step;
}

int64_t ceilTo(int64_t t, int64_t step) {
  const int64_t f = floorTo(t, step);
  if (f == t) return t;
  return f > kMaxTime - step ? kMaxTime : f + step;
}

int64_t minusSaturated(int64_t t, int64_t d) {
  d = std::max<int64_t>(d, 0);
  return t < kMinTime + d ? kMinTime : t - d;
}

struct Marks {
  std::optional<int64_t> minuteDone, hourDone, acceptFrom, latest;
};

Expected<Marks> readMarks(Database& db) {
  TESSERA_TRY(q, db.prepare("SELECT key, CAST(value AS INTEGER) FROM meta WHERE key IN (?,?,?,?)"));
  q.bind(1, std::string(kMinuteDone))
      .bind(2, std::string(kHourDone))
      .bind(3, std::string(kAcceptFrom))
      .bind(4, std::string(kLatest));
  Marks m;
  for (;;) {
    TESSERA_TRY(row, q.step());
    if (!row) break;
    const std::string key = q.textAt(0);
    const int64_t value = q.int64At(1);
    if (key == kMinuteDone) m.minuteDone = value;
    if (key == kHourDone) m.hourDone = value;
    if (key == kAcceptFrom) m.acceptFrom = value;
    if (key == kLatest) m.latest = value;
  }
  return m;
}

Status writeMark(Database& db, const char* key, int64_t value) {
  TESSERA_TRY(q, db.prepare("INSERT INTO meta(key, value) VALUES(?, ?) "
                            "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
  return q.bind(1, std::string(key)).bind(2, value).run();
}

// Moves a mark back to `value` if it is past it; an absent mark stays absent.
Status lowerMark(Database& db, const char* key, int64_t value) {
  TESSERA_TRY(q, db.prepare("UPDATE meta SET value = ?2 WHERE key = ?1 "
                            "AND CAST(value AS INTEGER) > ?2"));
  return q.bind(1, std::string(key)).bind(2, value).run();
}

Status raiseMark(Database& db, const char* key, int64_t value) {
  TESSERA_TRY(q, db.prepare("INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO "
                            "UPDATE SET value = excluded.value WHERE CAST(value AS INTEGER) < ?2"));
  return q.bind(1, std::string(key)).bind(2, value).run();
}

// The series of a table by a loose index scan: one seek on the (series, time) primary key per
// series instead of reading every row. Statements that filter only on time use it as
// `series IN (SELECT name FROM s)`, which lets SQLite seek (series, time) ranges; a bare
// `WHERE time < ?` would scan the whole table, raw samples included.
std::string seriesScan(const std::string& cte, const std::string& table) {
  return cte + "(name) AS (SELECT min(series) FROM " + table +
         " UNION ALL SELECT (SELECT min(series) FROM " + table + " WHERE series > " + cte +
         ".name) FROM " + cte + " WHERE " + cte + ".name IS NOT NULL)";
}

std::string seriesOf(const std::string& table) {
  return seriesScan("s", table);
}

// Replaces (not adds to) the buckets it computes, which is what makes a rerun harmless.
constexpr const char* kUpsertBucket =
    " ON CONFLICT(series, time) DO UPDATE SET count = excluded.count, sum = excluded.sum,"
    " min = excluded.min, max = excluded.max";

// Raw samples with lo <= time < hi into their minutes.
Status rollUpMinutes(Database& db, int64_t lo, int64_t hi) {
  if (lo >= hi) return okStatus();
  TESSERA_TRY(q, db.prepare("WITH RECURSIVE " + seriesOf("metric_raw") +
                            " INSERT INTO metric_minute(series, time, count, sum, min, max)"
                            " SELECT series, time - ((time % 60) + 60) % 60 AS bucket, count(*),"
                            " sum(value), min(value), max(value) FROM metric_raw"
                            " WHERE series IN (SELECT name FROM s) AND time >= ?1 AND time < ?2"
                            " GROUP BY series, bucket" +
                            kUpsertBucket));
  return q.bind(1, lo).bind(2, hi).run();
}

// Minute rows with lo <= time < hi into their hours.
Status rollUpHours(Database& db, int64_t lo, int64_t hi) {
  if (lo >= hi) return okStatus();
  TESSERA_TRY(q, db.prepare("WITH RECURSIVE " + seriesOf("metric_minute") +
                            " INSERT INTO metric_hour(series, time, count, sum, min, max)"
                            " SELECT series, time - ((time % 3600) + 3600) % 3600 AS bucket,"
                            " sum(count), sum(sum), min(min), max(max) FROM metric_minute"
                            " WHERE series IN (SELECT name FROM s) AND time >= ?1 AND time < ?2"
                            " GROUP BY series, bucket" +
                            kUpsertBucket));
  return q.bind(1, lo).bind(2, hi).run();
}

Status deleteBefore(Database& db, const char* table, int64_t cut) {
  if (cut == kMinTime) return okStatus();
  TESSERA_TRY(q, db.prepare("WITH RECURSIVE " + seriesOf(table) + " DELETE FROM " + table +
                            " WHERE series IN (SELECT name FROM s) AND time < ?1"));
  return q.bind(1, cut).run();
}

Status validate(int64_t time, const std::vector<std::pair<std::string, double>>& values) {
  for (const auto& [name, value] : values) {
    if (!isValidMetricSeriesName(name))
      return Error{
          "invalid metric series name \"" + name + "\": use letters, digits and _:.{}=,\"- only",
          {}};
    if (!std::isfinite(value))
      return Error{"metric series \"" + name + "\" at time " + std::to_string(time) +
                       ": the value is not a finite number",
                   {}};
  }
  return okStatus();
}

// Reads (time, count, sum, min, max) rows into points; value is the mean.
Expected<std::vector<MetricPoint>> readBuckets(Statement& q) {
  std::vector<MetricPoint> points;
  for (;;) {
    TESSERA_TRY(row, q.step());
    if (!row) return points;
    MetricPoint p;
    p.time = q.int64At(0);
    p.count = q.int64At(1);
    p.value = p.count > 0 ? q.doubleAt(2) / static_cast<double>(p.count) : 0;
    p.min = q.doubleAt(3);
    p.max = q.doubleAt(4);
    points.push_back(p);
  }
}

Expected<std::vector<MetricPoint>> fetchRaw(Database& db, const std::string& series, int64_t from,
                                            int64_t to, int64_t limit) {
  TESSERA_TRY(q, db.prepare("SELECT time, 1, value, value, value FROM metric_raw"
                            " WHERE series = ?1 AND time >= ?2 AND time < ?3"
                            " ORDER BY time LIMIT ?4"));
  q.bind(1, series).bind(2, from).bind(3, to).bind(4, limit);
  return readBuckets(q);
}

// Compacted minute rows, then the minutes not compacted yet computed from raw samples.
Expected<std::vector<MetricPoint>> fetchMinutes(Database& db, const std::string& series, int64_t lo,
                                                int64_t hi, const Marks& marks, int64_t limit) {
  const int64_t minuteDone = marks.minuteDone.value_or(kMinTime);
  TESSERA_TRY(q,
              db.prepare("SELECT time, count, sum, min, max FROM metric_minute"
                         " WHERE series = ?1 AND time >= ?2 AND time < ?3"
                         " UNION ALL"
                         " SELECT time - ((time % 60) + 60) % 60 AS bucket, count(*), sum(value),"
                         " min(value), max(value) FROM metric_raw"
                         " WHERE series = ?1 AND time >= ?4 AND time < ?5 GROUP BY bucket"
                         " ORDER BY 1 LIMIT ?6"));
  q.bind(1, series)
      .bind(2, lo)
      .bind(3, std::min(hi, minuteDone))
      .bind(4, std::max(lo, minuteDone))
      .bind(5, hi)
      .bind(6, limit);
  return readBuckets(q);
}

// Compacted hour rows, then the hours not compacted yet from compacted minutes and raw samples
// (an hour in progress can have both).
Expected<std::vector<MetricPoint>> fetchHours(Database& db, const std::string& series, int64_t lo,
                                              int64_t hi, const Marks& marks, int64_t limit) {
  const int64_t minuteDone = marks.minuteDone.value_or(kMinTime);
  const int64_t hourDone = marks.hourDone.value_or(kMinTime);
  TESSERA_TRY(q, db.prepare("SELECT time, count, sum, min, max FROM metric_hour"
                            " WHERE series = ?1 AND time >= ?2 AND time < ?3"
                            " UNION ALL"
                            " SELECT bucket, sum(c), sum(s), min(lo), max(hi) FROM ("
                            "  SELECT time - ((time % 3600) + 3600) % 3600 AS bucket, count AS c,"
                            "  sum AS s, min AS lo, max AS hi FROM metric_minute"
                            "  WHERE series = ?1 AND time >= ?4 AND time < ?5"
                            "  UNION ALL"
                            "  SELECT time - ((time % 3600) + 3600) % 3600, 1, value, value, value"
                            "  FROM metric_raw WHERE series = ?1 AND time >= ?6 AND time < ?7)"
                            " GROUP BY bucket"
                            " ORDER BY 1 LIMIT ?8"));
  q.bind(1, series)
      .bind(2, lo)
      .bind(3, std::min(hi, hourDone))
      .bind(4, std::max(lo, hourDone))
      .bind(5, std::min(hi, minuteDone))
      .bind(6, std::max(lo, minuteDone))
      .bind(7, hi)
      .bind(8, limit);
  return readBuckets(q);
}

// `limit` < 0: all of them.
Expected<std::vector<MetricPoint>> fetch(Database& db, MetricResolution r,
                                         const std::string& series, int64_t from, int64_t to,
                                         const Marks& marks, int64_t limit) {
  switch (r) {
    case MetricResolution::Minute:
      // A bucket is in the range by its start, so the range of sample times is rounded up.
      return fetchMinutes(db, series, ceilTo(from, kMinute), ceilTo(to, kMinute), marks, limit);
    case MetricResolution::Hour:
      return fetchHours(db, series, ceilTo(from, kHour), ceilTo(to, kHour), marks, limit);
    case MetricResolution::Raw:
    case MetricResolution::Auto:
      break;
  }
  return fetchRaw(db, series, from, to, limit);
}

}  // namespace

const char* metricResolutionName(MetricResolution r) {
  switch (r) {
    case MetricResolution::Auto:
      return "auto";
    case MetricResolution::Raw:
      return "raw";
    case MetricResolution::Minute:
      return "1m";
    case MetricResolution::Hour:
      return "1h";
  }
  return "auto";
}

std::optional<MetricResolution> parseMetricResolution(std::string_view text) {
  for (MetricResolution r : {MetricResolution::Auto, MetricResolution::Raw,
                             MetricResolution::Minute, MetricResolution::Hour})
    if (text == metricResolutionName(r)) return r;
  return std::nullopt;
}

bool isValidMetricSeriesName(std::string_view name) {
  constexpr std::string_view kPunctuation = "_:.{}=,\"-";
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return alnum || kPunctuation.find(c) != std::string_view::npos;
  });
}

Status MetricStore::recordInTransaction(int64_t time,
                                        const std::vector<std::pair<std::string, double>>& values) {
  if (values.empty()) return okStatus();
  TESSERA_CHECK(validate(time, values));  // before writing: a refused batch leaves no part
  TESSERA_TRY(marks, readMarks(db_));
  if (marks.acceptFrom && time < *marks.acceptFrom) return okStatus();
  TESSERA_TRY(insert,
              db_.prepare("INSERT INTO metric_raw(series, time, value) VALUES(?, ?, ?)"
                          " ON CONFLICT(series, time) DO UPDATE SET value = excluded.value"));
  for (const auto& [name, value] : values) {
    TESSERA_CHECK(insert.bind(1, name).bind(2, time).bind(3, value).run());
    TESSERA_CHECK(insert.reset());
  }
  // A late sample in a bucket already rolled up: the next compaction rolls it up again from raw.
  TESSERA_CHECK(lowerMark(db_, kMinuteDone, floorTo(time, kMinute)));
  TESSERA_CHECK(lowerMark(db_, kHourDone, floorTo(time, kHour)));
  return raiseMark(db_, kLatest, time);
}

Status MetricStore::record(int64_t time,
                           const std::vector<std::pair<std::string, double>>& values) {
  return db_.transaction([&](Database&) { return recordInTransaction(time, values); });
}

Status MetricStore::compactInTransaction(int64_t now) {
  TESSERA_TRY(marks, readMarks(db_));
  // A bucket has ended when its end is <= now; so every bucket starting before now's has.
  const int64_t minuteDone = std::max(marks.minuteDone.value_or(kMinTime), floorTo(now, kMinute));
  const int64_t hourDone = std::max(marks.hourDone.value_or(kMinTime), floorTo(now, kHour));
  TESSERA_CHECK(rollUpMinutes(db_, marks.minuteDone.value_or(kMinTime), minuteDone));
  TESSERA_CHECK(rollUpHours(db_, marks.hourDone.value_or(kMinTime), hourDone));

  // Whole buckets only, so that a late sample's bucket can be rolled up again from complete data
  // (accept_from marks where that stops being true). A cut is at most now's bucket, which is
  // where the marks just moved to: nothing not yet rolled up is deleted.
  const int64_t rawCut = floorTo(minusSaturated(now, retention_.raw), kMinute);
  const int64_t minuteCut = floorTo(minusSaturated(now, retention_.minute), kHour);
  const int64_t hourCut = floorTo(minusSaturated(now, retention_.hour), kHour);
  TESSERA_CHECK(deleteBefore(db_, "metric_raw", rawCut));
  TESSERA_CHECK(deleteBefore(db_, "metric_minute", minuteCut));
  TESSERA_CHECK(deleteBefore(db_, "metric_hour", hourCut));

  TESSERA_CHECK(writeMark(db_, kMinuteDone, minuteDone));
  TESSERA_CHECK(writeMark(db_, kHourDone, hourDone));
  TESSERA_CHECK(raiseMark(db_, kAcceptFrom, std::max(rawCut, minuteCut)));
  return raiseMark(db_, kLatest, now);
}

Status MetricStore::compact(int64_t now) {
  return db_.transaction([&](Database&) { return compactInTransaction(now); });
}

Expected<MetricSeries> MetricStore::query(const std::string& series, int64_t from, int64_t to,
                                          MetricResolution resolution, size_t maxPoints) const {
  if (!isValidMetricSeriesName(series))
    return Error{"invalid metric series name \"" + series + "\"", {}};
  TESSERA_TRY(marks, readMarks(db_));
  MetricSeries out{series, resolution, {}};
  if (resolution != MetricResolution::Auto) {
    TESSERA_TRY(points, fetch(db_, resolution, series, from, to, marks, -1));
    out.points = std::move(points);
    return out;
  }
  // One more than allowed tells "too many" without reading them all.
  const int64_t probe =
      maxPoints >= static_cast<size_t>(kMaxTime) ? -1 : static_cast<int64_t>(maxPoints) + 1;
  const int64_t latest = marks.latest.value_or(from);
  const std::array<std::pair<MetricResolution, int64_t>, 2> finer{
      {{MetricResolution::Raw, retention_.raw}, {MetricResolution::Minute, retention_.minute}}};
  for (const auto& [r, keep] : finer) {
    if (from < minusSaturated(latest, keep)) continue;  // partly deleted already
    TESSERA_TRY(points, fetch(db_, r, series, from, to, marks, probe));
    if (points.size() <= maxPoints) {
      out.resolution = r;
      out.points = std::move(points);
      return out;
    }
  }
  TESSERA_TRY(points, fetch(db_, MetricResolution::Hour, series, from, to, marks, -1));
  out.resolution = MetricResolution::Hour;
  out.points = std::move(points);
  return out;
}

Expected<std::vector<std::string>> MetricStore::seriesNames() const {
  // Three loose index scans (see seriesScan), merged; UNION sorts and removes duplicates.
  TESSERA_TRY(q,
              db_.prepare("WITH RECURSIVE " + seriesScan("r", "metric_raw") + ", " +
                          seriesScan("m", "metric_minute") + ", " + seriesScan("h", "metric_hour") +
                          " SELECT name FROM r WHERE name IS NOT NULL"
                          " UNION SELECT name FROM m WHERE name IS NOT NULL"
                          " UNION SELECT name FROM h WHERE name IS NOT NULL ORDER BY 1"));
  std::vector<std::string> names;
  for (;;) {
    TESSERA_TRY(row, q.step());
    if (!row) return names;
    names.push_back(q.textAt(0));
  }
}

}  // namespace tessera
