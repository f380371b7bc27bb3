#pragma once
// tesserad's metrics: a small thread-safe registry of counters, gauges and histograms, rendered in
// the Prometheus text exposition format 0.0.4 (served by HttpExporter at GET /metrics).
//
// Rendering, families sorted by name and series by label set:
//
//   # HELP tessera_jobs_submitted_total Jobs accepted by the scheduler.
//   # TYPE tessera_jobs_submitted_total counter
//   tessera_jobs_submitted_total{team="vision"} 12
//   # HELP tessera_schedule_seconds Time spent in one scheduling pass.
//   # TYPE tessera_schedule_seconds histogram
//   tessera_schedule_seconds_bucket{le="0.01"} 3        <- cumulative counts
//   tessera_schedule_seconds_bucket{le="+Inf"} 4
//   tessera_schedule_seconds_sum 0.051
//   tessera_schedule_seconds_count 4
//
// Misuse policy: a declaration or update that is wrong (undeclared family, wrong type, invalid
// metric or label name, repeated label name, label value not UTF-8, negative or NaN counter
// increment, NaN observation, more than kMaxSeriesPerFamily series) is ignored and counted, never
// fatal: metrics must not take the scheduler down, and a debug-only assert would hide the problem
// in release builds where it matters. The count is `rejected()`, and once it is non-zero it is
// also rendered as the counter tessera_metrics_rejected_total, so a dashboard sees it.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

// Label name/value pairs of one series; their order does not matter ({a,b} and {b,a} are the same
// series).
using Labels = std::vector<std::pair<std::string, std::string>>;

class MetricsRegistry {
 public:
  // Series one family may hold: a label fed from unbounded input (job ids) must not exhaust
  // memory or the Prometheus server.
  static constexpr size_t kMaxSeriesPerFamily = 10000;

  // Families are declared once with help text; label values are given per update. Metric names
  // match [a-zA-Z_:][a-zA-Z0-9_:]*, label names the stricter Prometheus rule [a-zA-Z_][a-zA-Z0-9_]*
  // without a leading "__" (and not "le" on histograms). Declaring the same family again with
  // the same type (and buckets) is a no-op, so independent components may both declare it.
  void declareCounter(const std::string& name, const std::string& help);
  void declareGauge(const std::string& name, const std::string& help);
  // `upperBounds` are sorted and deduplicated; NaN and +Inf are dropped (the +Inf bucket is
  // always there).
  void declareHistogram(const std::string& name, const std::string& help,
                        std::vector<double> upperBounds);

  void add(const std::string& counter, double by, const Labels& labels = {});  // by >= 0
  void set(const std::string& gauge, double value, const Labels& labels = {});
  // Counts `value` in every bucket whose upper bound is >= value.
  void observe(const std::string& histogram, double value, const Labels& labels = {});
  // Replaces all series of a gauge family at once (queue depth by team: teams come and go, and a
  // team gone must not linger at its last value). Invalid series are skipped and counted.
  void replaceGauge(const std::string& gauge, const std::vector<std::pair<Labels, double>>& series);

  // The whole registry in the text exposition format, ending with a newline.
  [[nodiscard]] std::string render() const;
  // Declarations and updates ignored so far (see the misuse policy above).
  [[nodiscard]] uint64_t rejected() const;

 private:
  enum class Type { Counter, Gauge, Histogram };
  struct Series {
    double value = 0;               // counters and gauges
    std::vector<uint64_t> buckets;  // histograms: per bucket (not cumulative), +Inf last
    double sum = 0;
    uint64_t count = 0;
  };
  struct Family {
    Type type = Type::Counter;
    std::string help;
    std::vector<double> bounds;  // histograms, without +Inf
    std::map<Labels, Series> series;
  };

  void declare(const std::string& name, const std::string& help, Type type,
               std::vector<double> bounds);
  // The family, or nullptr (counted as rejected) when undeclared or of another type.
  Family* find(const std::string& name, Type type);
  // The series for `labels` (created on first use), or nullptr (counted) when they are invalid.
  Series* seriesFor(Family& family, const Labels& labels);

  mutable std::mutex mutex_;
  std::map<std::string, Family> families_;
  uint64_t rejected_ = 0;
};

}  // namespace tessera
