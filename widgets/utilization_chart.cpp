// Utilization history charts (Qt Charts) and the fetcher that feeds them from a session.
#include "utilization_chart.h"

#include <QBoxLayout>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabBar>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "heatmap_widget.h"

namespace tessera::widgets {

namespace {

// Line colors: allocation neutral, busy and effective greens, tensor violet (a different kind of
// measure: the tensor pipes, a subset of SM activity), the gap the heatmap's warm tone.
const QColor kAllocatedColor(0x45, 0x5a, 0x8c);
const QColor kBusyColor(0x2e, 0x8b, 0x57);
const QColor kEffectiveColor(0x9a, 0xcd, 0x32);
const QColor kTensorColor(0x8e, 0x44, 0xad);
const QColor kGapColor(0xe0, 0x7b, 0x39, 110);

QLineSeries* makeLine(const QString& name, const QColor& color, qreal width) {
  auto* s = new QLineSeries;
  s->setName(name);
  QPen pen(color);
  pen.setWidthF(width);
  s->setPen(pen);
  return s;
}

void fill(QLineSeries* s, const MetricSeries& m) {
  QList<QPointF> points;
  points.reserve(static_cast<qsizetype>(m.points.size()));
  for (const auto& p : m.points) points.append({UtilizationChart::axisValue(p.time), p.value});
  s->replace(points);
}

double maxOf(const MetricSeries& m) {
  double v = 0;
  for (const auto& p : m.points) v = std::max(v, p.value);
  return v;
}

QChart* makeChart(const QString& title) {
  auto* c = new QChart;
  c->setTitle(title);
  c->setAnimationOptions(QChart::NoAnimation);  // updates arrive every few seconds
  c->legend()->setAlignment(Qt::AlignBottom);
  c->setMargins(QMargins(4, 4, 4, 4));
  return c;
}

QDateTimeAxis* makeTimeAxis(QChart* c) {
  auto* x = new QDateTimeAxis;
  x->setFormat(QStringLiteral("HH:mm"));
  x->setTickCount(7);
  c->addAxis(x, Qt::AlignBottom);
  return x;
}

QValueAxis* makeGpuAxis(QChart* c, const QString& title) {
  auto* y = new QValueAxis;
  y->setTitleText(title);
  y->setLabelFormat(QStringLiteral("%.0f"));
  y->setRange(0, 4);  // until data arrives: whole-GPU ticks
  c->addAxis(y, Qt::AlignLeft);
  return y;
}

void attach(QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  s->attachAxis(x);
  s->attachAxis(y);
}

// The label value of `name` when it is `prefix` + value + `"}`; empty otherwise.
QString labelValue(const std::string& name, const std::string& prefix) {
  static const std::string suffix = "\"}";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return {};
  return QString::fromStdString(
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
}

constexpr int kScopeKindRole = Qt::UserRole;
constexpr QSize kMinChartSize(160, 100);
constexpr int kTitledHeight = 420;
constexpr int kScopeNameRole = Qt::UserRole + 1;

}  // namespace

std::string MetricScope::series(const std::string& metric) const {
  switch (kind) {
    case Kind::Cluster:
      break;
    case Kind::Pool:
      return metric + "{pool=\"" + name.toStdString() + "\"}";
    case Kind::Team:
      return metric + "{team=\"" + name.toStdString() + "\"}";
  }
  return metric;
}

std::optional<MetricScope> MetricScope::ofAllocatedSeries(const std::string& name) {
  if (const QString pool = labelValue(name, "gpus_allocated{pool=\""); !pool.isEmpty())
    return MetricScope{Kind::Pool, pool};
  if (const QString team = labelValue(name, "gpus_allocated{team=\""); !team.isEmpty())
    return MetricScope{Kind::Team, team};
  return std::nullopt;
}

UtilizationChart::UtilizationChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  buildScopeSelector(layout);
  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->hide();
  layout->addWidget(note_);
  buildUtilizationChart();
  buildTeamChart();
  tabs_ = new QTabBar(this);
  tabs_->setObjectName(QStringLiteral("chartTabs"));
  tabs_->addTab(tr("Utilization"));
  tabs_->addTab(tr("By team"));
  tabs_->setDrawBase(false);
  tabs_->hide();
  connect(tabs_, &QTabBar::currentChanged, this, &UtilizationChart::arrangeCharts);
  layout->addWidget(tabs_);
  charts_ = new QBoxLayout(QBoxLayout::TopToBottom);
  charts_->addWidget(utilView_, 3);
  charts_->addWidget(teamView_, 2);
  layout->addLayout(charts_, 1);
  updateTitle();
}

bool UtilizationChart::chartsSideBySide() const {
  return charts_->direction() == QBoxLayout::LeftToRight;
}

// The console's bottom dock is wide and low: there, two charts one above the other would leave
// neither a readable plot, so they go side by side. The time axis keeps one tick per ~110 px, so
// its labels are never elided.
void UtilizationChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrangeCharts();
}

