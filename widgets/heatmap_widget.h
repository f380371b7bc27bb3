#pragma once
// The console's topology heatmap: every GPU of a ClusterSnapshot as a tile inside its NUMA zone,
// node, NVLink domain, leaf switch and spine, colored by one layer (allocation, owning team,
// utilization, SM activity, allocated-but-idle gap, node state), with MIG instances as sub-tiles
// when zoomed in. Operators zoom (wheel, pinch) and pan, hover for details, select GPUs (click or
// rubber band), see where a job runs (highlightJob) and drag a pending job onto a GPU or node:
// while it hovers the widget asks for a preview (dropPreviewRequested) and shows the answer
// (setDropPreview); the drop itself is jobDropped. The widget only reports what the operator did;
// acting on it is the console's business.
//
// Geometry and hit testing live in HeatmapLayout; this class paints (only the exposed tiles, and
// with less detail when tiles are small) and turns input into signals. The code is split by
// concern: heatmap_widget.cpp paints and keeps state, heatmap_input.cpp handles mouse, wheel,
// pinch and keys, heatmap_drag.cpp drag-and-drop and its preview.
#include <QColor>
#include <QImage>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "heatmap_layout.h"
#include "service/gpu_fragmentation.h"

class QGestureEvent;
class QMimeData;
class QNativeGestureEvent;
class QPainter;

namespace tessera::widgets {

enum class HeatmapLayer {
  Allocation,     // share of the GPU held by jobs
  Team,           // the owning team of each GPU or instance
  Utilization,    // GPU utilization (a kernel was running)
  SmActive,       // SM activity (how much of the GPU the kernels used)
  TensorActive,   // tensor pipe activity
  MemoryUsed,     // framebuffer used / framebuffer the jobs hold
  Power,          // power draw / board power limit
  Temperature,    // GPU temperature, kHeatmapTemperatureMinC..kHeatmapTemperatureMaxC
  Gap,            // allocated but not doing work: allocated - utilization, clamped to 0..1
  Fragmentation,  // free but unusable for the pending work (service/gpu_fragmentation.h)
  Health,         // GPU faults (Xid) over the node's state: up, draining, drained, down
};

// One legend swatch; a scalar layer's scale is given as stops from 0 to 1.
struct HeatmapLegendEntry {
  QString label;
  QColor color;
  bool hatched = false;  // drawn like missing telemetry
};

// The temperature layer's scale in °C: heatmapScaleColor(Temperature, v) shows
// kHeatmapTemperatureMinC + v * (kHeatmapTemperatureMaxC - kHeatmapTemperatureMinC).
constexpr double kHeatmapTemperatureMinC = 30;
constexpr double kHeatmapTemperatureMaxC = 90;

// Colors shared with anything that wants to match the heatmap (job lists, charts).
QColor heatmapTeamColor(const QString& team);            // stable per name
QColor heatmapScaleColor(HeatmapLayer layer, double v);  // v in 0..1, scalar layers
QString heatmapLayerName(HeatmapLayer layer);            // translated

// Where a dragged job would be pinned: a GPU (gpu = its GpuView::index) or a whole node (gpu =
// -1). `generation` numbers the hover targets of the widget: an answer is shown only while its
// generation is the current one, so a late answer for a target the cursor has left is dropped.
struct HeatmapDropTarget {
  QString node;
  int gpu = -1;
  quint64 generation = 0;
};

// The engine's verdict on a drop, as the widget shows it: green (ok) or red, and a short text.
struct HeatmapDropPreview {
  bool ok = false;
  QString text;
};

// The verdict on pinning `job` to `target` from the answer to its dry run: ok when the job
// would start in the dry run's cycle (the text is its placement, and whom it preempts), else
// the engine's refusal, or - pin accepted but the job would still wait - why not there, as far
// as `snapshot` tells (the node's state, the jobs on the GPU). Translated.
HeatmapDropPreview heatmapPinPreview(JobId job, const HeatmapDropTarget& target,
                                     const std::variant<CommandResult, QString>& answer,
                                     const ClusterSnapshot& snapshot);

class HeatmapWidget : public QWidget {
  Q_OBJECT
 public:
  // What a pending-job drag carries: the job id as ASCII digits.
  static constexpr const char* kJobMimeType = "application/x-tessera-job";
  static QMimeData* jobMimeData(JobId job);  // for drag sources; caller owns it
  static std::optional<JobId> jobFromMimeData(const QMimeData* mime);

  // How long the cursor rests on a new drop target before a preview is asked for: a drag
  // across the map passes many targets, and each ask is a dry run of the engine.
  static constexpr int kDropPreviewDelayMs = 150;

