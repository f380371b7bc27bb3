// The topology heatmap's drag-and-drop (see heatmap_widget.h): a pending job dragged over GPUs
// and nodes, the engine's preview of a drop there (asked once the cursor rests on a target,
// shown as a green or red target and a callout), and the drop itself.
//
// The preview is a round trip through the console: the widget asks (dropPreviewRequested), the
// console dry-runs the pin and answers (setDropPreview). Every new target gets a new generation,
// and an answer counts only while its generation is the current one: the engine may answer
// after the cursor has moved on, and its verdict on the old target must not paint the new one.
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QPainter>

#include <algorithm>

#include "heatmap_widget.h"

namespace tessera::widgets {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// Fixed colors, as the rest of the heatmap: the verdict must read the same in any UI theme.
namespace color {
constexpr QRgb askLine = 0xffff8f00;  // a target the engine has not judged yet
constexpr QRgb okLine = 0xff1b5e20;
constexpr QRgb refusedLine = 0xffb71c1c;
constexpr QRgb calloutFill = 0xf5ffffff;
constexpr QRgb calloutText = 0xff323f4b;
}  // namespace color

// Translucent enough that the tile's own color still shows, strong enough that green or red
// wins over any layer's color.
QColor fillOf(QRgb line) {
  if (line == color::okLine) return {46, 160, 67, 170};
  if (line == color::refusedLine) return {229, 57, 53, 170};
  return {255, 193, 7, 110};
}

QString stateText(const std::string& state) {
  if (state == "down") return HeatmapWidget::tr("down");
  if (state == "draining") return HeatmapWidget::tr("draining");
  if (state == "drained") return HeatmapWidget::tr("drained");
  return qs(state);
}

// Why a pinned job would still wait on `target`, as far as the snapshot shows: the node's
// state, the jobs holding the GPU, a node with every GPU taken. The engine's own reason is not
// in a dry run's answer; these are the causes an operator can see on the map.
QString whyNotThere(const HeatmapDropTarget& target, const ClusterSnapshot& s) {
  const std::string name = target.node.toStdString();
  const auto node = std::find_if(s.nodes.begin(), s.nodes.end(),
                                 [&](const NodeView& n) { return n.name == name; });
  if (node == s.nodes.end())
    return HeatmapWidget::tr("node %1 is not in the cluster").arg(target.node);
  if (node->state != "up")
    return HeatmapWidget::tr("node %1 is %2").arg(target.node, stateText(node->state));
  if (target.gpu >= 0) {
    for (const GpuView& g : node->gpus) {
      if (g.index != target.gpu || g.occupants.empty()) continue;
      QStringList jobs;
      for (const auto& o : g.occupants) jobs << QString::number(o.job);
      return HeatmapWidget::tr("GPU %1/%2 is held by job %3")
          .arg(target.node)
          .arg(target.gpu)
          .arg(jobs.join(QStringLiteral(", ")));
    }
  } else if (std::all_of(node->gpus.begin(), node->gpus.end(),
                         [](const GpuView& g) { return !g.occupants.empty(); })) {
    return HeatmapWidget::tr("every GPU of %1 is in use").arg(target.node);
  }
  return HeatmapWidget::tr("the engine would keep it waiting (its request, quota or queue)");
}

}  // namespace

HeatmapDropPreview heatmapPinPreview(JobId job, const HeatmapDropTarget& target,
                                     const std::variant<CommandResult, QString>& answer,
                                     const ClusterSnapshot& snapshot) {
  if (const auto* refusal = std::get_if<QString>(&answer))
    return {false, HeatmapWidget::tr("Refused: %1").arg(*refusal)};
  const Impact& impact = std::get<CommandResult>(answer).impact;
  if (std::find(impact.started.begin(), impact.started.end(), job) == impact.started.end())
    return {false,
            HeatmapWidget::tr("Would not start there now: %1").arg(whyNotThere(target, snapshot))};
  QString where;
  for (const PlacementChange& p : impact.placementChanges)
    if (p.job == job) where = qs(p.where);
  QString text = where.isEmpty() ? HeatmapWidget::tr("Would start now")
                                 : HeatmapWidget::tr("Would start on %1").arg(where);
  if (!impact.preempted.empty())
    text += QLatin1Char('\n') + HeatmapWidget::tr("preempting %n job(s), %1 GPU-hours lost", "",
                                                  static_cast<int>(impact.preempted.size()))
                                    .arg(impact.gpuHoursLost, 0, 'f', 1);
  return {true, text};
}