// updateTitle keeps the titles while the chart is hidden; once shown in a low dock they give
// their room to the plot and the legend. A chart resized before it was first shown kept its
// title (and a legend cut at the bottom) until the first data arrived.
void UtilizationChart::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  updateTitle();
}

// Wide and low: side by side, each chart its share of the width - unless a legend would not fit
// there (its names elided), then one chart at a time over the whole width, picked by the tabs.
// Tall: one above the other.
void UtilizationChart::arrangeCharts() {
  const bool wide = width() * 2 >= height() * 3;
  // The layout's stretch: the utilization chart 3, the team chart 2.
  const bool legendsFit =
      legendWidth(utilView_) <= width() * 3 / 5 && legendWidth(teamView_) <= width() * 2 / 5;
  const bool oneAtATime = wide && !legendsFit;
  tabs_->setVisible(oneAtATime);
  utilView_->setVisible(!oneAtATime || tabs_->currentIndex() == 0);
  teamView_->setVisible(!oneAtATime || tabs_->currentIndex() == 1);
  charts_->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
  // One at a time means a low dock: the legend goes beside the plot, one name a line, and the
  // plot keeps the height. Elsewhere it goes below where its names fit in a row.
  placeLegend(utilView_, oneAtATime ? 0 : wide ? width() * 3 / 5 : width());
  placeLegend(teamView_, oneAtATime ? 0 : wide ? width() * 2 / 5 : width());
  const int chartWidth = wide && !oneAtATime ? width() / 2 : width();
  for (QDateTimeAxis* x : {utilX_, teamX_}) x->setTickCount(std::clamp(chartWidth / 110, 3, 7));
  updateTitle();
}

void UtilizationChart::placeLegend(QChartView* view, int width) {
  view->chart()->legend()->setAlignment(legendWidth(view) <= width ? Qt::AlignBottom
                                                                   : Qt::AlignRight);
}

// What a chart needs across for its legend's whole names: each entry's label, its marker (about
// a line high) and the spacing around them, plus the chart's margins and the view's frame. The
// legend's own size hint follows its elided labels, so it cannot tell.
int UtilizationChart::legendWidth(const QChartView* view) {
  const QChart* c = view->chart();
  const QFontMetrics fm(c->legend()->font());
  int width = c->margins().left() + c->margins().right() + 2 * view->frameWidth() + 16;
  for (const QLegendMarker* m : c->legend()->markers())
    if (m->isVisible()) width += fm.horizontalAdvance(m->label()) + fm.height() + 18;
  return width;
}

void UtilizationChart::buildScopeSelector(QVBoxLayout* layout) {
  auto* row = new QHBoxLayout;
  row->setContentsMargins(4, 4, 4, 0);
  scopeBox_ = new QComboBox(this);
  scopeBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  scopeBox_->setToolTip(
      tr("Whose utilization the upper chart shows: the cluster, one pool, or "
         "one team with its sub-teams"));
  scopeBox_->addItem(scopeLabel({}), int(MetricScope::Kind::Cluster));
  auto* label = new QLabel(tr("&Scope:"), this);
  label->setBuddy(scopeBox_);
  row->addWidget(label);
  row->addWidget(scopeBox_);
  row->addStretch(1);
  layout->addLayout(row);
  connect(scopeBox_, &QComboBox::currentIndexChanged, this, &UtilizationChart::scopePicked);
}

QString UtilizationChart::scopeLabel(const MetricScope& scope) {
  switch (scope.kind) {
    case MetricScope::Kind::Cluster:
      break;
    case MetricScope::Kind::Pool:
      return tr("Pool: %1").arg(scope.name);
    case MetricScope::Kind::Team:
      return tr("Team: %1").arg(scope.name);
  }
  return tr("Cluster");
}

