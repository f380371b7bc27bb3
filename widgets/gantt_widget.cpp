// The console's job timeline: rows and bars laid out from a snapshot and the active jobs, painted
// by hand (a few hundred bars; Qt Charts has no Gantt series).
#include "gantt_widget.h"

#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "heatmap_widget.h"
#include "idle_gpu_model.h"

namespace tessera::widgets {

namespace {

constexpr double kLabelWidth = 140;
constexpr double kAxisHeight = 22;
constexpr double kLaneHeight = 16;
constexpr double kRowPadding = 3;
constexpr double kRightMargin = 8;
const QColor kNowColor(0xd0, 0x30, 0x30);
const QColor kGridColor(0, 0, 0, 30);
const QColor kPlannedBackground(0xf4, 0xf1, 0xe8);
const QColor kMaintenanceColor(0x6b, 0x6b, 0x6b);

// Greedy interval partitioning: each item goes to the first lane free at its start.
int assignLanes(std::vector<Seconds>& laneEnds, Seconds start, std::optional<Seconds> end) {
  const Seconds stop = end.value_or(std::numeric_limits<Seconds>::max());
  for (size_t l = 0; l < laneEnds.size(); ++l) {
    if (laneEnds[l] <= start) {
      laneEnds[l] = stop;
      return static_cast<int>(l);
    }
  }
  laneEnds.push_back(stop);
  return static_cast<int>(laneEnds.size() - 1);
}

// "HH:MM" of the engine clock's day.
QString hourLabel(Seconds t) {
  const Seconds s = ((t % 86400) + 86400) % 86400;
  return QStringLiteral("%1:%2")
      .arg(s / 3600, 2, 10, QLatin1Char('0'))
      .arg(s / 60 % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

GanttWidget::GanttWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

GanttWidget::~GanttWidget() = default;

void GanttWidget::setData(const ClusterSnapshot& snapshot, const std::vector<JobInfo>& jobs) {
  snapshot_ = snapshot;
  jobs_ = jobs;
  buildRows();
  layoutBars();
  updateGeometry();
  update();
}

void GanttWidget::setTimeWindow(Seconds before, Seconds after) {
  before_ = std::max<Seconds>(before, 60);
  after_ = std::max<Seconds>(after, 60);
  layoutBars();
  update();
}

void GanttWidget::buildRows() {
  rows_.clear();
  // Nodes in snapshot order (fabric order, as the heatmap shows them), then any the snapshot
  // does not know.
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < snapshot_.nodes.size(); ++i) order[snapshot_.nodes[i].name] = i;
  const std::function<NodeKey(const std::string&)> nodeRank = [&](const std::string& n) {
    auto it = order.find(n);
    return NodeKey(it == order.end() ? order.size() : it->second, n);
  };
  std::map<NodeKey, std::vector<Item>> nodes;
  std::map<std::string, std::vector<Item>> planned;
  // A job the snapshot's plan puts on nodes is drawn there, not again in a team's lane.
  std::set<JobId> reserved;
  for (const auto& r : snapshot_.reservations)
    if (r.job != kNoJob) reserved.insert(r.job);
  for (size_t i = 0; i < jobs_.size(); ++i) {
    const JobInfo& j = jobs_[i];
    const auto& est = j.row.job.estimatedRuntime;
    if (j.row.state == JobState::Running) {
      const Seconds start = j.row.startTime;
      const std::optional<Seconds> end = est ? std::optional(start + *est) : std::nullopt;
      std::set<std::string> seen;
      for (const auto& t : j.placement)
        if (seen.insert(t.node).second)
          nodes[nodeRank(t.node)].push_back({i, start, end, false, 0});
    } else if (j.row.state == JobState::Pending && j.eta && !reserved.count(j.row.job.id)) {
      const std::optional<Seconds> end = est ? std::optional(*j.eta + *est) : std::nullopt;
      planned[j.row.job.team].push_back({i, *j.eta, end, true, 0});
    }
  }
  addReservations(nodes, nodeRank);
  auto addRow = [&](QString label, bool isPlanned, std::vector<Item> items) {
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return a.start < b.start; });
    std::vector<Seconds> laneEnds;
    for (auto& it : items) it.lane = assignLanes(laneEnds, it.start, it.end);
    rows_.push_back(
        {std::move(label), isPlanned, std::max<int>(1, int(laneEnds.size())), std::move(items)});
  };
  for (auto& [key, items] : nodes)
    addRow(QString::fromStdString(key.second), false, std::move(items));
  for (auto& [team, items] : planned)
    addRow(tr("planned: %1").arg(QString::fromStdString(team)), true, std::move(items));
}

void GanttWidget::addReservations(
    std::map<NodeKey, std::vector<Item>>& nodes,
    const std::function<NodeKey(const std::string&)>& nodeRank) const {
  for (size_t k = 0; k < snapshot_.reservations.size(); ++k) {
    const ReservationView& r = snapshot_.reservations[k];
    for (const auto& hold : r.nodes) {
      Item it;
      it.start = r.start;
      it.end = r.end;
      it.reservation = static_cast<int>(k);
      nodes[nodeRank(hold.node)].push_back(it);
    }
  }
}

double GanttWidget::rowHeight(const Row& r) const {
  return r.lanes * kLaneHeight + 2 * kRowPadding;
}

double GanttWidget::rowTop(size_t row) const {
  double y = kAxisHeight;
  for (size_t i = 0; i < row && i < rows_.size(); ++i) y += rowHeight(rows_[i]);
  return y;
}

double GanttWidget::xOf(Seconds t) const {
  const double plotWidth = std::max(1.0, width() - kLabelWidth - kRightMargin);
  const double span = static_cast<double>(before_ + after_);
  return kLabelWidth + static_cast<double>(t - (snapshot_.now - before_)) / span * plotWidth;
}

void GanttWidget::layoutBars() {
  bars_.clear();
  const double left = kLabelWidth;
  const double right = width() - kRightMargin;
  double top = kAxisHeight;
  for (size_t r = 0; r < rows_.size(); ++r) {
    const Row& row = rows_[r];
    for (const Item& it : row.items) {
      double x0 = std::max(left, xOf(it.start));
      double x1 = it.end ? std::min(right, xOf(*it.end)) : right;
      if (x1 <= x0) continue;     // entirely outside the window
      x1 = std::max(x1, x0 + 2);  // a very short job is still clickable
      const double y = top + kRowPadding + it.lane * kLaneHeight + 1;
      const JobId job = it.reservation >= 0
                            ? snapshot_.reservations[static_cast<size_t>(it.reservation)].job
                            : jobs_[it.job].row.job.id;
      bars_.push_back({job, static_cast<int>(r), QRectF(x0, y, x1 - x0, kLaneHeight - 2),
                       it.planned, !it.end, it.reservation});
    }
    top += rowHeight(row);
  }
}

QStringList GanttWidget::rowLabels() const {
  QStringList labels;
  for (const auto& r : rows_) labels << r.label;
  return labels;
}

std::optional<JobId> GanttWidget::jobAt(QPointF pos) const {
  // The last painted is on top; an operator's reservation has no job to select.
  for (auto it = bars_.rbegin(); it != bars_.rend(); ++it)
    if (it->rect.contains(pos)) return it->job != kNoJob ? std::optional(it->job) : std::nullopt;
  return std::nullopt;
}

const JobInfo* GanttWidget::jobById(JobId id) const {
  for (const auto& j : jobs_)
    if (j.row.job.id == id) return &j;
  return nullptr;
}

const JobInfo* GanttWidget::jobOf(const Bar& b) const {
  return b.job == kNoJob ? nullptr : jobById(b.job);
}

QString GanttWidget::toolTipAt(QPointF pos) const {
  for (auto it = bars_.rbegin(); it != bars_.rend(); ++it)
    if (it->rect.contains(pos))
      return it->reservation >= 0 ? reservationToolTip(*it) : jobToolTip(*it);
  return {};
}

QString GanttWidget::jobToolTip(const Bar& b) const {
  const JobInfo* j = jobOf(b);
  if (!j) return {};
  const Job& job = j->row.job;
  QString text = tr("Job %1 %2\nTeam %3, %4 task(s), %5 GPUs")
                     .arg(job.id)
                     .arg(QString::fromStdString(job.name), QString::fromStdString(job.team))
                     .arg(job.tasks)
                     .arg(job.gpuDemand(), 0, 'g', 3);
  if (b.planned)
    text += tr("\nPlanned start %1 (in %2)")
                .arg(formatEngineTime(*j->eta))
                .arg(formatDurationShort(std::max<Seconds>(0, *j->eta - snapshot_.now)));
  else
    text += tr("\nStarted %1").arg(formatEngineTime(j->row.startTime));
  if (job.estimatedRuntime)
    text += tr(", estimated runtime %1").arg(formatDurationShort(*job.estimatedRuntime));
  else
    text += tr(", no runtime estimate");
  return text;
}

QString GanttWidget::reservationToolTip(const Bar& b) const {
  const ReservationView& r = snapshot_.reservations[static_cast<size_t>(b.reservation)];
  const QString team = QString::fromStdString(r.team);
  QString text;
  if (r.kind == "backfill") {
    const JobInfo* j = jobById(r.job);
    text = tr("Backfill reservation for job %1 %2\nTeam %3: its planned start, held on these GPUs")
               .arg(r.job)
               .arg(j ? QString::fromStdString(j->row.job.name) : QString(), team);
  } else if (r.kind == "team") {
    text = tr("Reservation %1, held for team %2").arg(QString::fromStdString(r.id), team);
  } else {
    text = tr("Maintenance reservation %1").arg(QString::fromStdString(r.id));
  }
  const QString node = rows_[static_cast<size_t>(b.row)].label;
  QStringList gpus;
  for (const auto& hold : r.nodes)
    if (QString::fromStdString(hold.node) == node)
      for (int g : hold.gpus) gpus << QString::number(g);
  text += tr("\nGPUs %1 on %2").arg(gpus.join(QStringLiteral(", ")), node);
  if (r.start > snapshot_.now)
    text += tr("\nFrom %1 (in %2)")
                .arg(formatEngineTime(r.start))
                .arg(formatDurationShort(r.start - snapshot_.now));
  else
    text += tr("\nSince %1").arg(formatEngineTime(r.start));
  text += r.end ? tr(" until %1").arg(formatEngineTime(*r.end)) : tr(", open-ended");
  return text;
}

QColor GanttWidget::reservationColor(const ReservationView& r) {
  if (r.kind == "maintenance" || r.team.empty()) return kMaintenanceColor;
  return heatmapTeamColor(QString::fromStdString(r.team)).darker(150);
}

QSize GanttWidget::sizeHint() const {
  return {800, static_cast<int>(rowTop(rows_.size())) + 4};
}

bool GanttWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const QString text = toolTipAt(he->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

void GanttWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  layoutBars();
}

void GanttWidget::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton)
    if (const auto job = jobAt(e->position())) emit jobSelected(*job);
  QWidget::mousePressEvent(e);
}

void GanttWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  paintRows(p);
  for (const Bar& b : bars_) paintBar(p, b);
  paintAxis(p);
}

void GanttWidget::paintRows(QPainter& p) const {
  double top = kAxisHeight;
  for (const Row& r : rows_) {
    const double h = rowHeight(r);
    const QRectF band(0, top, width(), h);
    if (r.planned) p.fillRect(band, kPlannedBackground);
    p.setPen(kGridColor);
    p.drawLine(QPointF(0, top + h), QPointF(width(), top + h));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(4, top, kLabelWidth - 8, h), Qt::AlignVCenter | Qt::AlignLeft,
               fontMetrics().elidedText(r.label, Qt::ElideRight, int(kLabelWidth) - 8));
    top += h;
  }
  if (rows_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(0, int(kAxisHeight), 0, 0), Qt::AlignCenter,
               tr("No running jobs, reservations or planned starts"));
  }
}

void GanttWidget::paintBar(QPainter& p, const Bar& b) const {
  if (b.reservation >= 0) {
    paintReservation(p, b);
    return;
  }
  const JobInfo* j = jobOf(b);
  const QColor color = heatmapTeamColor(j ? QString::fromStdString(j->row.job.team) : QString());
  if (b.openEnded) {
    // No estimate: the end is unknown, so the bar fades instead of claiming one.
    QLinearGradient g(b.rect.topLeft(), b.rect.topRight());
    g.setColorAt(0, color);
    g.setColorAt(0.6, color);
    QColor clear = color;
    clear.setAlpha(0);
    g.setColorAt(1, clear);
    p.fillRect(b.rect, g);
  } else if (b.planned) {
    p.fillRect(b.rect, color.lighter(150));
    p.fillRect(b.rect, QBrush(color.darker(140), Qt::BDiagPattern));
    p.setPen(QPen(color.darker(140), 1, Qt::DashLine));
    p.drawRect(b.rect);
  } else {
    p.fillRect(b.rect, color);
    p.setPen(color.darker(130));
    p.drawRect(b.rect);
  }
  // Readable on light and dark team colors alike.
  if (j)
    paintLabel(p, b, QString::number(j->row.job.id),
               b.planned || color.lightnessF() > 0.55 ? Qt::black : Qt::white);
}

