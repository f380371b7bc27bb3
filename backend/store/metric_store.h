#pragma once
// Metric time series in the database: samples as recorded (raw), rolled up by compaction into
// 1-minute and 1-hour buckets (count, sum, min, max), each resolution kept for its own retention.
// Samples are written inside the caller's transaction, so they commit with the engine state of the
// same tick; queries pick the finest resolution that still covers the range and fits the caller's
// point budget. Definitions and the rules for late samples: docs/store.md#metric-time-series.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/database.h"

namespace tessera {

// How long each resolution is kept, in seconds of the engine clock.
struct MetricRetention {
  int64_t raw = 6 * 3600;      // raw samples
  int64_t minute = 7 * 86400;  // 1-minute rollups
  int64_t hour = 400 * 86400;  // 1-hour rollups
};

enum class MetricResolution : uint8_t { Auto, Raw, Minute, Hour };
// "auto", "raw", "1m", "1h"; parse accepts exactly these.
const char* metricResolutionName(MetricResolution r);
std::optional<MetricResolution> parseMetricResolution(std::string_view text);

// A raw sample (count 1, min = max = value) or a rollup bucket: `time` is the bucket's start and
// `value` the mean of the samples in it.
struct MetricPoint {
  int64_t time = 0;
  double value = 0;
  double min = 0;
  double max = 0;
  int64_t count = 1;
};

struct MetricSeries {
  std::string name;
  MetricResolution resolution = MetricResolution::Raw;  // never Auto: the one that was chosen
  std::vector<MetricPoint> points;                      // by time
};

// [A-Za-z0-9_:.{}=,"-]+: Prometheus-style names, labels included (gpu_util{node="n1"}).
bool isValidMetricSeriesName(std::string_view name);

class MetricStore {
 public:
  explicit MetricStore(Database& db, MetricRetention retention = {})
      : db_(db), retention_(retention) {}

  // One sample per series at `time`, inside a transaction the caller has open (the backend's
  // group commit). A second sample of a series at the same time replaces the first; one in a
  // bucket already rolled up makes the next compaction roll that bucket up again. Refused whole,
  // naming the series: an invalid name or a value that is not finite. Dropped without error: a
  // batch older than what retention still keeps raw (it could no longer be rolled up correctly).
  Status recordInTransaction(int64_t time,
                             const std::vector<std::pair<std::string, double>>& values);
  // The same in its own transaction.
  Status record(int64_t time, const std::vector<std::pair<std::string, double>>& values);

  // Rolls the raw samples of every minute that ended by `now` into metric_minute and the minutes
  // of every hour that ended into metric_hour, then deletes what is past its retention (never a
  // row not yet rolled up). Incremental (high-water marks in `meta`) and idempotent.
  Status compactInTransaction(int64_t now);
  Status compact(int64_t now);

  // Points of `series` with from <= time < to (a bucket by its start). Rollup resolutions include
  // the buckets not compacted yet, computed from the finer data, the newest possibly partial.
  // Auto: the finest of raw, 1m, 1h whose retention covers `from` (counted back from the newest
  // time the store has seen) and that has at most `maxPoints` points; 1h when none qualifies,
  // however many points it has. An explicit resolution returns all its points; maxPoints only
  // steers Auto.
  Expected<MetricSeries> query(const std::string& series, int64_t from, int64_t to,
                               MetricResolution resolution = MetricResolution::Auto,
                               size_t maxPoints = 2000) const;
  // Every series with data at any resolution, sorted, each once.
  Expected<std::vector<std::string>> seriesNames() const;

 private:
  Database& db_;
  MetricRetention retention_;
};

}  // namespace tessera