MetricScope UtilizationChart::scopeAt(int index) const {
  if (index < 0 || index >= scopeBox_->count()) return {};
  return {static_cast<MetricScope::Kind>(scopeBox_->itemData(index, kScopeKindRole).toInt()),
          scopeBox_->itemData(index, kScopeNameRole).toString()};
}

MetricScope UtilizationChart::scope() const {
  return scopeAt(scopeBox_->currentIndex());
}

void UtilizationChart::setScopes(const QStringList& pools, const QStringList& teams) {
  std::vector<MetricScope> wanted{MetricScope{}};
  for (const QString& p : pools) wanted.push_back({MetricScope::Kind::Pool, p});
  for (const QString& t : teams) wanted.push_back({MetricScope::Kind::Team, t});
  std::vector<MetricScope> offered;
  for (int i = 0; i < scopeBox_->count(); ++i) offered.push_back(scopeAt(i));
  // Asked every few seconds with the same answer: rebuilding would close an open popup.
  if (offered == wanted) return;
  const MetricScope current = scope();
  {
    const QSignalBlocker quiet(scopeBox_);
    scopeBox_->clear();
    for (const MetricScope& m : wanted) {
      scopeBox_->addItem(scopeLabel(m), int(m.kind));
      scopeBox_->setItemData(scopeBox_->count() - 1, m.name, kScopeNameRole);
    }
  }
  const auto it = std::find(wanted.begin(), wanted.end(), current);
  if (it != wanted.end()) {
    const QSignalBlocker quiet(scopeBox_);
    scopeBox_->setCurrentIndex(static_cast<int>(it - wanted.begin()));
  } else {
    scopeBox_->setCurrentIndex(-1);  // the old scope is gone: back to the cluster, announced
    scopeBox_->setCurrentIndex(0);
  }
}

void UtilizationChart::setScope(const MetricScope& scope) {
  for (int i = 0; i < scopeBox_->count(); ++i)
    if (scopeAt(i) == scope) {
      scopeBox_->setCurrentIndex(i);
      return;
    }
}

void UtilizationChart::scopePicked() {
  if (scopeBox_->currentIndex() < 0) return;
  updateTitle();
  // Until the new scope's series arrive: nothing, rather than the old scope under a new title.
  for (QLineSeries* s : {allocated_, busy_, effective_, tensor_, gapUpper_, gapLower_}) s->clear();
  note_->setText(tr("Loading %1…").arg(scopeLabel(scope())));
  note_->show();
  emit scopeChanged(scope());
}

// In a low dock the titles would take the plot's room: the selector above names the scope and
// the legends name the lines, so the titles move to the charts' tooltips there.
void UtilizationChart::updateTitle() {
  const QString util =
      tr("%1: GPUs allocated, busy, effective and tensor active").arg(scopeLabel(scope()));
  const QString team = tr("GPUs allocated by team");
  const bool room = !isVisible() || height() >= kTitledHeight;
  utilView_->chart()->setTitle(room ? util : QString());
  teamView_->chart()->setTitle(room ? team : QString());
  utilView_->setToolTip(util);
  teamView_->setToolTip(team);
}

UtilizationChart::~UtilizationChart() = default;

qreal UtilizationChart::axisValue(Seconds engineTime) {
  // QDateTimeAxis formats in local time: take the local offset out so labels read the engine
  // clock (which has no time zone) unchanged.
  const QDateTime local = QDateTime::fromSecsSinceEpoch(engineTime);
  return static_cast<qreal>(engineTime - local.offsetFromUtc()) * 1000.0;
}

void UtilizationChart::buildUtilizationChart() {
  QChart* c = makeChart({});  // titled by the scope (updateTitle)
  utilX_ = makeTimeAxis(c);
  utilY_ = makeGpuAxis(c, tr("GPUs"));
  // The gap is an area between two hidden copies of the allocated and busy lines; added first
  // so the lines are drawn over it.
  gapUpper_ = new QLineSeries(c);
  gapLower_ = new QLineSeries(c);
  gap_ = new QAreaSeries(gapUpper_, gapLower_);
  gap_->setName(tr("Allocated but idle"));
  gap_->setBrush(kGapColor);
  gap_->setPen(Qt::NoPen);
  allocated_ = makeLine(tr("Allocated"), kAllocatedColor, 2.0);
  busy_ = makeLine(tr("Busy"), kBusyColor, 2.0);
  effective_ = makeLine(tr("Effective (SM active)"), kEffectiveColor, 1.5);
  tensor_ = makeLine(tr("Tensor active"), kTensorColor, 1.5);
  for (QAbstractSeries* s :
       {static_cast<QAbstractSeries*>(gap_), static_cast<QAbstractSeries*>(allocated_),
        static_cast<QAbstractSeries*>(busy_), static_cast<QAbstractSeries*>(effective_),
        static_cast<QAbstractSeries*>(tensor_)}) {
    c->addSeries(s);
    attach(s, utilX_, utilY_);
  }
  utilView_ = new QChartView(c, this);
  utilView_->setRenderHint(QPainter::Antialiasing);
  // Small enough to fit a low dock side by side: the dock's size decides, not the chart's hint.
  utilView_->setMinimumSize(kMinChartSize);
}

