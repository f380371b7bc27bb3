#pragma once
// The console's utilization history for a scope - the cluster, one pool or one team (with its
// sub-teams) - chosen in a selector: GPUs allocated vs busy (GPU util) vs effective (SM active)
// vs tensor active over engine time, with the gap between allocated and busy shaded (GPUs held
// but not doing work), and a second chart of the cluster's allocation stacked by team in the
// heatmap's team colors. A series that is missing is never drawn as zero: missing telemetry (a
// live tesserad reports none yet) hides its line with a note, and a scope with no series at all
// (a database from before per-scope series) says "no data".
//
// MetricFetcher gets the series from a session's metrics() call - the widget knows no session -
// and hands them over on the GUI thread; it also lists the scopes the store has series for.
#include <QPointer>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "service/session.h"

class QAreaSeries;
class QBoxLayout;
class QChart;
class QChartView;
class QComboBox;
class QDateTimeAxis;
class QLabel;
class QTabBar;
class QLineSeries;
class QValueAxis;
class QVBoxLayout;

namespace tessera::widgets {

// Whose utilization the chart shows. The backend records each metric per scope under one name
// pattern (docs/store.md): `gpus_busy` for the cluster, `gpus_busy{pool="dev"}`,
// `gpus_busy{team="llm"}`.
struct MetricScope {
  enum class Kind : uint8_t { Cluster, Pool, Team };
  Kind kind = Kind::Cluster;
  QString name;  // the pool or team; empty for the cluster

  // The series of `metric` (gpus_allocated, gpus_busy, ...) for this scope.
  [[nodiscard]] std::string series(const std::string& metric) const;
  // The scope a `gpus_allocated{...}` series name is recorded for; nullopt for other names.
  static std::optional<MetricScope> ofAllocatedSeries(const std::string& name);
  friend bool operator==(const MetricScope&, const MetricScope&) = default;
};

class UtilizationChart : public QWidget {
  Q_OBJECT
 public:
  enum class Line { Allocated, Busy, Effective, Tensor };

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
  [[nodiscard]] QComboBox* scopeBox() const { return scopeBox_; }
  [[nodiscard]] MetricScope scope() const;
  // "Cluster", "Pool: dev", "Team: llm" (translated).
  [[nodiscard]] static QString scopeLabel(const MetricScope& scope);
  // The note shown when a series is missing; empty when all lines are drawn.
  [[nodiscard]] QString telemetryNote() const;

  QSize sizeHint() const override { return {720, 520}; }
  // Side by side (LeftToRight) in a wide, low dock; one above the other otherwise.
  [[nodiscard]] bool chartsSideBySide() const;
  // The tabs that pick one chart at a time: shown where the dock is low and side by side would
  // cut the legends (a 1366 px screen's bottom area); hidden otherwise.
  [[nodiscard]] QTabBar* chartTabs() const { return tabs_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 public slots:
  // The current scope's series. Any may be empty: an empty allocated series means "no data for
  // this scope", an empty busy, smActive or tensorActive one "no such telemetry".
  void setSeries(const tessera::MetricSeries& allocated, const tessera::MetricSeries& busy,
                 const tessera::MetricSeries& smActive, const tessera::MetricSeries& tensorActive);
  void setTeamSeries(const std::vector<std::pair<QString, tessera::MetricSeries>>& teams);
  // The pools and teams the selector offers besides the cluster. The selection stays when it is
  // still offered, and falls back to the cluster (emitting scopeChanged) when not.
  void setScopes(const QStringList& pools, const QStringList& teams);
  void setScope(const tessera::widgets::MetricScope& scope);

 signals:
  // The user (or setScope) picked another scope: fetch its series. The lines are cleared until
  // they arrive, so the old scope's data is never shown under the new name.
  void scopeChanged(const tessera::widgets::MetricScope& scope);

 private:
  struct Missing {
    bool allocated = false, busy = false, sm = false, tensor = false;
  };
  void buildScopeSelector(QVBoxLayout* layout);
  [[nodiscard]] MetricScope scopeAt(int index) const;
  void buildUtilizationChart();
  void buildTeamChart();
  void fitAxes(QChart* chart, QDateTimeAxis* x, QValueAxis* y, Seconds from, Seconds to,
               double maxValue);
  void updateGap(const MetricSeries& allocated, const MetricSeries& busy);
  void updateNote(const Missing& missing);
  void updateTitle();
  void scopePicked();
  void arrangeCharts();
  [[nodiscard]] static int legendWidth(const QChartView* view);
  static void placeLegend(QChartView* view, int width);

  QComboBox* scopeBox_ = nullptr;
  QLabel* note_ = nullptr;
  QChartView* utilView_ = nullptr;
  QChartView* teamView_ = nullptr;
  QBoxLayout* charts_ = nullptr;
  QTabBar* tabs_ = nullptr;
  QLineSeries* allocated_ = nullptr;
  QLineSeries* busy_ = nullptr;
  QLineSeries* effective_ = nullptr;
  QLineSeries* tensor_ = nullptr;
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

// Fetches what UtilizationChart shows: first the series names (to discover the scopes and the
// team_gpus series), then each series of the chosen scope that the store has. Calls run on a
// worker thread (a remote call may wait on the network); the results come back as signals on the
// GUI thread, only for the latest fetch() and only while the fetcher exists.
class MetricFetcher : public QObject {
  Q_OBJECT
 public:
  explicit MetricFetcher(MetricFetch fetch, QObject* parent = nullptr);
  ~MetricFetcher() override;

  // The team of a "team_gpus{team=\"NAME\"}" series; empty for any other name.
  static QString teamOfSeries(const std::string& name);
  [[nodiscard]] MetricScope scope() const { return scope_; }

 public slots:
  // Engine seconds [from, to) (to = 0: now), at most about maxPoints points per series.
  void fetch(qint64 from, qint64 to = 0, int maxPoints = 600);
  // The scope later fetches query (a fetch in flight keeps the scope it started with).
  void setScope(const tessera::widgets::MetricScope& scope) { scope_ = scope; }

 signals:
  // The scope's series; one the store does not have comes empty.
  void seriesReady(const tessera::MetricSeries& allocated, const tessera::MetricSeries& busy,
                   const tessera::MetricSeries& smActive,
                   const tessera::MetricSeries& tensorActive);
  void teamSeriesReady(const std::vector<std::pair<QString, tessera::MetricSeries>>& teams);
  // The pools and teams the store has per-scope series for, sorted.
  void scopesReady(const QStringList& pools, const QStringList& teams);
  void fetchFailed(const QString& message);

 private:
  struct Batch;
  static void queryAll(const std::shared_ptr<Batch>& batch, std::vector<std::string> names);
  static void finish(const std::shared_ptr<Batch>& batch);

  MetricFetch fetch_;
  MetricScope scope_;
  std::shared_ptr<std::atomic<uint64_t>> generation_ = std::make_shared<std::atomic<uint64_t>>(0);
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
};

}  // namespace tessera::widgets
