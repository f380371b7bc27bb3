// Utilization history charts (Qt Charts) and the fetcher that feeds them from a session.
#include "utilization_chart.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLabel>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "heatmap_widget.h"

namespace tessera::widgets {

namespace {

// Line colors: allocation neutral, busy and effective greens, the gap the heatmap's warm tone.
const QColor kAllocatedColor(0x45, 0x5a, 0x8c);
const QColor kBusyColor(0x2e, 0x8b, 0x57);
const QColor kEffectiveColor(0x9a, 0xcd, 0x32);
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

}  // namespace

UtilizationChart::UtilizationChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->hide();
  layout->addWidget(note_);
  buildUtilizationChart();
  buildTeamChart();
  layout->addWidget(utilView_, 3);
  layout->addWidget(teamView_, 2);
}

UtilizationChart::~UtilizationChart() = default;

qreal UtilizationChart::axisValue(Seconds engineTime) {
  // QDateTimeAxis formats in local time: take the local offset out so labels read the engine
  // clock (which has no time zone) unchanged.
  const QDateTime local = QDateTime::fromSecsSinceEpoch(engineTime);
  return static_cast<qreal>(engineTime - local.offsetFromUtc()) * 1000.0;
}

void UtilizationChart::buildUtilizationChart() {
  QChart* c = makeChart(tr("GPUs allocated, busy and effective"));
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
  for (QAbstractSeries* s :
       {static_cast<QAbstractSeries*>(gap_), static_cast<QAbstractSeries*>(allocated_),
        static_cast<QAbstractSeries*>(busy_), static_cast<QAbstractSeries*>(effective_)}) {
    c->addSeries(s);
    attach(s, utilX_, utilY_);
  }
  utilView_ = new QChartView(c, this);
  utilView_->setRenderHint(QPainter::Antialiasing);
}

void UtilizationChart::buildTeamChart() {
  QChart* c = makeChart(tr("GPUs allocated by team"));
  teamX_ = makeTimeAxis(c);
  teamY_ = makeGpuAxis(c, tr("GPUs"));
  teamView_ = new QChartView(c, this);
  teamView_->setRenderHint(QPainter::Antialiasing);
}

QLineSeries* UtilizationChart::line(Line which) const {
  switch (which) {
    case Line::Allocated:
      return allocated_;
    case Line::Busy:
      return busy_;
    case Line::Effective:
      return effective_;
  }
  return nullptr;
}

QString UtilizationChart::telemetryNote() const {
  return note_->isVisible() ? note_->text() : "";
}

void UtilizationChart::updateNote(bool busyMissing, bool smMissing) {
  QString text;
  if (busyMissing && smMissing)
    text = tr("No utilization telemetry for this range: only allocation is shown.");
  else if (busyMissing)
    text = tr("No busy-GPU telemetry for this range: the busy line and the idle gap are hidden.");
  else if (smMissing)
    text = tr("No SM-activity telemetry for this range: the effective line is hidden.");
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
                                 const MetricSeries& smActive) {
  fill(allocated_, allocated);
  fill(busy_, busy);
  fill(effective_, smActive);
  const bool busyMissing = busy.points.empty();
  const bool smMissing = smActive.points.empty();
  busy_->setVisible(!busyMissing);
  effective_->setVisible(!smMissing);
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
  updateNote(busyMissing, smMissing);

  Seconds from = 0, to = 0;
  bool any = false;
  for (const MetricSeries* m : {&allocated, &busy, &smActive}) {
    if (m->points.empty()) continue;
    from = any ? std::min(from, m->points.front().time) : m->points.front().time;
    to = any ? std::max(to, m->points.back().time) : m->points.back().time;
    any = true;
  }
  fitAxes(utilView_->chart(), utilX_, utilY_, from, to,
          std::max({maxOf(allocated), maxOf(busy), maxOf(smActive)}));
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
}

// --- MetricFetcher

struct MetricFetcher::Batch {
  MetricFetch fetch;
  QPointer<MetricFetcher> self;
  std::shared_ptr<std::atomic<bool>> alive;
  std::shared_ptr<std::atomic<uint64_t>> generation;
  uint64_t gen = 0;
  MetricQuery base;
  std::mutex mutex;  // guards what follows
  size_t pending = 0;
  std::map<std::string, MetricSeries> results;
  QString error;
};

namespace {

const std::string kAllocated = "gpus_allocated";
const std::string kBusy = "gpus_busy";
const std::string kSmActive = "gpus_sm_active";

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
  static const std::string prefix = "team_gpus{team=\"";
  static const std::string suffix = "\"}";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return {};
  return QString::fromStdString(
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
}

void MetricFetcher::fetch(qint64 from, qint64 to, int maxPoints) {
  auto batch = std::make_shared<Batch>();
  batch->fetch = fetch_;
  batch->self = this;
  batch->alive = alive_;
  batch->generation = generation_;
  batch->gen = ++*generation_;
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
  std::vector<std::string> wanted;
  for (auto& n : names)
    if (n == kAllocated || n == kBusy || n == kSmActive || !teamOfSeries(n).isEmpty())
      wanted.push_back(std::move(n));
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
  MetricSeries allocated = take(kAllocated), busy = take(kBusy), sm = take(kSmActive);
  std::vector<std::pair<QString, MetricSeries>> teams;
  for (auto& [name, series] : batch->results) {
    const QString team = teamOfSeries(name);
    if (!team.isEmpty()) teams.emplace_back(team, std::move(series));
  }
  deliver(batch->alive, batch->self, batch->generation, batch->gen,
          [allocated = std::move(allocated), busy = std::move(busy), sm = std::move(sm),
           teams = std::move(teams)](MetricFetcher& f) {
            emit f.seriesReady(allocated, busy, sm);
            emit f.teamSeriesReady(teams);
          });
}

}  // namespace tessera::widgets
