// The topology heatmap widget (see heatmap_widget.h): colors, painting with level of detail, the
// view transform, selection and tooltips. Input is in heatmap_input.cpp, drag-and-drop and its
// preview in heatmap_drag.cpp.
#include "heatmap_widget.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <unordered_map>

#include "engine_text.h"
#include "node_holds_text.h"
#include "service/mps_use.h"

namespace tessera::widgets {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString percent(double v) {
  return HeatmapWidget::tr("%1%").arg(std::lround(v * 100));
}

QString coLocationText(MpsCoLocation c) {
  switch (c) {
    case MpsCoLocation::Team:
      return HeatmapWidget::tr("shared by one team");
    case MpsCoLocation::User:
      return HeatmapWidget::tr("shared by one user");
    case MpsCoLocation::Any:
      return HeatmapWidget::tr("shared by anyone");
  }
  return {};
}

// "MPS 2/48 · 75/100%": a server's clients of its limit, active threads handed out of its budget.
QString mpsShareText(const MpsServerUse& u, const GpuView::Mps& m) {
  return HeatmapWidget::tr("MPS %1/%2 · %3/%4%")
      .arg(u.clients)
      .arg(m.clientLimit)
      .arg(u.threads)
      .arg(m.threadBudget);
}

// A server in the tooltip: clients, active threads of the budget, pinned memory, who may share,
// and, for the GPU's own server under node_sharing one, that the node serves one GPU at a time.
QString mpsServerText(const MpsServerUse& u, const GpuView::Mps& m) {
  const QString where = u.instanceStart < 0
                            ? HeatmapWidget::tr("MPS server")
                            : HeatmapWidget::tr("MPS server of instance @%1").arg(u.instanceStart);
  QString text =
      HeatmapWidget::tr("%1: %2 of %3 clients · %4% of %5% active threads · %6 MiB pinned · %7")
          .arg(where)
          .arg(u.clients)
          .arg(m.clientLimit)
          .arg(u.threads)
          .arg(m.threadBudget)
          .arg(u.memoryMiB)
          .arg(coLocationText(m.coLocation));
  if (u.instanceStart < 0 && m.nodeSharing == MpsNodeSharing::One)
    text += QStringLiteral(" · ") + HeatmapWidget::tr("one GPU per node at a time");
  return text;
}

// What an occupant holds, for the tooltip: a MIG profile, an MPS client's limits or a share.
QString occupantShareText(const GpuView::Occupant& o) {
  if (o.mps())
    return HeatmapWidget::tr("MPS %1% active threads, %2 MiB pinned")
        .arg(o.mpsThreads)
        .arg(o.mpsMemoryMiB);
  if (!o.migProfile.empty()) return qs(o.migProfile).toHtmlEscaped();
  return HeatmapWidget::tr("%1 GPU").arg(o.milli / 1000.0, 0, 'g', 3);
}

// Fixed scene colors: the heatmap is a chart, its meaning must not change with the UI theme.
namespace color {
constexpr QRgb background = 0xffe4e7eb;
constexpr QRgb spineFill = 0xffeceff2;
constexpr QRgb spineLine = 0xff9aa5b1;
constexpr QRgb leafFill = 0xfff5f7fa;
constexpr QRgb leafLine = 0xffb8c2cc;
constexpr QRgb domainLine = 0xff0f8f84;
constexpr QRgb nodeFill = 0xffffffff;
constexpr QRgb nodeLine = 0xffcbd2d9;
constexpr QRgb text = 0xff323f4b;
constexpr QRgb missing = 0xffb4b4b4;
constexpr QRgb missingHatch = 0xff6e6e6e;
constexpr QRgb unpartitioned = 0xfff6f7f9;
constexpr QRgb instanceLine = 0xff52606d;
constexpr QRgb teamFree = 0xffe6e9ec;
constexpr QRgb teamUnknown = 0xff8d99a6;
constexpr QRgb up = 0xffa8d5a2;
constexpr QRgb draining = 0xffffd166;
constexpr QRgb drained = 0xfff08a24;
constexpr QRgb down = 0xffd64545;
constexpr QRgb fault = 0xff8e24aa;  // a GPU taken out by an Xid: apart from every node state
constexpr QRgb unknownState = 0xffb0b7bf;
constexpr QRgb selection = 0xff1565c0;
constexpr QRgb jobHighlight = 0xffd6007e;
constexpr QRgb hover = 0xff1f2933;
constexpr QRgb numaFill = 0xffe9edf1;
constexpr QRgb numaLine = 0xffb8c2cc;
constexpr QRgb mpsThreads = 0xff2f9e44;  // an MPS server's active threads handed out
constexpr QRgb mpsTrack = 0xfff8f9fa;    // the rest of its thread budget
}  // namespace color

struct Stop {
  double at;
  QRgb rgb;
};

// Sequential scales, light (low) to dark (high); every 0 color differs from the node fill and
// from missing telemetry so "idle" never reads as "unknown".
constexpr std::array<Stop, 3> kAllocation{{{0, 0xffdde6ef}, {0.5, 0xff6baed6}, {1, 0xff08306b}}};
constexpr std::array<Stop, 3> kUtil{{{0, 0xffe5f5e0}, {0.5, 0xff74c476}, {1, 0xff00441b}}};
constexpr std::array<Stop, 3> kSm{{{0, 0xffebe9f4}, {0.5, 0xff9e9ac8}, {1, 0xff3f007d}}};
constexpr std::array<Stop, 3> kTensor{{{0, 0xfffff5eb}, {0.5, 0xfffd8d3c}, {1, 0xff7f2704}}};
constexpr std::array<Stop, 3> kMemory{{{0, 0xffe0f3f8}, {0.5, 0xff41b6c4}, {1, 0xff0c2c84}}};
constexpr std::array<Stop, 3> kPower{{{0, 0xffffffcc}, {0.5, 0xfffeb24c}, {1, 0xffbd0026}}};
constexpr std::array<Stop, 3> kTemperature{
    {{0, 0xffabd9e9}, {0.5, 0xfffee090}, {1, 0xffd73027}}};  // cool blue to hot red
constexpr std::array<Stop, 3> kGap{{{0, 0xfffde8df}, {0.5, 0xfffb6a4a}, {1, 0xffa50f15}}};
constexpr std::array<Stop, 3> kFragmentation{{{0, 0xfff7f4f9}, {0.5, 0xffdf65b0}, {1, 0xff67001f}}};

QRgb interpolate(std::span<const Stop> stops, double v) {
  v = std::clamp(v, 0.0, 1.0);
  size_t i = 1;
  while (i + 1 < stops.size() && v > stops[i].at) ++i;
  const Stop& a = stops[i - 1];
  const Stop& b = stops[i];
  const double t = (v - a.at) / (b.at - a.at);
  auto mix = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
  return qRgb(mix(qRed(a.rgb), qRed(b.rgb)), mix(qGreen(a.rgb), qGreen(b.rgb)),
              mix(qBlue(a.rgb), qBlue(b.rgb)));
}

std::span<const Stop> scaleOf(HeatmapLayer layer) {
  switch (layer) {
    case HeatmapLayer::Utilization:
      return kUtil;
    case HeatmapLayer::SmActive:
      return kSm;
    case HeatmapLayer::TensorActive:
      return kTensor;
    case HeatmapLayer::MemoryUsed:
      return kMemory;
    case HeatmapLayer::Power:
      return kPower;
    case HeatmapLayer::Temperature:
      return kTemperature;
    case HeatmapLayer::Gap:
      return kGap;
    case HeatmapLayer::Fragmentation:
      return kFragmentation;
    default:
      return kAllocation;
  }
}

// FNV-1a over the UTF-8 bytes: unlike qHash it is the same in every process and Qt version, so a
// team keeps its color across sessions and screenshots.
uint32_t stableHash(const QByteArray& bytes) {
  uint32_t h = 2166136261u;
  for (char c : bytes) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h;
}

enum class NodeState : quint8 { Up, Draining, Drained, Down, Unknown };

NodeState nodeStateOf(const NodeView& n) {
  if (n.state == "up") return NodeState::Up;
  if (n.state == "down") return NodeState::Down;
  if (n.state == "drained") return NodeState::Drained;
  if (n.state != "draining") return NodeState::Unknown;
  // Draining with nothing left running is drained: the node is ready for maintenance.
  const bool busy = std::any_of(n.gpus.begin(), n.gpus.end(),
                                [](const GpuView& g) { return !g.occupants.empty(); });
  return busy ? NodeState::Draining : NodeState::Drained;
}

QRgb stateColor(NodeState s) {
  switch (s) {
    case NodeState::Up:
      return color::up;
    case NodeState::Draining:
      return color::draining;
    case NodeState::Drained:
      return color::drained;
    case NodeState::Down:
      return color::down;
    case NodeState::Unknown:
      break;
  }
  return color::unknownState;
}

QString stateName(NodeState s) {
  switch (s) {
    case NodeState::Up:
      return HeatmapWidget::tr("up");
    case NodeState::Draining:
      return HeatmapWidget::tr("draining");
    case NodeState::Drained:
      return HeatmapWidget::tr("drained");
    case NodeState::Down:
      return HeatmapWidget::tr("down");
    case NodeState::Unknown:
      break;
  }
  return HeatmapWidget::tr("unknown");
}

// The layer's value of a GPU; nullopt = no telemetry.
std::optional<double> layerValue(HeatmapLayer layer, const GpuView& g) {
  switch (layer) {
    case HeatmapLayer::Utilization:
      return g.util;
    case HeatmapLayer::SmActive:
      return g.smActive;
    case HeatmapLayer::TensorActive:
      return g.tensorActive;
    case HeatmapLayer::MemoryUsed:
      return g.memoryUsed;
    case HeatmapLayer::Power:
      return g.power;
    case HeatmapLayer::Temperature:
      if (!g.temperatureC) return std::nullopt;
      return std::clamp((*g.temperatureC - kHeatmapTemperatureMinC) /
                            (kHeatmapTemperatureMaxC - kHeatmapTemperatureMinC),
                        0.0, 1.0);
    case HeatmapLayer::Gap:
      if (!g.util) return std::nullopt;
      return std::clamp(g.allocated - *g.util, 0.0, 1.0);
    default:
      return std::clamp(g.allocated, 0.0, 1.0);
  }
}

bool isTelemetryLayer(HeatmapLayer l) {
  switch (l) {
    case HeatmapLayer::Utilization:
    case HeatmapLayer::SmActive:
    case HeatmapLayer::TensorActive:
    case HeatmapLayer::MemoryUsed:
    case HeatmapLayer::Power:
    case HeatmapLayer::Temperature:
    case HeatmapLayer::Gap:
      return true;
    case HeatmapLayer::Allocation:
    case HeatmapLayer::Team:
    case HeatmapLayer::Fragmentation:
    case HeatmapLayer::Health:
      break;
  }
  return false;
}

QBrush hatchBrush() {
  return {QColor::fromRgb(color::missingHatch), Qt::BDiagPattern};
}

// Level-of-detail thresholds, in pixels of a tile's edge on screen.
constexpr double kInstanceDetailPx = 14;
constexpr double kNodeOutlinePx = 4;
constexpr double kDomainOutlinePx = 8;
constexpr double kGpuTextPx = 28;
constexpr double kInstanceTextPx = 44;
constexpr double kLabelMinPx = 8;
constexpr double kMpsBand = 0.2;  // the MPS gauge's height, of the tile's

}  // namespace

