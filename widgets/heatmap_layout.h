#pragma once
// Geometry of the topology heatmap: where every spine, leaf switch, NVLink domain, node, GPU tile
// and MIG instance of a ClusterSnapshot lies in scene coordinates, and the reverse (what lies at a
// scene point or inside a scene rectangle). Pure geometry with no painting, so the widget, its
// tests and the benchmark share one implementation.
//
// Nesting: spine -> leaf switch -> unit -> node -> NUMA zone -> GPU tile -> MIG instance, where a
// unit is one node or the nodes of a multi-node NVLink domain (an NVL72 rack), kept together in
// one frame. NVLink domains inside a node (a whole NVSwitch board, bridged PCIe pairs) get a frame
// around their tiles. When the snapshot says a node has GPUs in several NUMA zones, each
// zone's tiles form a block of their own, set apart by a wider gap. Queries go through a uniform
// grid of buckets, so a hit test costs a few comparisons whatever the cluster size.
#include <QHash>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "service/session.h"

namespace tessera {
class GpuCatalog;
}  // namespace tessera

namespace tessera::widgets {

// Sizes in scene units; at zoom 1 one unit is one pixel.
struct HeatmapLayoutParams {
  double tile = 16;          // GPU tile edge
  double tileGap = 2;        // between tiles of a node
  double nodePad = 3;        // inside the node frame, around its tiles
  double nodeHeader = 10;    // the node's label strip above its tiles
  double nodeGap = 5;        // between node frames
  double numaGap = 6;        // between the tile blocks of two NUMA zones of a node
  double domainPad = 4;      // inside a multi-node NVLink domain frame
  double domainHeader = 12;  // its label strip
  double leafPad = 6;
  double leafHeader = 20;
  double leafGap = 12;
  double spinePad = 8;
  double spineHeader = 24;
  double spineGap = 16;
  double aspect = 16.0 / 9.0;  // the width:height the scene aims for (a typical window)
};

// A spine, leaf or multi-node NVLink domain frame; `header` is the strip its label goes in.
struct HeatmapFrame {
  QRectF rect;
  QRectF header;
  QString name;  // empty: nodes without a leaf (or leaves without a spine)
};

// An NVLink domain inside one node: a frame around its tiles, no label of its own.
struct HeatmapDomainOutline {
  QRectF rect;
  int node = -1;  // index into HeatmapLayout::nodes()
};

// The tiles of one NUMA zone of a node whose GPUs sit in several zones: a frame around them.
struct HeatmapNumaZone {
  QRectF rect;
  int node = -1;  // index into HeatmapLayout::nodes()
  int zone = -1;  // the zone's id (GpuView::numa); -1 gathers GPUs of no known zone
};

struct HeatmapNodeBox {
  QRectF rect;    // the node frame, header included
  QRectF header;  // the label strip
  QString name;
  int snapshotNode = -1;  // index into ClusterSnapshot::nodes
  int leaf = -1;          // index into HeatmapLayout::leaves()
  int firstTile = 0;
  int tileCount = 0;
  int firstZone = 0;  // index into HeatmapLayout::numaZones(); zoneCount = 0: not grouped
  int zoneCount = 0;
};

struct HeatmapTile {
  QRectF rect;
  int node = -1;    // index into HeatmapLayout::nodes()
  int gpu = 0;      // GpuView::index
  int gpuSlot = 0;  // position in NodeView::gpus
  int numa = -1;    // NUMA zone id (GpuView::numa); -1 = unknown
  int slices = 0;   // MIG memory slices of the GPU; 0 = not in MIG mode
  int firstInstance = 0;
  int instanceCount = 0;
};

// A MIG instance: memory slices [start, start + size) of its GPU.
struct HeatmapInstance {
  int start = 0;
  int size = 1;
  int occupant = -1;  // index into GpuView::occupants; -1 = idle instance
  QString profile;
};

// What a scene point hits.
struct GpuHit {
  int snapshotNode = -1;  // index into ClusterSnapshot::nodes
  QString node;           // the node's name
  int gpu = -1;           // GpuView::index
  int gpuSlot = -1;       // position in NodeView::gpus
  int tile = -1;          // index into HeatmapLayout::tiles()
  int instance = -1;      // index into HeatmapLayout::instances(tile); -1 = not on an instance
};

class HeatmapLayout {
 public:
  // Lays out `snapshot`; `catalog` (default: the built-in one) gives MIG slice counts and the
  // instances of a layout. NUMA zones come from the snapshot's GpuView::numa. Rebuilding drops
  // everything from the previous snapshot.
  void build(const ClusterSnapshot& snapshot, const HeatmapLayoutParams& params = {},
             const GpuCatalog* catalog = nullptr);