void UtilizationChart::buildTeamChart() {
  QChart* c = makeChart({});  // titled with the other (updateTitle)
  teamX_ = makeTimeAxis(c);
  teamY_ = makeGpuAxis(c, tr("GPUs"));
  teamView_ = new QChartView(c, this);
  teamView_->setRenderHint(QPainter::Antialiasing);
  teamView_->setMinimumSize(kMinChartSize);
}

QLineSeries* UtilizationChart::line(Line which) const {
  switch (which) {
    case Line::Allocated:
      return allocated_;
    case Line::Busy:
      return busy_;
    case Line::Effective:
      return effective_;
    case Line::Tensor:
      return tensor_;
  }
  return nullptr;
}

QString UtilizationChart::telemetryNote() const {
  // isHidden, not isVisible: the chart may not be shown yet (a dock tabbed away, a test).
  return note_->isHidden() ? QString() : note_->text();
}

void UtilizationChart::updateNote(const Missing& missing) {
  QStringList parts;
  if (missing.allocated)
    parts << tr("No data for %1 in this range: its series are not recorded (a database from "
                "before per-pool and per-team series, or nothing recorded yet).")
                 .arg(scopeLabel(scope()));
  else if (missing.busy && missing.sm && missing.tensor)
    parts << tr("No utilization telemetry for this range: only allocation is shown.");
  else {
    if (missing.busy)
      parts << tr(
          "No busy-GPU telemetry for this range: the busy line and the idle gap are hidden.");
    if (missing.sm)
      parts << tr("No SM-activity telemetry for this range: the effective line is hidden.");
    if (missing.tensor)
      parts << tr("No tensor-activity telemetry for this range: the tensor line is hidden.");
  }
  const QString text = parts.join(QLatin1Char(' '));
  note_->setText(text);
  // Not isVisible(): the note must report its state before the widget is first shown.
  note_->setHidden(text.isEmpty());
}

void UtilizationChart::fitAxes(QChart* chart, QDateTimeAxis* x, QValueAxis* y, Seconds from,
                               Seconds to, double maxValue) {
  Q_UNUSED(chart);
  if (to <= from) to = from + 60;
  x->setRange(QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(axisValue(from))),
              QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(axisValue(to))));
  y->setRange(0, std::max(4.0, maxValue * 1.05));
  y->applyNiceNumbers();  // round ticks: 0, 50, 100 rather than 0, 79, 159
}

void UtilizationChart::setSeries(const MetricSeries& allocated, const MetricSeries& busy,
                                 const MetricSeries& smActive, const MetricSeries& tensorActive) {
  fill(allocated_, allocated);
  fill(busy_, busy);
  fill(effective_, smActive);
  fill(tensor_, tensorActive);
  const Missing missing{allocated.points.empty(), busy.points.empty(), smActive.points.empty(),
                        tensorActive.points.empty()};
  allocated_->setVisible(!missing.allocated);
  busy_->setVisible(!missing.busy);
  effective_->setVisible(!missing.sm);
  tensor_->setVisible(!missing.tensor);
  updateGap(allocated, busy);
  updateNote(missing);

  Seconds from = 0, to = 0;
  bool any = false;
  for (const MetricSeries* m : {&allocated, &busy, &smActive, &tensorActive}) {
    if (m->points.empty()) continue;
    from = any ? std::min(from, m->points.front().time) : m->points.front().time;
    to = any ? std::max(to, m->points.back().time) : m->points.back().time;
    any = true;
  }
  fitAxes(utilView_->chart(), utilX_, utilY_, from, to,
          std::max({maxOf(allocated), maxOf(busy), maxOf(smActive), maxOf(tensorActive)}));
}