QColor heatmapTeamColor(const QString& team) {
  if (team.isEmpty()) return QColor::fromRgb(color::teamUnknown);
  const uint32_t h = stableHash(team.toUtf8());
  // Spread hues by the golden angle so similar hashes still land apart.
  const int hue = static_cast<int>((h % 360u) * 137u % 360u);
  const int sat = 120 + static_cast<int>((h >> 9) % 100u);
  const int val = 165 + static_cast<int>((h >> 17) % 70u);
  // Rounded to 8 bits a channel: the color painted is the color reported.
  return QColor::fromRgb(QColor::fromHsv(hue, sat, val).rgb());
}

QColor heatmapScaleColor(HeatmapLayer layer, double v) {
  return QColor::fromRgb(interpolate(scaleOf(layer), v));
}

QString heatmapLayerName(HeatmapLayer layer) {
  switch (layer) {
    case HeatmapLayer::Allocation:
      return HeatmapWidget::tr("Allocation");
    case HeatmapLayer::Team:
      return HeatmapWidget::tr("Owning team");
    case HeatmapLayer::Utilization:
      return HeatmapWidget::tr("GPU utilization");
    case HeatmapLayer::SmActive:
      return HeatmapWidget::tr("SM active");
    case HeatmapLayer::TensorActive:
      return HeatmapWidget::tr("Tensor active");
    case HeatmapLayer::MemoryUsed:
      return HeatmapWidget::tr("Memory used");
    case HeatmapLayer::Power:
      return HeatmapWidget::tr("Power");
    case HeatmapLayer::Temperature:
      return HeatmapWidget::tr("Temperature");
    case HeatmapLayer::Gap:
      return HeatmapWidget::tr("Allocated but idle");
    case HeatmapLayer::Fragmentation:
      return HeatmapWidget::tr("Fragmentation (free, unusable for pending work)");
    case HeatmapLayer::Health:
      return HeatmapWidget::tr("Health (GPU faults, node state)");
  }
  return {};
}