  [[nodiscard]] QRectF bounds() const { return bounds_; }
  [[nodiscard]] const HeatmapLayoutParams& params() const { return params_; }
  [[nodiscard]] const std::vector<HeatmapFrame>& spines() const { return spines_; }
  [[nodiscard]] const std::vector<HeatmapFrame>& leaves() const { return leaves_; }
  [[nodiscard]] const std::vector<HeatmapFrame>& domains() const { return domains_; }
  [[nodiscard]] const std::vector<HeatmapDomainOutline>& nodeDomains() const {
    return nodeDomains_;
  }
  [[nodiscard]] const std::vector<HeatmapNodeBox>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<HeatmapNumaZone>& numaZones() const { return numaZones_; }
  [[nodiscard]] const std::vector<HeatmapTile>& tiles() const { return tiles_; }
  [[nodiscard]] std::span<const HeatmapInstance> instances(int tile) const;
  [[nodiscard]] QRectF instanceRect(int tile, int instance) const;

  // The GPU (and MIG instance) at a scene point; nothing in the gaps between tiles.
  [[nodiscard]] std::optional<GpuHit> hitTest(QPointF scenePos) const;
  // The node whose frame contains the point (its GPU tiles included), as an index into nodes().
  [[nodiscard]] std::optional<int> nodeAt(QPointF scenePos) const;
  // Tiles (indexes into tiles()) intersecting a scene rectangle, each once, in no set order.
  void tilesIn(const QRectF& sceneRect, std::vector<int>& out) const;
  // Nodes (indexes into nodes()) intersecting a scene rectangle, each once.
  void nodesIn(const QRectF& sceneRect, std::vector<int>& out) const;
  // Tile of a GPU by node name and GpuView::index; -1 if unknown.
  [[nodiscard]] int tileOf(const QString& node, int gpu) const;
  // Index into nodes() of a node by name; -1 if unknown.
  [[nodiscard]] int nodeOf(const QString& node) const;

 private:
  // Buckets of item indexes per grid cell, stored flat (offsets + items).
  struct Grid {
    QPointF origin;
    double cell = 1;
    int cols = 0;
    int rows = 0;
    std::vector<int32_t> offsets;  // cols * rows + 1
    std::vector<int32_t> items;
    void build(const QRectF& bounds, double cellSize, const std::vector<QRectF>& rects);
    [[nodiscard]] std::span<const int32_t> at(QPointF p) const;
    [[nodiscard]] int colOf(double x) const;
    [[nodiscard]] int rowOf(double y) const;
    template <typename Visit>
    void visit(const QRectF& r, const std::vector<QRectF>& rects, Visit&& visitOnce) const;
  };
  class Builder;
  friend class Builder;
  void buildGrids();

  HeatmapLayoutParams params_;
  QRectF bounds_;
  std::vector<HeatmapFrame> spines_;
  std::vector<HeatmapFrame> leaves_;
  std::vector<HeatmapFrame> domains_;
  std::vector<HeatmapDomainOutline> nodeDomains_;
  std::vector<HeatmapNodeBox> nodes_;
  std::vector<HeatmapNumaZone> numaZones_;
  std::vector<HeatmapTile> tiles_;
  std::vector<HeatmapInstance> instances_;
  std::vector<QRectF> tileRects_;  // tiles_[i].rect, dense for the grid
  std::vector<QRectF> nodeRects_;
  Grid tileGrid_;
  Grid nodeGrid_;
  QHash<QString, int> nodeByName_;  // name -> index into nodes_
};

}  // namespace tessera::widgets