void UtilizationChart::updateGap(const MetricSeries& allocated, const MetricSeries& busy) {
  // The gap only where both are known: a missing busy sample is not a busy value of zero.
  std::map<int64_t, double> busyAt;
  for (const auto& p : busy.points) busyAt[p.time] = p.value;
  QList<QPointF> upper, lower;
  for (const auto& p : allocated.points) {
    auto it = busyAt.find(p.time);
    if (it == busyAt.end()) continue;
    upper.append({axisValue(p.time), p.value});
    lower.append({axisValue(p.time), std::min(it->second, p.value)});
  }
  gapUpper_->replace(upper);
  gapLower_->replace(lower);
  gap_->setVisible(!upper.isEmpty());
}

void UtilizationChart::setTeamSeries(const std::vector<std::pair<QString, MetricSeries>>& teams) {
  QChart* c = teamView_->chart();
  c->removeAllSeries();  // deletes the old areas and their lines
  teamAreas_.clear();
  // Every team on the same time grid: a team without a sample at a time held no GPUs then.
  std::set<int64_t> times;
  for (const auto& [team, m] : teams)
    for (const auto& p : m.points) times.insert(p.time);
  std::map<int64_t, double> below;  // the stack's height so far
  for (int64_t t : times) below[t] = 0;
  double top = 0;
  for (const auto& [team, m] : teams) {
    std::map<int64_t, double> value;
    for (const auto& p : m.points) value[p.time] = p.value;
    auto* upper = new QLineSeries(c);
    auto* lower = new QLineSeries(c);
    for (int64_t t : times) {
      const double base = below[t];
      const auto it = value.find(t);
      const double v = base + (it == value.end() ? 0.0 : it->second);
      lower->append(axisValue(t), base);
      upper->append(axisValue(t), v);
      below[t] = v;
      top = std::max(top, v);
    }
    auto* area = new QAreaSeries(upper, lower);
    area->setName(team);
    const QColor color = heatmapTeamColor(team);
    area->setBrush(color);
    area->setPen(QPen(color.darker(130), 1.0));
    c->addSeries(area);
    attach(area, teamX_, teamY_);
    teamAreas_.push_back(area);
  }
  const Seconds from = times.empty() ? 0 : *times.begin();
  const Seconds to = times.empty() ? 0 : *times.rbegin();
  fitAxes(c, teamX_, teamY_, from, to, top);
  arrangeCharts();  // the legend names other teams now: it may need more room
}

// --- MetricFetcher

struct MetricFetcher::Batch {
  MetricFetch fetch;
  QPointer<MetricFetcher> self;
  std::shared_ptr<std::atomic<bool>> alive;
  std::shared_ptr<std::atomic<uint64_t>> generation;
  uint64_t gen = 0;
  MetricQuery base;
  MetricScope scope;
  QStringList pools, teams;  // the scopes the store has series for
  std::mutex mutex;          // guards what follows
  size_t pending = 0;
  std::map<std::string, MetricSeries> results;
  QString error;
};

namespace {

const std::string kAllocated = "gpus_allocated";
const std::string kBusy = "gpus_busy";
const std::string kSmActive = "gpus_sm_active";
const std::string kTensorActive = "gpus_tensor_active";

// Runs `f` with the fetcher on the GUI thread, if it still exists and `gen` is still the latest.
template <typename F>
void deliver(const std::shared_ptr<std::atomic<bool>>& alive, const QPointer<MetricFetcher>& self,
             const std::shared_ptr<std::atomic<uint64_t>>& generation, uint64_t gen, F&& f) {
  if (!*alive) return;
  QMetaObject::invokeMethod(
      QCoreApplication::instance(),
      [alive, self, generation, gen, f = std::forward<F>(f)]() mutable {
        if (*alive && self && *generation == gen) f(*self);
      },
      Qt::QueuedConnection);
}

void fail(const std::shared_ptr<std::atomic<bool>>& alive, const QPointer<MetricFetcher>& self,
          const std::shared_ptr<std::atomic<uint64_t>>& generation, uint64_t gen,
          const QString& message) {
  deliver(alive, self, generation, gen,
          [message](MetricFetcher& f) { emit f.fetchFailed(message); });
}

}  // namespace

MetricFetcher::MetricFetcher(MetricFetch fetch, QObject* parent)
    : QObject(parent), fetch_(std::move(fetch)) {}

MetricFetcher::~MetricFetcher() {
  *alive_ = false;
}