// ---------------------------------------------------------------- job mime data

QMimeData* HeatmapWidget::jobMimeData(JobId job) {
  auto* m = new QMimeData;
  m->setData(QString::fromLatin1(kJobMimeType), QByteArray::number(job));
  return m;
}

std::optional<JobId> HeatmapWidget::jobFromMimeData(const QMimeData* mime) {
  if (!mime || !mime->hasFormat(QString::fromLatin1(kJobMimeType))) return std::nullopt;
  bool ok = false;
  const qulonglong id = mime->data(QString::fromLatin1(kJobMimeType)).trimmed().toULongLong(&ok);
  if (!ok || id == kNoJob) return std::nullopt;
  return static_cast<JobId>(id);
}

// ---------------------------------------------------------------- targets and preview

std::optional<HeatmapWidget::Target> HeatmapWidget::targetAt(QPointF viewPos) const {
  const QPointF s = mapToScene(viewPos);
  if (const auto hit = layout_.hitTest(s))
    return Target{layout_.tiles()[static_cast<size_t>(hit->tile)].node, hit->tile};
  if (const auto node = layout_.nodeAt(s)) return Target{*node, -1};
  return std::nullopt;
}

// The cursor of a drag moved: a new target (or a new job) starts a new generation and the
// pause before its preview is asked; the same target only moves the callout.
void HeatmapWidget::dragTo(JobId job, QPointF viewPos) {
  const auto t = targetAt(viewPos);
  HeatmapDropTarget named;
  if (t) {
    named.node = layout_.nodes()[static_cast<size_t>(t->node)].name;
    named.gpu = t->tile >= 0 ? layout_.tiles()[static_cast<size_t>(t->tile)].gpu : -1;
  }
  const bool calloutShown = drag_.asked || drag_.preview;
  drag_.pos = viewPos;
  if (job == drag_.job && named.node == drag_.target.node && named.gpu == drag_.target.gpu) {
    if (calloutShown) update();
    return;
  }
  drag_.job = job;
  named.generation = ++dropGeneration_;
  drag_.target = named;
  drag_.asked = false;
  drag_.preview.reset();
  dropTarget_ = t;
  if (t)
    previewTimer_.start();
  else
    previewTimer_.stop();
  update();
}

void HeatmapWidget::endDrag() {
  previewTimer_.stop();
  drag_ = Drag{};
  ++dropGeneration_;  // answers still out belong to a drag that is over
  dropTarget_.reset();
  update();
}

void HeatmapWidget::askPreview() {
  if (drag_.target.node.isEmpty() || drag_.asked) return;
  drag_.asked = true;
  update();  // the callout says the engine is being asked
  emit dropPreviewRequested(drag_.job, drag_.target);
}

void HeatmapWidget::setDropPreview(const HeatmapDropTarget& target, bool ok, const QString& text) {
  if (drag_.target.node.isEmpty() || target.generation != drag_.target.generation) return;
  drag_.preview = HeatmapDropPreview{ok, text};
  update();
}

std::optional<HeatmapDropPreview> HeatmapWidget::dropPreview() const {
  if (drag_.target.node.isEmpty()) return std::nullopt;
  return drag_.preview;
}

// After a new snapshot the layout indexes change: the target is found again by name. Gone from
// the snapshot, it is no target any more.
void HeatmapWidget::resolveDropTarget() {
  dropTarget_.reset();
  if (drag_.target.node.isEmpty()) return;
  const int node = layout_.nodeOf(drag_.target.node);
  const int tile = drag_.target.gpu >= 0 ? layout_.tileOf(drag_.target.node, drag_.target.gpu) : -1;
  if (node < 0 || (drag_.target.gpu >= 0 && tile < 0)) {
    previewTimer_.stop();
    drag_.target = HeatmapDropTarget{};
    drag_.asked = false;
    drag_.preview.reset();
    return;
  }
  dropTarget_ = Target{node, tile};
}