// ---------------------------------------------------------------- painting

// One paint of the widget: frames, node boxes, tiles batched by color, detail that the zoom
// allows, overlays and the legend. Everything is mapped to view coordinates first so pens and
// text keep their pixel sizes at any zoom.
class HeatmapWidget::Painter {
 public:
  Painter(HeatmapWidget& w, QPainter& p, const QRect& exposed)
      : w_(w),
        p_(p),
        exposed_(exposed),
        layout_(w.layout_),
        tilePx_(layout_.params().tile * w.zoom_) {
    const QPointF a = w.mapToScene(exposed.topLeft());
    const QPointF b = w.mapToScene(exposed.bottomRight() + QPoint(1, 1));
    sceneExposed_ = QRectF(a, b).normalized();
  }

  void run() {
    backdrop();
    layout_.tilesIn(sceneExposed_, w_.visibleTiles_);
    layout_.nodesIn(sceneExposed_, w_.visibleNodes_);
    tiles();
    if (tilePx_ >= kInstanceDetailPx) details();
    if (w_.layer_ != HeatmapLayer::Health && tilePx_ >= kNodeOutlinePx) faultMarks();
    if (tilePx_ >= kDomainOutlinePx) nodeDomains();
    nodeLabels();
    overlays();
    if (w_.legendVisible_) legend();
    w_.paintDrag(p_);  // last: the preview's callout goes over the legend
  }

 private:
  // What lies under the tiles, copied from the widget's Backdrop; painted anew, for the whole
  // widget, when the layout, a node's state or the view changed since.
  void backdrop() {
    const qreal dpr = p_.device()->devicePixelRatioF();
    const QSize pixels = (QSizeF(w_.size()) * dpr).toSize();
    if (pixels.isEmpty()) return;
    Backdrop& b = w_.backdrop_;
    if (b.image.size() != pixels || b.image.devicePixelRatioF() != dpr || b.zoom != w_.zoom_ ||
        b.offset != w_.offset_ || b.fingerprint != w_.backdropFingerprint_) {
      // Opaque: copied without blending.
      if (b.image.size() != pixels) b.image = QImage(pixels, QImage::Format_RGB32);
      b.image.setDevicePixelRatio(dpr);
      QPainter onImage(&b.image);
      Painter(w_, onImage, w_.rect()).underTiles();
      b.zoom = w_.zoom_;
      b.offset = w_.offset_;
      b.fingerprint = w_.backdropFingerprint_;
    }
    const QRectF source(QPointF(exposed_.topLeft()) * dpr, QSizeF(exposed_.size()) * dpr);
    p_.drawImage(QRectF(exposed_), b.image, source);
  }

  void underTiles() {
    p_.fillRect(exposed_, QColor::fromRgb(color::background));
    layout_.nodesIn(sceneExposed_, w_.visibleNodes_);
    frames(layout_.spines(), color::spineFill, color::spineLine, false);
    frames(layout_.leaves(), color::leafFill, color::leafLine, true);
    domainFrames();
    nodes();
    if (tilePx_ >= kDomainOutlinePx) numaZones();
  }

  QRectF view(const QRectF& scene) const { return w_.mapFromScene(scene); }
  QColor rgb(QRgb c) const { return QColor::fromRgb(c); }

  // Fixed pixel font for labels: `px` tall, clamped to what reads well.
  void setFontPx(double px) {
    QFont f = w_.font();
    f.setPixelSize(std::clamp(static_cast<int>(px), 7, 14));
    p_.setFont(f);
  }

  void label(const QRectF& headerView, const QString& text, QRgb c) {
    if (headerView.height() < kLabelMinPx || headerView.width() < 24) return;
    setFontPx(headerView.height() * 0.75);
    p_.setPen(rgb(c));
    p_.drawText(headerView.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                p_.fontMetrics().elidedText(text, Qt::ElideRight,
                                            static_cast<int>(headerView.width()) - 8));
  }

  // A frame without a name is drawn only for leaves (it still groups nodes); nodes without a
  // spine need no frame around them.
  void frames(const std::vector<HeatmapFrame>& list, QRgb fill, QRgb line, bool unnamedToo) {
    p_.setPen(QPen(rgb(line), 1));
    p_.setBrush(rgb(fill));
    for (const HeatmapFrame& f : list) {
      if (!f.rect.intersects(sceneExposed_)) continue;
      if (f.name.isEmpty() && !unnamedToo) continue;
      p_.drawRect(view(f.rect));
    }
    for (const HeatmapFrame& f : list)
      if (f.rect.intersects(sceneExposed_) && !f.name.isEmpty())
        label(view(f.header), f.name, color::text);
  }

  void domainFrames() {
    QPen pen(rgb(color::domainLine), 1.5, Qt::DashLine);
    p_.setPen(pen);
    p_.setBrush(Qt::NoBrush);
    for (const HeatmapFrame& f : layout_.domains())
      if (f.rect.intersects(sceneExposed_)) p_.drawRect(view(f.rect));
    for (const HeatmapFrame& f : layout_.domains())
      if (f.rect.intersects(sceneExposed_))
        label(view(f.header), tr("NVLink %1").arg(f.name), color::domainLine);
  }

  void nodes() {
    p_.setBrush(rgb(color::nodeFill));
    if (tilePx_ < kNodeOutlinePx) {
      p_.setPen(Qt::NoPen);
      rects_.clear();
      for (int n : w_.visibleNodes_) rects_.push_back(view(layout_.nodes()[size_t(n)].rect));
      p_.drawRects(rects_.data(), static_cast<int>(rects_.size()));
      return;
    }
    for (int n : w_.visibleNodes_) {
      const NodeState s = static_cast<NodeState>(w_.nodeState_[static_cast<size_t>(n)]);
      const bool alert = s == NodeState::Down || s == NodeState::Drained;
      p_.setPen(QPen(rgb(s == NodeState::Up ? color::nodeLine : stateColor(s)), alert ? 2 : 1));
      p_.drawRect(view(layout_.nodes()[static_cast<size_t>(n)].rect));
    }
  }