QString MetricFetcher::teamOfSeries(const std::string& name) {
  return labelValue(name, "team_gpus{team=\"");
}

void MetricFetcher::fetch(qint64 from, qint64 to, int maxPoints) {
  auto batch = std::make_shared<Batch>();
  batch->fetch = fetch_;
  batch->self = this;
  batch->alive = alive_;
  batch->generation = generation_;
  batch->gen = ++*generation_;
  batch->scope = scope_;
  batch->base.from = from;
  batch->base.to = to;
  batch->base.maxPoints = static_cast<size_t>(std::max(1, maxPoints));
  QThreadPool::globalInstance()->start([batch] {
    MetricQuery names = batch->base;
    names.series.clear();
    batch->fetch(names, [batch](std::variant<MetricAnswer, ApiError> r) {
      if (const auto* e = std::get_if<ApiError>(&r)) {
        fail(batch->alive, batch->self, batch->generation, batch->gen,
             QString::fromStdString(e->message));
        return;
      }
      queryAll(batch, std::move(std::get<MetricAnswer>(r).names));
    });
  });
}

// One query per series the charts need that the store has; the last reply finishes the batch.
void MetricFetcher::queryAll(const std::shared_ptr<Batch>& batch, std::vector<std::string> names) {
  const MetricScope& scope = batch->scope;
  const std::set<std::string> lines{scope.series(kAllocated), scope.series(kBusy),
                                    scope.series(kSmActive), scope.series(kTensorActive)};
  std::vector<std::string> wanted;
  std::set<QString> pools, teams;  // sorted, each once
  for (auto& n : names) {
    if (const auto s = MetricScope::ofAllocatedSeries(n))
      (s->kind == MetricScope::Kind::Pool ? pools : teams).insert(s->name);
    if (lines.count(n) || !teamOfSeries(n).isEmpty()) wanted.push_back(std::move(n));
  }
  batch->pools = QStringList(pools.begin(), pools.end());
  batch->teams = QStringList(teams.begin(), teams.end());
  batch->pending = wanted.size();
  if (wanted.empty()) {
    finish(batch);
    return;
  }
  for (auto& name : wanted) {
    // Each from the pool: never from inside the session's reply callback.
    QThreadPool::globalInstance()->start([batch, name = std::move(name)] {
      MetricQuery q = batch->base;
      q.series = name;
      batch->fetch(q, [batch, name](std::variant<MetricAnswer, ApiError> r) {
        bool last = false;
        {
          std::lock_guard lock(batch->mutex);
          if (const auto* e = std::get_if<ApiError>(&r))
            batch->error = QString::fromStdString(e->message);
          else
            batch->results[name] = std::move(std::get<MetricAnswer>(r).series);
          last = --batch->pending == 0;
        }
        if (last) finish(batch);
      });
    });
  }
}

void MetricFetcher::finish(const std::shared_ptr<Batch>& batch) {
  std::lock_guard lock(batch->mutex);
  if (!batch->error.isEmpty()) {
    fail(batch->alive, batch->self, batch->generation, batch->gen, batch->error);
    return;
  }
  auto take = [&](const std::string& name) {
    auto it = batch->results.find(name);
    if (it == batch->results.end()) return MetricSeries{name, MetricResolution::Raw, {}};
    return std::move(it->second);
  };
  const MetricScope& scope = batch->scope;
  MetricSeries allocated = take(scope.series(kAllocated)), busy = take(scope.series(kBusy)),
               sm = take(scope.series(kSmActive)), tensor = take(scope.series(kTensorActive));
  std::vector<std::pair<QString, MetricSeries>> teams;
  for (auto& [name, series] : batch->results) {
    const QString team = teamOfSeries(name);
    if (!team.isEmpty()) teams.emplace_back(team, std::move(series));
  }
  deliver(batch->alive, batch->self, batch->generation, batch->gen,
          [allocated = std::move(allocated), busy = std::move(busy), sm = std::move(sm),
           tensor = std::move(tensor), teams = std::move(teams), pools = batch->pools,
           scopeTeams = batch->teams](MetricFetcher& f) {
            emit f.seriesReady(allocated, busy, sm, tensor);
            emit f.teamSeriesReady(teams);
            // Last: a scope that is gone switches the chart back to the cluster and starts a
            // new fetch, which the series above must not overtake.
            emit f.scopesReady(pools, scopeTeams);
          });
}

}  // namespace tessera::widgets