  explicit HeatmapWidget(QWidget* parent = nullptr);
  ~HeatmapWidget() override;

  // Replaces the data; zoom, pan, selection, the highlighted job and a drag in progress stay.
  void setSnapshot(const ClusterSnapshot& snapshot);
  // What the pending jobs ask for: the fragmentation layer marks free capacity none of it can
  // use. `catalog` resolves MIG geometries (nullptr: the built-in catalog).
  void setFragmentationDemand(const FragmentationDemand& demand,
                              const GpuCatalog* catalog = nullptr);
  // The fragmentation layer's value of a layout tile (0..1).
  [[nodiscard]] double tileFragmentation(int tile) const;
  [[nodiscard]] const ClusterSnapshot& snapshot() const { return snapshot_; }
  [[nodiscard]] const HeatmapLayout& heatmapLayout() const { return layout_; }

  [[nodiscard]] HeatmapLayer layer() const { return layer_; }
  [[nodiscard]] std::vector<HeatmapLegendEntry> legend() const;
  [[nodiscard]] bool legendVisible() const { return legendVisible_; }
  void setLegendVisible(bool visible);

  // View transform: view = scene * zoom + offset.
  [[nodiscard]] double zoom() const { return zoom_; }
  [[nodiscard]] QPointF mapToScene(QPointF viewPos) const;
  [[nodiscard]] QPointF mapFromScene(QPointF scenePos) const;
  [[nodiscard]] QRectF mapFromScene(const QRectF& sceneRect) const;
  // Multiplies the zoom by `factor` keeping the scene point under `viewPos` in place.
  void zoomAt(QPointF viewPos, double factor);

  // "node/index" keys of the selected GPUs, in layout order.
  [[nodiscard]] QStringList selectedGpus() const;
  void setSelectedGpus(const QStringList& gpus);
  [[nodiscard]] JobId highlightedJob() const { return highlightJob_; }

  // The preview shown for the drag in progress; nullopt while none is (no drag, no target, or
  // the answer still out).
  [[nodiscard]] std::optional<HeatmapDropPreview> dropPreview() const;

  // The hover text for a view position; empty over nothing.
  [[nodiscard]] QString toolTipAt(QPointF viewPos) const;
  // Paints the heatmap as the widget would (the benchmark paints into an image with it).
  void paint(QPainter& p, const QRect& exposed);

  QSize sizeHint() const override { return {800, 500}; }
  QSize minimumSizeHint() const override { return {160, 120}; }

 public slots:
  void setLayer(tessera::widgets::HeatmapLayer layer);
  void fitToView();
  // Outlines every GPU the job holds, on any node; kNoJob clears it.
  void highlightJob(tessera::JobId job);
  void clearSelection();
  // The answer to dropPreviewRequested: the target turns green (ok) or red and `text` appears
  // beside the cursor. Ignored unless `target` is the one hovered now (same generation).
  void setDropPreview(const tessera::widgets::HeatmapDropTarget& target, bool ok,
                      const QString& text);

 signals:
  void gpuSelected(const QString& node, int gpu);
  void nodeSelected(const QString& node);
  // After a rubber band, ctrl-click or clear: the whole selection as "node/index" keys.
  void gpusSelected(const QStringList& gpus);
  // A pending job dropped on a GPU, or on a node's frame (gpu = -1).
  void jobDropped(tessera::JobId job, const QString& node, int gpu);
  // A dragged job has rested on a new target for kDropPreviewDelayMs: what would a drop do?
  // Answer with setDropPreview(target, ...).
  void dropPreviewRequested(tessera::JobId job, const tessera::widgets::HeatmapDropTarget& target);