  // A light block behind each NUMA zone's tiles: the tiles cover it but for the gaps, so what
  // shows is a thin frame per zone with the wider NUMA gap between zones.
  void numaZones() {
    rects_.clear();
    for (int n : w_.visibleNodes_) {
      const HeatmapNodeBox& b = layout_.nodes()[static_cast<size_t>(n)];
      for (int z = 0; z < b.zoneCount; ++z)
        rects_.push_back(view(layout_.numaZones()[static_cast<size_t>(b.firstZone + z)].rect));
    }
    if (rects_.empty()) return;
    p_.setPen(QPen(rgb(color::numaLine), 1));
    p_.setBrush(rgb(color::numaFill));
    p_.drawRects(rects_.data(), static_cast<int>(rects_.size()));
  }

  // The tile's fill at this zoom; hatched = missing telemetry.
  struct Look {
    QRgb fill;
    bool hatched = false;
  };

  Look look(int tile) const {
    const GpuView& g = w_.gpuOf(tile);
    const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(tile)];
    switch (w_.layer_) {
      case HeatmapLayer::Team:
        return {w_.tileTeam_[static_cast<size_t>(tile)]};
      case HeatmapLayer::Health:
        if (g.fault) return {color::fault};
        return {stateColor(static_cast<NodeState>(w_.nodeState_[static_cast<size_t>(t.node)]))};
      case HeatmapLayer::Fragmentation:
        return {interpolate(kFragmentation, std::round(w_.tileFragmentation(tile) * 64) / 64)};
      default:
        break;
    }
    const std::optional<double> v = layerValue(w_.layer_, g);
    if (!v) return {color::missing, true};
    // 64 steps are indistinguishable from a continuous scale and keep the brush changes few.
    return {interpolate(scaleOf(w_.layer_), std::round(*v * 64) / 64)};
  }

  // Each tile's fill for the layer shown, and the tiles in fill order: kept until the snapshot,
  // the layer or the demand changes (HeatmapWidget::Fills).
  void computeFills() {
    Fills& f = w_.fills_;
    const size_t n = layout_.tiles().size();
    f.fill.resize(n);
    f.hatched.resize(n);
    f.byFill.resize(n);
    for (size_t k = 0; k < n; ++k) {
      const Look l = look(static_cast<int>(k));
      f.fill[k] = l.fill;
      f.hatched[k] = l.hatched ? 1 : 0;
      f.byFill[k] = static_cast<int>(k);
    }
    std::stable_sort(f.byFill.begin(), f.byFill.end(), [&f](int a, int b) {
      return f.fill[static_cast<size_t>(a)] < f.fill[static_cast<size_t>(b)];
    });
    f.valid = true;
  }

  // Every exposed tile, batched by color: one brush change per color, not per tile.
  void tiles() {
    if (!w_.fills_.valid) computeFills();
    const Fills& f = w_.fills_;
    hatched_.clear();
    p_.setPen(Qt::NoPen);
    for (size_t i = 0; i < f.byFill.size();) {
      const QRgb fill = f.fill[static_cast<size_t>(f.byFill[i])];
      rects_.clear();
      for (; i < f.byFill.size() && f.fill[static_cast<size_t>(f.byFill[i])] == fill; ++i) {
        const auto k = static_cast<size_t>(f.byFill[i]);
        const QRectF& scene = layout_.tiles()[k].rect;
        if (!scene.intersects(sceneExposed_)) continue;
        rects_.push_back(view(scene));
        if (f.hatched[k]) hatched_.push_back(rects_.back());
      }
      if (rects_.empty()) continue;
      p_.setBrush(rgb(fill));
      p_.drawRects(rects_.data(), static_cast<int>(rects_.size()));
    }
    if (!hatched_.empty()) {
      p_.setBrush(hatchBrush());
      p_.drawRects(hatched_.data(), static_cast<int>(hatched_.size()));
    }
  }

  // A faulted GPU keeps a corner in the fault color on every layer, so a fault is seen whatever
  // the operator is looking at.
  void faultMarks() {
    p_.setPen(Qt::NoPen);
    p_.setBrush(rgb(color::fault));
    for (int k : w_.faultTiles_) {
      const QRectF& scene = layout_.tiles()[static_cast<size_t>(k)].rect;
      if (!scene.intersects(sceneExposed_)) continue;
      const QRectF r = view(scene);
      const double side = std::max(3.0, r.width() * 0.4);
      const QPointF corner[3] = {r.topRight(), r.topRight() - QPointF(side, 0),
                                 r.topRight() + QPointF(0, side)};
      p_.drawPolygon(corner, 3);
    }
  }

  // Zoomed in: MIG instances as sub-tiles, shared GPUs split by team, GPU numbers.
  void details() {
    for (int k : w_.visibleTiles_) {
      const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(k)];
      if (t.slices > 0)
        migTile(k);
      else if (w_.layer_ == HeatmapLayer::Team)
        sharedTeams(k);
      if (t.slices == 0) mpsGauge(k);
    }
    if (tilePx_ < kGpuTextPx) return;
    setFontPx(tilePx_ * 0.3);
    for (int k : w_.visibleTiles_) {
      const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(k)];
      const QRectF r = view(t.rect);
      const QRgb fill = look(k).fill;
      p_.setPen(qGray(fill) < 128 ? Qt::white : rgb(color::text));
      if (t.slices > 0 && tilePx_ >= kInstanceTextPx)
        p_.drawText(r.adjusted(2, 1, -2, -1), Qt::AlignLeft | Qt::AlignTop, QString::number(t.gpu));
      else if (t.slices == 0)
        p_.drawText(r, Qt::AlignCenter, QString::number(t.gpu));
      if (tilePx_ >= kInstanceTextPx) mpsLabel(k, r);
    }
  }

  // An MPS GPU: a band along the tile's foot, filled as far as its server has handed out its
  // thread budget - unlike time-sliced stripes (one per job) or MIG sub-tiles.
  void mpsGauge(int k) {
    const GpuView& g = w_.gpuOf(k);
    const auto server = gpuMpsServer(g);
    if (!server) return;
    const QRectF r = view(layout_.tiles()[static_cast<size_t>(k)].rect);
    const double h = std::max(3.0, r.height() * kMpsBand);
    const QRectF band(r.left(), r.bottom() - h, r.width(), h);
    const double used = std::clamp(server->threads / double(g.mps->threadBudget), 0.0, 1.0);
    p_.setPen(Qt::NoPen);
    p_.setBrush(rgb(color::mpsTrack));
    p_.drawRect(band);
    p_.setBrush(rgb(color::mpsThreads));
    p_.drawRect(QRectF(band.left(), band.top(), band.width() * used, band.height()));
  }

  // "MPS 2/48 · 75/100%" above the gauge, or as much of it as the tile has room for.
  void mpsLabel(int k, const QRectF& r) {
    const GpuView& g = w_.gpuOf(k);
    const auto server = gpuMpsServer(g);
    if (!server) return;
    const QRectF box = r.adjusted(2, 1, -2, -r.height() * kMpsBand);
    const QString clients = QStringLiteral("%1/%2").arg(server->clients).arg(g.mps->clientLimit);
    for (const QString& text : {mpsShareText(*server, *g.mps), tr("MPS %1").arg(clients), clients})
      if (p_.fontMetrics().horizontalAdvance(text) <= box.width()) {
        p_.drawText(box, Qt::AlignHCenter | Qt::AlignBottom, text);
        return;
      }
  }

  void migTile(int k) {
    const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(k)];
    const GpuView& g = w_.gpuOf(k);
    const auto inst = layout_.instances(k);
    const bool fills = w_.layer_ == HeatmapLayer::Allocation || w_.layer_ == HeatmapLayer::Team;
    if (fills) {
      // The instances carry the colors; slices no instance covers stay blank.
      p_.setPen(Qt::NoPen);
      p_.setBrush(rgb(color::unpartitioned));
      p_.drawRect(view(t.rect));
    }
    for (size_t i = 0; i < inst.size(); ++i) {
      const QRectF r = view(layout_.instanceRect(k, static_cast<int>(i))).adjusted(1, 1, -1, -1);
      if (fills) {
        p_.setBrush(rgb(instanceFill(g, inst[i])));
      } else {
        p_.setBrush(Qt::NoBrush);
      }
      p_.setPen(QPen(rgb(color::instanceLine), 1));
      p_.drawRect(r);
      if (tilePx_ >= kInstanceTextPx && r.width() >= kInstanceTextPx) instanceText(r, inst[i], k);
    }
  }

  QRgb instanceFill(const GpuView& g, const HeatmapInstance& i) const {
    const bool busy = i.occupant >= 0;
    if (w_.layer_ == HeatmapLayer::Allocation) return interpolate(kAllocation, busy ? 1 : 0);
    if (!busy) return color::teamFree;
    return heatmapTeamColor(qs(g.occupants[static_cast<size_t>(i.occupant)].team)).rgb();
  }

  void instanceText(const QRectF& r, const HeatmapInstance& i, int tile) {
    const GpuView& g = w_.gpuOf(tile);
    setFontPx(std::min(r.height() * 0.22, 12.0));
    const QRgb fill = w_.layer_ == HeatmapLayer::Allocation || w_.layer_ == HeatmapLayer::Team
                          ? instanceFill(g, i)
                          : look(tile).fill;
    p_.setPen(qGray(fill) < 128 ? Qt::white : rgb(color::text));
    QString text = i.profile;
    if (i.occupant >= 0)
      text +=
          QLatin1Char('\n') + tr("job %1").arg(g.occupants[static_cast<size_t>(i.occupant)].job);
    p_.drawText(r.adjusted(2, 0, -2, 0), Qt::AlignCenter | Qt::TextWrapAnywhere, text);
  }

  // A time-sliced GPU shared by several jobs: stripes top to bottom, as tall as each share.
  void sharedTeams(int k) {
    const GpuView& g = w_.gpuOf(k);
    if (g.occupants.size() < 2) return;
    const QRectF r = view(layout_.tiles()[static_cast<size_t>(k)].rect);
    double total = 0;
    for (const auto& o : g.occupants) total += o.milli;
    double y = r.top();
    p_.setPen(Qt::NoPen);
    for (const auto& o : g.occupants) {
      const double h = r.height() * o.milli / std::max(total, 1.0);
      p_.setBrush(heatmapTeamColor(qs(o.team)));
      p_.drawRect(QRectF(r.left(), y, r.width(), h));
      y += h;
    }
  }

  void nodeDomains() {
    p_.setPen(QPen(rgb(color::domainLine), 1));
    p_.setBrush(Qt::NoBrush);
    for (const HeatmapDomainOutline& d : layout_.nodeDomains())
      if (d.rect.intersects(sceneExposed_)) p_.drawRect(view(d.rect));
  }

  void nodeLabels() {
    if (layout_.params().nodeHeader * w_.zoom_ < kLabelMinPx) return;
    for (int n : w_.visibleNodes_) {
      const HeatmapNodeBox& b = layout_.nodes()[static_cast<size_t>(n)];
      label(view(b.header), b.name, color::text);
    }
  }

  void outline(const std::vector<QRectF>& rects, QRgb c, double width) {
    if (rects.empty()) return;
    p_.setPen(QPen(rgb(c), width));
    p_.setBrush(Qt::NoBrush);
    p_.drawRects(rects.data(), static_cast<int>(rects.size()));
  }

  void overlays() {
    std::vector<QRectF> selected, job;
    for (int k : w_.visibleTiles_) {
      const quint8 f = w_.tileFlags_[static_cast<size_t>(k)];
      const QRectF r = view(layout_.tiles()[static_cast<size_t>(k)].rect);
      if (f & Selected) selected.push_back(r.adjusted(0.5, 0.5, -0.5, -0.5));
      if (f & JobHighlighted) job.push_back(r.adjusted(-1.5, -1.5, 1.5, 1.5));
    }
    outline(job, color::jobHighlight, 2.5);
    outline(selected, color::selection, 2);
    if (w_.hoverTile_ >= 0)
      outline({view(layout_.tiles()[static_cast<size_t>(w_.hoverTile_)].rect)}, color::hover, 1);
    if (w_.gesture_ == Gesture::RubberBand) {
      p_.setPen(QPen(rgb(color::selection), 1));
      p_.setBrush(QColor(21, 101, 192, 40));
      p_.drawRect(w_.band_);
    }
  }

  // Bottom left: the layer's name and its swatches, wrapping within a fixed width.
  void legend() {
    const auto entries = w_.legend();
    setFontPx(11);
    const QFontMetrics fm = p_.fontMetrics();
    const int sw = 12, gap = 10, line = std::max(fm.height(), sw) + 4, maxWidth = 380;
    int x = 0, rows = 1, width = fm.horizontalAdvance(heatmapLayerName(w_.layer_));
    std::vector<QPoint> at;
    for (const auto& e : entries) {
      const int ew = sw + 4 + fm.horizontalAdvance(e.label);
      if (x > 0 && x + ew > maxWidth) x = 0, ++rows;
      at.emplace_back(x, rows * line);
      x += ew + gap;
      width = std::max(width, x - gap);
    }
    const QRect box(8, w_.height() - 8 - (rows + 1) * line - 8, width + 16, (rows + 1) * line + 8);
    p_.setPen(QPen(rgb(color::leafLine), 1));
    p_.setBrush(QColor(255, 255, 255, 230));
    p_.drawRect(box);
    p_.setPen(rgb(color::text));
    p_.drawText(QRect(box.left() + 8, box.top() + 4, width, line), Qt::AlignVCenter,
                heatmapLayerName(w_.layer_));
    for (size_t i = 0; i < entries.size(); ++i) {
      const QPoint o = box.topLeft() + QPoint(8, 4) + at[i];
      const QRect swatch(o.x(), o.y() + (line - sw) / 2, sw, sw);
      p_.setPen(QPen(rgb(color::instanceLine), 1));
      p_.setBrush(entries[i].color);
      p_.drawRect(swatch);
      if (entries[i].hatched) p_.fillRect(swatch, hatchBrush());
      p_.setPen(rgb(color::text));
      p_.drawText(QRect(o.x() + sw + 4, o.y(), maxWidth, line), Qt::AlignVCenter, entries[i].label);
    }
  }

  HeatmapWidget& w_;
  QPainter& p_;
  QRect exposed_;
  const HeatmapLayout& layout_;
  double tilePx_;
  QRectF sceneExposed_;
  std::vector<QRectF> hatched_;
  std::vector<QRectF> rects_;
};