void GanttWidget::paintReservation(QPainter& p, const Bar& b) const {
  // Hatched like a planned start, the other diagonal and dotted: time held, not yet used.
  const ReservationView& r = snapshot_.reservations[static_cast<size_t>(b.reservation)];
  const QColor color = reservationColor(r);
  p.fillRect(b.rect, color.lighter(r.kind == "maintenance" ? 160 : 190));
  p.fillRect(b.rect, QBrush(color, Qt::FDiagPattern));
  p.setPen(QPen(color, 1, Qt::DotLine));
  p.drawRect(b.rect);
  paintLabel(p, b, r.job != kNoJob ? QString::number(r.job) : QString::fromStdString(r.id),
             Qt::black);
}

void GanttWidget::paintLabel(QPainter& p, const Bar& b, const QString& text,
                             const QColor& color) const {
  if (b.rect.width() <= 30) return;
  p.setPen(color);
  p.drawText(b.rect.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
             fontMetrics().elidedText(text, Qt::ElideRight, int(b.rect.width()) - 5));
}

void GanttWidget::paintAxis(QPainter& p) const {
  const double bottom = rowTop(rows_.size());
  p.fillRect(QRectF(0, 0, width(), kAxisHeight), palette().window());
  // A tick every hour of engine time, fewer when they would crowd.
  const double perHour = xOf(snapshot_.now + 3600) - xOf(snapshot_.now);
  const Seconds step = 3600 * std::max<Seconds>(1, Seconds(60.0 / std::max(1.0, perHour)) + 1);
  const Seconds first = (snapshot_.now - before_) / step * step + step;
  for (Seconds t = first; t < snapshot_.now + after_; t += step) {
    const double x = xOf(t);
    p.setPen(kGridColor);
    p.drawLine(QPointF(x, kAxisHeight), QPointF(x, bottom));
    if (std::abs(x - xOf(snapshot_.now)) < 50) continue;  // the "now" label is there
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRectF(x - 40, 0, 80, kAxisHeight), Qt::AlignCenter, hourLabel(t));
  }
  const double nowX = xOf(snapshot_.now);
  p.setPen(QPen(kNowColor, 2));
  p.drawLine(QPointF(nowX, kAxisHeight - 4), QPointF(nowX, std::max(bottom, kAxisHeight + 10)));
  p.drawText(QRectF(nowX + 3, 0, 60, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("now"));
}

}  // namespace tessera::widgets