// The target in the verdict's color (orange while unjudged) and, once asked, a callout beside
// the cursor with the engine's words; it flips to the cursor's other side near the edges.
void HeatmapWidget::paintDrag(QPainter& p) const {
  if (!dropTarget_) return;
  const Target& t = *dropTarget_;
  const QRectF scene = t.tile >= 0 ? layout_.tiles()[static_cast<size_t>(t.tile)].rect
                                   : layout_.nodes()[static_cast<size_t>(t.node)].rect;
  const QRgb line = !drag_.preview      ? color::askLine
                    : drag_.preview->ok ? color::okLine
                                        : color::refusedLine;
  p.setPen(QPen(QColor::fromRgb(line), 2.5));
  p.setBrush(fillOf(line));
  p.drawRect(mapFromScene(scene).adjusted(-1, -1, 1, 1));
  if (!drag_.asked && !drag_.preview) return;

  const QString text = drag_.preview ? drag_.preview->text : tr("Asking the engine…");
  QFont f = font();
  f.setPixelSize(11);
  p.setFont(f);
  const int pad = 6, strip = 4, maxWidth = 300, offset = 16;
  const QRect textRect =
      p.fontMetrics().boundingRect(QRect(0, 0, maxWidth, 2000), Qt::TextWordWrap, text);
  const QSize box(textRect.width() + 2 * pad + strip, textRect.height() + 2 * pad);
  QPoint at = drag_.pos.toPoint() + QPoint(offset, offset);
  if (at.x() + box.width() > width() - 4) at.rx() = drag_.pos.toPoint().x() - offset - box.width();
  if (at.y() + box.height() > height() - 4)
    at.ry() = drag_.pos.toPoint().y() - offset - box.height();
  at = QPoint(std::max(at.x(), 4), std::max(at.y(), 4));
  const QRect r(at, box);
  p.setPen(QPen(QColor::fromRgb(line), 1));
  p.setBrush(QColor::fromRgba(color::calloutFill));
  p.drawRoundedRect(r, 3, 3);
  p.fillRect(QRect(r.topLeft() + QPoint(1, 1), QSize(strip, r.height() - 1)),
             QColor::fromRgb(line));
  p.setPen(QColor::fromRgb(color::calloutText));
  p.drawText(r.adjusted(pad + strip, pad, -pad, -pad), Qt::TextWordWrap, text);
}

// ---------------------------------------------------------------- drag events

void HeatmapWidget::dragEnterEvent(QDragEnterEvent* e) {
  if (jobFromMimeData(e->mimeData()))
    e->acceptProposedAction();
  else
    e->ignore();
}

void HeatmapWidget::dragMoveEvent(QDragMoveEvent* e) {
  const auto job = jobFromMimeData(e->mimeData());
  if (!job) {
    e->ignore();
    return;
  }
  dragTo(*job, e->position());
  // Only over a GPU or node may the job be dropped; elsewhere the cursor says no. A red preview
  // still takes the drop: the engine decides, and its refusal goes to the Activity log.
  if (dropTarget_)
    e->acceptProposedAction();
  else
    e->ignore();
}

void HeatmapWidget::dragLeaveEvent(QDragLeaveEvent* e) {
  endDrag();
  e->accept();
}

void HeatmapWidget::dropEvent(QDropEvent* e) {
  endDrag();
  const auto job = jobFromMimeData(e->mimeData());
  const auto t = targetAt(e->position());
  if (!job || !t) {
    e->ignore();
    return;
  }
  e->acceptProposedAction();
  const QString node = layout_.nodes()[static_cast<size_t>(t->node)].name;
  const int gpu = t->tile >= 0 ? layout_.tiles()[static_cast<size_t>(t->tile)].gpu : -1;
  emit jobDropped(*job, node, gpu);
}

}  // namespace tessera::widgets