// ---------------------------------------------------------------- the widget

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMouseTracking(true);
  setAcceptDrops(true);
  setFocusPolicy(Qt::StrongFocus);
  // Touch screens pinch through Qt's gesture recognizer. Not on macOS: there the recognizer is
  // fed by the trackpad's native zoom gestures, which event() handles already - it would zoom
  // twice.
#ifndef Q_OS_MACOS
  grabGesture(Qt::PinchGesture);
#endif
  previewTimer_.setSingleShot(true);
  previewTimer_.setInterval(kDropPreviewDelayMs);
  connect(&previewTimer_, &QTimer::timeout, this, &HeatmapWidget::askPreview);
}

HeatmapWidget::~HeatmapWidget() = default;

void HeatmapWidget::setSnapshot(const ClusterSnapshot& snapshot) {
  snapshot_ = snapshot;
  rebuild();
}

// What the Backdrop shows, hashed: a snapshot that leaves the layout and every node's state as
// they were keeps it.
static size_t backdropFingerprint(const HeatmapLayout& layout,
                                  const std::vector<quint8>& nodeState) {
  size_t h = qHashRange(nodeState.begin(), nodeState.end());
  const auto add = [&h](const QRectF& r) {
    h = qHashMulti(h, r.x(), r.y(), r.width(), r.height());
  };
  for (const auto* frames : {&layout.spines(), &layout.leaves(), &layout.domains()})
    for (const HeatmapFrame& f : *frames) {
      add(f.rect);
      add(f.header);
      h = qHashMulti(h, f.name);
    }
  for (const HeatmapNodeBox& n : layout.nodes()) add(n.rect);
  for (const HeatmapNumaZone& z : layout.numaZones()) add(z.rect);
  return h;
}