 protected:
  bool event(QEvent* e) override;
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void leaveEvent(QEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void keyReleaseEvent(QKeyEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dragMoveEvent(QDragMoveEvent* e) override;
  void dragLeaveEvent(QDragLeaveEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  class Painter;
  friend class Painter;
  // A drop target: a GPU tile, or a node frame (tile = -1).
  struct Target {
    int node = -1;  // index into layout nodes
    int tile = -1;
    bool operator==(const Target&) const = default;
  };
  enum TileFlag : quint8 { Selected = 1, JobHighlighted = 2 };
  // A job dragged over the widget: where, onto what, and the preview's state.
  struct Drag {
    JobId job = kNoJob;
    QPointF pos;               // the cursor, view coordinates
    HeatmapDropTarget target;  // by name, so it survives a new snapshot; node empty = none
    bool asked = false;        // dropPreviewRequested sent for this target
    std::optional<HeatmapDropPreview> preview;
  };

  [[nodiscard]] const GpuView& gpuOf(int tile) const;
  [[nodiscard]] const NodeView& nodeOf(int layoutNode) const;
  [[nodiscard]] QString keyOf(int tile) const;
  [[nodiscard]] std::optional<Target> targetAt(QPointF viewPos) const;
  [[nodiscard]] QString nodeToolTip(int layoutNode) const;
  [[nodiscard]] QString stateText(int layoutNode) const;
  [[nodiscard]] QString faultText(const GpuView::Fault& f) const;
  [[nodiscard]] QString gpuToolTip(const GpuHit& hit) const;
  [[nodiscard]] double minZoom() const;
  [[nodiscard]] double maxZoom() const;
  void rebuild();
  void computeTeams();
  void computeFragmentation();
  void refreshFlags();
  void setHover(int tile, int instance);
  // The keyboard's GPU cursor (heatmap_keys.cpp): the hover tile, moved by the arrow keys.
  [[nodiscard]] int tileToward(int from, int dx, int dy) const;
  bool cursorKey(QKeyEvent* e);
  void selectAtCursor(Qt::KeyboardModifiers mods);
  void clickAt(QPointF viewPos, Qt::KeyboardModifiers mods);
  void finishRubberBand(Qt::KeyboardModifiers mods);
  void panBy(QPointF delta);
  bool gestureEvent(QGestureEvent* e);
  bool nativeGestureEvent(QNativeGestureEvent* e);
  void dragTo(JobId job, QPointF viewPos);
  void endDrag();
  void askPreview();
  void resolveDropTarget();
  void paintDrag(QPainter& p) const;

  ClusterSnapshot snapshot_;
  HeatmapLayout layout_;
  HeatmapLayer layer_ = HeatmapLayer::Allocation;
  bool legendVisible_ = true;
  double zoom_ = 1;
  QPointF offset_;
  bool autoFit_ = true;  // until the operator zooms or pans, the view follows the widget size
  QSet<QString> selected_;
  JobId highlightJob_ = kNoJob;
  std::vector<quint8> tileFlags_;         // TileFlag bits per layout tile
  std::vector<QRgb> tileTeam_;            // team color of each tile's largest occupant
  std::vector<float> tileFragmentation_;  // per layout tile: share free but stranded
  FragmentationDemand demand_;
  const GpuCatalog* catalog_ = nullptr;
  std::vector<quint8> nodeState_;  // per layout node, a state code of the .cpp
  int hoverTile_ = -1;
  int hoverInstance_ = -1;
  std::optional<Target> dropTarget_;  // layout indexes of drag_.target
  Drag drag_;
  quint64 dropGeneration_ = 0;
  QTimer previewTimer_;
  // Mouse gestures.
  enum class Gesture { None, Press, RubberBand, Pan };
  Gesture gesture_ = Gesture::None;
  QPointF pressPos_;
  QPointF lastPos_;
  QRectF band_;  // view coordinates
  bool spaceHeld_ = false;
  // What a full repaint of 10,000 GPUs would otherwise recompute every frame though only a new
  // snapshot, layer or demand changes it: each tile's fill (and whether it is hatched), the
  // tiles in fill order (so a paint batches by color without sorting) and the faulted tiles.
  struct Fills {
    bool valid = false;
    std::vector<QRgb> fill;       // per layout tile
    std::vector<quint8> hatched;  // per layout tile: no telemetry for this layer
    std::vector<int> byFill;      // layout tiles sorted by fill
  };
  Fills fills_;
  // What lies under the tiles - the background, spine, leaf and NVLink frames with their names,
  // the node boxes outlined by state, the NUMA zones - as last painted for the whole widget. It
  // changes only with the layout, a node's state or the view, while every refresh recolors tiles:
  // a paint copies it instead of filling the window five times over before the tiles (one image
  // of the widget's size, 8 MB at 1920x1080).
  struct Backdrop {
    QImage image;
    double zoom = 0;
    QPointF offset;
    size_t fingerprint = 0;  // backdropFingerprint_ when it was painted
  };
  Backdrop backdrop_;
  size_t backdropFingerprint_ = 0;  // of the layout's frames, nodes and zones and nodeState_
  std::vector<int> faultTiles_;     // layout tiles whose GPU has a fault
  // Scratch buffers reused by every paint.
  std::vector<int> visibleTiles_;
  std::vector<int> visibleNodes_;
};

}  // namespace tessera::widgets
