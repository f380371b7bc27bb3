#pragma once
// The console's utilization history: GPUs allocated vs busy vs effective (SM active) over engine
// time, with the gap between allocated and busy shaded (GPUs held but not doing work), and a
// second chart of allocation stacked by team in the heatmap's team colors. Missing telemetry
// (a live tesserad reports none yet) hides the busy and effective lines with a note: they are
// never drawn as zero.
//
// MetricFetcher gets the series from a session's metrics() call - the widget knows no session -
// and hands them over on the GUI thread.
#include <QPointer>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "service/session.h"

class QAreaSeries;
class QChart;
class QChartView;
class QDateTimeAxis;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace tessera::widgets {

class UtilizationChart : public QWidget {
  Q_OBJECT
 public:
  enum class Line { Allocated, Busy, Effective };

  explicit UtilizationChart(QWidget* parent = nullptr);
  ~UtilizationChart() override;

  // Engine seconds as the time axis holds them (ms since the epoch, shifted so the axis, which
  // formats in local time, shows the engine clock as is).
  static qreal axisValue(Seconds engineTime);

  [[nodiscard]] QLineSeries* line(Line which) const;
  [[nodiscard]] QAreaSeries* gapArea() const { return gap_; }
  // Stacked team areas, in the order given to setTeamSeries.
  [[nodiscard]] const std::vector<QAreaSeries*>& teamAreas() const { return teamAreas_; }
  [[nodiscard]] QChartView* utilizationView() const { return utilView_; }
  [[nodiscard]] QChartView* teamView() const { return teamView_; }
  // The note shown when telemetry is missing; empty when all lines are drawn.
  [[nodiscard]] QString telemetryNote() const;

  QSize sizeHint() const override { return {720, 520}; }

 public slots:
  // Any series may be empty; an empty busy or smActive series means "no telemetry".
  void setSeries(const tessera::MetricSeries& allocated, const tessera::MetricSeries& busy,
                 const tessera::MetricSeries& smActive);
  void setTeamSeries(const std::vector<std::pair<QString, tessera::MetricSeries>>& teams);

 private:
  void buildUtilizationChart();
  void buildTeamChart();
  void fitAxes(QChart* chart, QDateTimeAxis* x, QValueAxis* y, Seconds from, Seconds to,
               double maxValue);
  void updateNote(bool busyMissing, bool smMissing);

  QLabel* note_ = nullptr;
  QChartView* utilView_ = nullptr;
  QChartView* teamView_ = nullptr;
  QLineSeries* allocated_ = nullptr;
  QLineSeries* busy_ = nullptr;
  QLineSeries* effective_ = nullptr;
  QLineSeries* gapUpper_ = nullptr;
  QLineSeries* gapLower_ = nullptr;
  QAreaSeries* gap_ = nullptr;
  QDateTimeAxis* utilX_ = nullptr;
  QValueAxis* utilY_ = nullptr;
  QDateTimeAxis* teamX_ = nullptr;
  QValueAxis* teamY_ = nullptr;
  std::vector<QAreaSeries*> teamAreas_;
};

// The session call the fetcher uses: ClusterSession::metrics or anything with its shape.
using MetricFetch = std::function<void(MetricQuery, Reply<MetricAnswer>)>;

// Fetches what UtilizationChart shows: first the series names (to discover the team_gpus series),
// then each series. Calls run on a worker thread (a remote call may wait on the network); the
// results come back as signals on the GUI thread, only for the latest fetch() and only while the
// fetcher exists.
class MetricFetcher : public QObject {
  Q_OBJECT
 public:
  explicit MetricFetcher(MetricFetch fetch, QObject* parent = nullptr);
  ~MetricFetcher() override;

  // The team of a "team_gpus{team=\"NAME\"}" series; empty for any other name.
  static QString teamOfSeries(const std::string& name);

 public slots:
  // Engine seconds [from, to) (to = 0: now), at most about maxPoints points per series.
  void fetch(qint64 from, qint64 to = 0, int maxPoints = 600);

 signals:
  void seriesReady(const tessera::MetricSeries& allocated, const tessera::MetricSeries& busy,
                   const tessera::MetricSeries& smActive);
  void teamSeriesReady(const std::vector<std::pair<QString, tessera::MetricSeries>>& teams);
  void fetchFailed(const QString& message);

 private:
  struct Batch;
  static void queryAll(const std::shared_ptr<Batch>& batch, std::vector<std::string> names);
  static void finish(const std::shared_ptr<Batch>& batch);

  MetricFetch fetch_;
  std::shared_ptr<std::atomic<uint64_t>> generation_ = std::make_shared<std::atomic<uint64_t>>(0);
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
};

}  // namespace tessera::widgets