// Everything derived from the snapshot; the view and what the operator is doing stay.
void HeatmapWidget::rebuild() {
  // The keyboard's GPU cursor (the hover tile) stays on its GPU across refreshes.
  const QString cursor = hoverTile_ >= 0 ? keyOf(hoverTile_) : QString();
  layout_.build(snapshot_);
  hoverInstance_ = -1;
  const auto slash = cursor.lastIndexOf(QLatin1Char('/'));
  hoverTile_ =
      cursor.isEmpty() ? -1 : layout_.tileOf(cursor.left(slash), cursor.mid(slash + 1).toInt());
  resolveDropTarget();
  nodeState_.clear();
  for (const HeatmapNodeBox& n : layout_.nodes())
    nodeState_.push_back(
        static_cast<quint8>(nodeStateOf(snapshot_.nodes[static_cast<size_t>(n.snapshotNode)])));
  backdropFingerprint_ = backdropFingerprint(layout_, nodeState_);
  computeTeams();
  computeFragmentation();
  faultTiles_.clear();
  for (size_t k = 0; k < layout_.tiles().size(); ++k)
    if (gpuOf(static_cast<int>(k)).fault) faultTiles_.push_back(static_cast<int>(k));
  refreshFlags();
  if (autoFit_) fitToView();
  update();
}

// The team holding the largest share of each GPU, one color lookup per team name.
void HeatmapWidget::computeTeams() {
  std::unordered_map<std::string, QRgb> byName;
  tileTeam_.assign(layout_.tiles().size(), color::teamFree);
  for (size_t k = 0; k < layout_.tiles().size(); ++k) {
    const GpuView& g = gpuOf(static_cast<int>(k));
    const GpuView::Occupant* top = nullptr;
    for (const auto& o : g.occupants)
      if (!top || o.milli > top->milli) top = &o;
    if (!top) continue;
    auto [it, fresh] = byName.try_emplace(top->team);
    if (fresh) it->second = heatmapTeamColor(qs(top->team)).rgb();
    tileTeam_[k] = it->second;
  }
}

void HeatmapWidget::setFragmentationDemand(const FragmentationDemand& demand,
                                           const GpuCatalog* catalog) {
  // The jobs refresh every few seconds and the demand rarely changes: recompute only then (the
  // snapshot's own refresh recomputes it in setSnapshot).
  if (demand == demand_ && catalog == catalog_) return;
  demand_ = demand;
  catalog_ = catalog;
  computeFragmentation();
  if (layer_ == HeatmapLayer::Fragmentation) update();
}

double HeatmapWidget::tileFragmentation(int tile) const {
  const auto k = static_cast<size_t>(tile);
  return k < tileFragmentation_.size() ? double(tileFragmentation_[k]) : 0.0;
}

void HeatmapWidget::computeFragmentation() {
  fills_.valid = false;
  const auto values =
      gpuFragmentation(snapshot_, demand_, catalog_ ? *catalog_ : GpuCatalog::builtin());
  tileFragmentation_.assign(layout_.tiles().size(), 0.0f);
  for (size_t k = 0; k < layout_.tiles().size(); ++k) {
    const HeatmapTile& t = layout_.tiles()[k];
    const auto node =
        static_cast<size_t>(layout_.nodes()[static_cast<size_t>(t.node)].snapshotNode);
    if (node < values.size() && static_cast<size_t>(t.gpuSlot) < values[node].size())
      tileFragmentation_[k] = static_cast<float>(values[node][static_cast<size_t>(t.gpuSlot)]);
  }
}

const GpuView& HeatmapWidget::gpuOf(int tile) const {
  const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(tile)];
  return nodeOf(t.node).gpus[static_cast<size_t>(t.gpuSlot)];
}

const NodeView& HeatmapWidget::nodeOf(int layoutNode) const {
  const HeatmapNodeBox& n = layout_.nodes()[static_cast<size_t>(layoutNode)];
  return snapshot_.nodes[static_cast<size_t>(n.snapshotNode)];
}

QString HeatmapWidget::keyOf(int tile) const {
  const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(tile)];
  return layout_.nodes()[static_cast<size_t>(t.node)].name + QLatin1Char('/') +
         QString::number(t.gpu);
}

// Per-tile selection and job flags from the key set and the job id; selected GPUs that left the
// snapshot are dropped.
void HeatmapWidget::refreshFlags() {
  tileFlags_.assign(layout_.tiles().size(), 0);
  QSet<QString> kept;
  for (const QString& key : std::as_const(selected_)) {
    const auto slash = key.lastIndexOf(QLatin1Char('/'));
    const int k = layout_.tileOf(key.left(slash), key.mid(slash + 1).toInt());
    if (k < 0) continue;
    tileFlags_[static_cast<size_t>(k)] |= Selected;
    kept.insert(key);
  }
  selected_ = kept;
  if (highlightJob_ == kNoJob) return;
  for (size_t k = 0; k < tileFlags_.size(); ++k)
    for (const auto& o : gpuOf(static_cast<int>(k)).occupants)
      if (o.job == highlightJob_) tileFlags_[k] |= JobHighlighted;
}

void HeatmapWidget::setLayer(HeatmapLayer layer) {
  if (layer_ == layer) return;
  layer_ = layer;
  fills_.valid = false;
  update();
}

void HeatmapWidget::setLegendVisible(bool visible) {
  legendVisible_ = visible;
  update();
}

std::vector<HeatmapLegendEntry> HeatmapWidget::legend() const {
  std::vector<HeatmapLegendEntry> out;
  switch (layer_) {
    case HeatmapLayer::Team: {
      for (const TeamView& t : snapshot_.teams)
        if (t.gpusInUse > 0 && out.size() < 12)
          out.push_back({qs(t.name), heatmapTeamColor(qs(t.name))});
      out.push_back({tr("free"), QColor::fromRgb(color::teamFree)});
      return out;
    }
    case HeatmapLayer::Health:
      out.push_back({stateName(NodeState::Up), QColor::fromRgb(stateColor(NodeState::Up))});
      out.push_back({tr("GPU fault (Xid)"), QColor::fromRgb(color::fault)});
      for (NodeState s : {NodeState::Draining, NodeState::Drained, NodeState::Down})
        out.push_back({stateName(s), QColor::fromRgb(stateColor(s))});
      return out;
    default:
      break;
  }
  for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const QString label =
        layer_ == HeatmapLayer::Temperature
            ? tr("%1 °C").arg(qRound(kHeatmapTemperatureMinC +
                                     v * (kHeatmapTemperatureMaxC - kHeatmapTemperatureMinC)))
            : percent(v);
    out.push_back({label, heatmapScaleColor(layer_, v)});
  }
  if (isTelemetryLayer(layer_))
    out.push_back({tr("no telemetry"), QColor::fromRgb(color::missing), true});
  return out;
}

// ---------------------------------------------------------------- view transform

QPointF HeatmapWidget::mapToScene(QPointF v) const {
  return (v - offset_) / zoom_;
}

QPointF HeatmapWidget::mapFromScene(QPointF s) const {
  return s * zoom_ + offset_;
}

QRectF HeatmapWidget::mapFromScene(const QRectF& r) const {
  return {r.x() * zoom_ + offset_.x(), r.y() * zoom_ + offset_.y(), r.width() * zoom_,
          r.height() * zoom_};
}

double HeatmapWidget::minZoom() const {
  const QRectF b = layout_.bounds();
  if (b.isEmpty()) return 0.01;
  return 0.25 * std::min(width() / b.width(), height() / b.height());
}

double HeatmapWidget::maxZoom() const {
  // A tile as large as a small window: MIG instances and their jobs are readable long before.
  return 480 / layout_.params().tile;
}

void HeatmapWidget::zoomAt(QPointF viewPos, double factor) {
  const QPointF scenePos = mapToScene(viewPos);
  zoom_ = std::clamp(zoom_ * factor, minZoom(), maxZoom());
  offset_ = viewPos - scenePos * zoom_;
  autoFit_ = false;
  update();
}

void HeatmapWidget::panBy(QPointF delta) {
  offset_ += delta;
  autoFit_ = false;
  update();
}

void HeatmapWidget::fitToView() {
  autoFit_ = true;
  const QRectF b = layout_.bounds();
  if (b.isEmpty() || width() <= 0 || height() <= 0) return;
  const double margin = 8;
  zoom_ = std::max(
      1e-3, std::min((width() - 2 * margin) / b.width(), (height() - 2 * margin) / b.height()));
  offset_ = QPointF(width(), height()) / 2 - b.center() * zoom_;
  update();
}

// ---------------------------------------------------------------- selection and highlight

QStringList HeatmapWidget::selectedGpus() const {
  QStringList out;
  for (size_t k = 0; k < tileFlags_.size(); ++k)
    if (tileFlags_[k] & Selected) out << keyOf(static_cast<int>(k));
  return out;
}

void HeatmapWidget::setSelectedGpus(const QStringList& gpus) {
  selected_ = QSet<QString>(gpus.begin(), gpus.end());
  refreshFlags();
  update();
}

void HeatmapWidget::clearSelection() {
  const bool had = !selected_.isEmpty();
  setSelectedGpus({});
  if (had) emit gpusSelected({});
}

void HeatmapWidget::highlightJob(JobId job) {
  highlightJob_ = job;
  refreshFlags();
  update();
}

void HeatmapWidget::clickAt(QPointF viewPos, Qt::KeyboardModifiers mods) {
  const QPointF s = mapToScene(viewPos);
  if (const auto hit = layout_.hitTest(s)) {
    const QString key = keyOf(hit->tile);
    if (mods & Qt::ControlModifier) {
      if (!selected_.remove(key)) selected_.insert(key);
      refreshFlags();
      update();
      emit gpusSelected(selectedGpus());
      return;
    }
    setSelectedGpus({key});
    emit gpuSelected(hit->node, hit->gpu);
    return;
  }
  if (const auto node = layout_.nodeAt(s)) {
    setSelectedGpus({});
    emit nodeSelected(layout_.nodes()[static_cast<size_t>(*node)].name);
    return;
  }
  clearSelection();
}

void HeatmapWidget::finishRubberBand(Qt::KeyboardModifiers mods) {
  const QRectF scene = QRectF(mapToScene(band_.topLeft()), mapToScene(band_.bottomRight()));
  std::vector<int> hits;
  layout_.tilesIn(scene.normalized(), hits);
  if (!(mods & Qt::ControlModifier)) selected_.clear();
  for (int k : hits) selected_.insert(keyOf(k));
  refreshFlags();
  update();
  emit gpusSelected(selectedGpus());
}

// ---------------------------------------------------------------- tooltips

QString HeatmapWidget::toolTipAt(QPointF viewPos) const {
  const QPointF scene = mapToScene(viewPos);
  if (const auto hit = layout_.hitTest(scene)) return gpuToolTip(*hit);
  if (const auto node = layout_.nodeAt(scene)) return nodeToolTip(*node);
  return {};
}

// The node's state, with the reason it is not up when one was given.
QString HeatmapWidget::stateText(int layoutNode) const {
  const QString name =
      stateName(static_cast<NodeState>(nodeState_[static_cast<size_t>(layoutNode)]));
  const Text& reason = nodeOf(layoutNode).stateReason;
  return reason.empty() ? name : tr("%1 (%2)").arg(name, displayText(reason).toHtmlEscaped());
}

// "Xid 79: GPU has fallen off the bus, for 12 min; repair expected in 18 min", in the fault
// color.
QString HeatmapWidget::faultText(const GpuView::Fault& f) const {
  const auto minutes = [](Seconds s) { return static_cast<int>(std::max<Seconds>(0, s) / 60); };
  QString text = tr("Xid %1: %2, for %n min", nullptr, minutes(snapshot_.now - f.since))
                     .arg(f.xid)
                     .arg(f.message.empty() ? tr("GPU fault") : qs(f.message).toHtmlEscaped());
  if (f.until)
    text += QStringLiteral("; ") +
            tr("repair expected in %n min", nullptr, minutes(*f.until - snapshot_.now));
  return QStringLiteral("<b><font color=\"%1\">%2</font></b>")
      .arg(QColor::fromRgb(color::fault).name(), text);
}

QString HeatmapWidget::nodeToolTip(int layoutNode) const {
  const NodeView& n = nodeOf(layoutNode);
  QString html = tr("<b>%1</b><br>%2 GPUs · pool %3 · state %4")
                     .arg(qs(n.name).toHtmlEscaped())
                     .arg(n.gpus.size())
                     .arg(qs(n.pool).toHtmlEscaped(), stateText(layoutNode));
  if (const int zones = layout_.nodes()[static_cast<size_t>(layoutNode)].zoneCount; zones > 1)
    html += QStringLiteral("<br>") + tr("GPUs in %1 NUMA zones").arg(zones);
  // The state's reason is one hold's; a node out for Slurm and an operator at once has two, and
  // clearing one leaves it out: list each with its owner.
  QStringList holds = NodeHolds::lines(n, snapshot_.executor.name);
  for (QString& h : holds) h = h.toHtmlEscaped();
  if (!holds.isEmpty())
    html += QStringLiteral("<br>") + tr("Holds:") + QStringLiteral("<br>&nbsp;&nbsp;") +
            holds.join(QStringLiteral("<br>&nbsp;&nbsp;"));
  return html;
}

// Where the GPU is, what it reports, the MIG instance under the cursor, and who runs on it.
QString HeatmapWidget::gpuToolTip(const GpuHit& hit) const {
  const int layoutNode = layout_.tiles()[static_cast<size_t>(hit.tile)].node;
  const NodeView& n = nodeOf(layoutNode);
  const GpuView& g = n.gpus[static_cast<size_t>(hit.gpuSlot)];
  auto opt = [](const std::optional<double>& v) { return v ? percent(*v) : tr("no telemetry"); };
  const QString br = QStringLiteral("<br>");
  QString html = tr("<b>%1</b> GPU %2 · %3")
                     .arg(hit.node.toHtmlEscaped())
                     .arg(g.index)
                     .arg(qs(g.model).toHtmlEscaped());
  html +=
      br + tr("leaf %1 · spine %2 · state %3")
               .arg(qs(n.leaf).toHtmlEscaped(), qs(n.spine).toHtmlEscaped(), stateText(layoutNode));
  if (g.fault) html += br + faultText(*g.fault);
  if (!g.nvlinkDomain.empty())
    html += br + tr("NVLink domain %1").arg(qs(g.nvlinkDomain).toHtmlEscaped());
  if (const int numa = layout_.tiles()[static_cast<size_t>(hit.tile)].numa; numa >= 0)
    html += br + tr("NUMA zone %1").arg(numa);
  html += br + tr("allocated %1 · utilization %2 · SM active %3")
                   .arg(percent(g.allocated), opt(g.util), opt(g.smActive));
  html += br + tr("tensor active %1 · memory used %2 · power %3")
                   .arg(opt(g.tensorActive), opt(g.memoryUsed), opt(g.power));
  html +=
      br + tr("temperature %1")
               .arg(g.temperatureC ? tr("%1 °C").arg(qRound(*g.temperatureC)) : tr("no telemetry"));
  if (const double f = tileFragmentation(hit.tile); f > 0)
    html += br + tr("%1 free but unusable for the pending work").arg(percent(f));
  if (g.sharing == "mig") html += br + tr("MIG layout %1").arg(qs(g.migLayout).toHtmlEscaped());
  if (g.mps)
    for (const MpsServerUse& u : mpsServerUse(g)) html += br + mpsServerText(u, *g.mps);
  if (hit.instance >= 0) {
    const HeatmapInstance& i = layout_.instances(hit.tile)[static_cast<size_t>(hit.instance)];
    const QString who = i.occupant >= 0
                            ? tr("job %1").arg(g.occupants[static_cast<size_t>(i.occupant)].job)
                            : tr("idle");
    html += br + QStringLiteral("<b>") +
            tr("instance %1, slices %2-%3: %4")
                .arg(i.profile.toHtmlEscaped())
                .arg(i.start)
                .arg(i.start + i.size - 1)
                .arg(who) +
            QStringLiteral("</b>");
  }
  for (const auto& o : g.occupants)
    html += br + tr("job %1 · team %2 · %3")
                     .arg(o.job)
                     .arg(qs(o.team).toHtmlEscaped(), occupantShareText(o));
  if (g.occupants.empty()) html += br + tr("free");
  return html;
}

// ---------------------------------------------------------------- paint events

void HeatmapWidget::paint(QPainter& p, const QRect& exposed) {
  Painter(*this, p, exposed).run();
}

void HeatmapWidget::paintEvent(QPaintEvent* e) {
  QPainter p(this);
  paint(p, e->rect());
}

void HeatmapWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (autoFit_) fitToView();
}

}  // namespace tessera::widgets
