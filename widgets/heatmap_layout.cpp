// Geometry of the topology heatmap (see heatmap_layout.h): a top-down flow layout of spines, leaf
// switches, NVLink domain units, nodes, NUMA zone blocks and GPU tiles, plus the bucket grids that
// answer "what is here" without scanning every tile.
#include "heatmap_layout.h"

#include <QSizeF>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "topology/cluster.h"
#include "topology/gpu_catalog.h"
#include "topology/mig_layout.h"

namespace tessera::widgets {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// Items placed left to right, wrapping into rows no wider than a limit (an item wider than the
// limit gets a row of its own).
struct Flow {
  std::vector<QPointF> pos;
  QSizeF size;
};

Flow flow(const std::vector<QSizeF>& items, double maxWidth, double gap) {
  Flow f;
  f.pos.reserve(items.size());
  double x = 0, y = 0, rowHeight = 0, width = 0;
  for (const QSizeF& s : items) {
    if (x > 0 && x + s.width() > maxWidth) {
      y += rowHeight + gap;
      x = 0;
      rowHeight = 0;
    }
    f.pos.emplace_back(x, y);
    x += s.width() + gap;
    rowHeight = std::max(rowHeight, s.height());
    width = std::max(width, x - gap);
  }
  f.size = QSizeF(width, items.empty() ? 0 : y + rowHeight);
  return f;
}

// The row width limit in [lo, hi] whose result comes closest to `aspect` (width / height). Wider
// limits never make the result taller, so bisection finds it.
template <typename SizeAt>
double widthForAspect(double lo, double hi, double aspect, SizeAt&& sizeAt) {
  if (hi <= lo) return lo;
  for (int i = 0; i < 30 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    const QSizeF s = sizeAt(mid);
    if (s.height() <= 0 || s.width() / s.height() >= aspect)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

// GPU tiles per row in a node: a row for up to 4 GPUs, otherwise two rows (an 8-GPU board as 4x2)
// but never more than 8 per row.
int gpuColumns(int gpus) {
  if (gpus <= 4) return std::max(gpus, 1);
  return std::min(8, (gpus + 1) / 2);
}

// Where a node's GPU tiles go, relative to the node frame's top left, and the frame's size.
struct NodeShape {
  QSizeF size;
  std::vector<QPointF> tiles;  // per position in NodeView::gpus
  std::vector<int> numa;       // per position: the NUMA zone id, -1 = unknown
  // The zone blocks in drawing order (zone id, positions in NodeView::gpus); empty = one block.
  std::vector<std::pair<int, std::vector<int>>> zones;
};

struct ModelInfo {
  int slices = 8;
  const GpuModel* model = nullptr;  // nullptr: unknown to the catalog
};

}  // namespace

// Builds one snapshot's layout into a HeatmapLayout; lives only during build().
class HeatmapLayout::Builder {
 public:
  Builder(HeatmapLayout& out, const ClusterSnapshot& s, const GpuCatalog& catalog)
      : out_(out), s_(s), p_(out.params_), catalog_(catalog) {}

  void run() {
    group();
    findMultiNodeDomains();
    shapeNodes();
    const std::vector<QSizeF> leafSizes = sizeLeaves();
    placeSpines(leafSizes);
  }

 private:
  // A leaf's content unit: one node, or every node of a multi-node NVLink domain in the leaf.
  struct Unit {
    std::string domain;  // empty: a single node
    std::vector<int> nodes;
  };
  struct Leaf {
    std::string name;
    std::vector<Unit> units;
    double contentWidth = 0;
  };
  struct Spine {
    std::string name;
    std::vector<Leaf> leaves;
  };

  // Spines and their leaves in order of first appearance; nodes keep the snapshot's order.
  void group() {
    std::map<std::pair<std::string, std::string>, std::pair<size_t, size_t>> where;
    for (int n = 0; n < static_cast<int>(s_.nodes.size()); ++n) {
      const NodeView& nv = s_.nodes[static_cast<size_t>(n)];
      auto it = where.find({nv.spine, nv.leaf});
      if (it == where.end()) {
        size_t sp = 0;
        while (sp < spines_.size() && spines_[sp].name != nv.spine) ++sp;
        if (sp == spines_.size()) spines_.push_back({nv.spine, {}});
        spines_[sp].leaves.push_back({nv.leaf, {}, 0});
        it =
            where
                .emplace(std::pair{nv.spine, nv.leaf}, std::pair{sp, spines_[sp].leaves.size() - 1})
                .first;
      }
      leafNodes_[it->second].push_back(n);
    }
  }

  void findMultiNodeDomains() {
    std::unordered_map<std::string, int> firstNode;
    for (int n = 0; n < static_cast<int>(s_.nodes.size()); ++n)
      for (const GpuView& g : s_.nodes[static_cast<size_t>(n)].gpus) {
        if (g.nvlinkDomain.empty()) continue;
        auto [it, fresh] = firstNode.try_emplace(g.nvlinkDomain, n);
        if (!fresh && it->second != n) multiNode_.insert(g.nvlinkDomain);
      }
  }

  [[nodiscard]] bool isMultiNode(const std::string& domain) const {
    return !domain.empty() && multiNode_.count(domain) > 0;
  }

  [[nodiscard]] std::string multiNodeDomainOf(int node) const {
    for (const GpuView& g : s_.nodes[static_cast<size_t>(node)].gpus)
      if (isMultiNode(g.nvlinkDomain)) return g.nvlinkDomain;
    return {};
  }

  [[nodiscard]] QSizeF nodeSize(int node) const { return shapes_[static_cast<size_t>(node)].size; }

  // The NUMA zone of each GPU of a node, as the snapshot carries it (-1 = unknown).
  static std::vector<int> numaOf(const NodeView& nv) {
    std::vector<int> numa;
    numa.reserve(nv.gpus.size());
    for (const GpuView& g : nv.gpus) numa.push_back(g.numa);
    return numa;
  }

  // The tiles at `positions` (in NodeView::gpus) as a grid `cols` wide from `origin`, written into
  // `out`.
  void grid(const std::vector<int>& positions, int cols, QPointF origin,
            std::vector<QPointF>& out) const {
    for (size_t i = 0; i < positions.size(); ++i) {
      const int c = static_cast<int>(i) % cols, r = static_cast<int>(i) / cols;
      out[static_cast<size_t>(positions[i])] =
          origin + QPointF(c * (p_.tile + p_.tileGap), r * (p_.tile + p_.tileGap));
    }
  }

  [[nodiscard]] QSizeF gridSize(int count, int cols) const {
    const int rows = std::max(1, (count + cols - 1) / cols);
    return {cols * p_.tile + (cols - 1) * p_.tileGap, rows * p_.tile + (rows - 1) * p_.tileGap};
  }

  // Without zones (or with one) the tiles form one grid. With several, each zone is a block of
  // its own, and the blocks flow in rows about as wide as the single grid would be: a DGX's two
  // zones of four are its two rows, four zones of two a 2 x 2 of pairs.
  [[nodiscard]] NodeShape shapeOf(const NodeView& nv) const {
    NodeShape shape;
    const int gpus = static_cast<int>(nv.gpus.size());
    const int cols = gpuColumns(gpus);
    shape.tiles.resize(nv.gpus.size());
    shape.numa = numaOf(nv);
    std::map<int, std::vector<int>> byZone;  // unknown (-1) first in the map, drawn last
    for (int i = 0; i < gpus; ++i) byZone[shape.numa[static_cast<size_t>(i)]].push_back(i);
    const QPointF origin(p_.nodePad, p_.nodeHeader);
    QSizeF content;
    if (byZone.size() < 2) {
      std::vector<int> all(nv.gpus.size());
      for (int i = 0; i < gpus; ++i) all[static_cast<size_t>(i)] = i;
      grid(all, cols, origin, shape.tiles);
      content = gridSize(gpus, cols);
    } else {
      for (auto& [zone, positions] : byZone)
        if (zone >= 0) shape.zones.emplace_back(zone, std::move(positions));
      if (byZone.begin()->first < 0)
        shape.zones.emplace_back(-1, std::move(byZone.begin()->second));
      std::vector<QSizeF> blocks;
      std::vector<int> blockCols;
      int widest = 1;
      for (const auto& z : shape.zones) {
        const int n = static_cast<int>(z.second.size());
        blockCols.push_back(std::min(gpuColumns(n), cols));
        blocks.push_back(gridSize(n, blockCols.back()));
        widest = std::max(widest, blockCols.back());
      }
      const int perRow = std::max(1, cols / widest);
      const double rowWidth = perRow * gridSize(widest, widest).width() + (perRow - 1) * p_.numaGap;
      const Flow f = flow(blocks, rowWidth, p_.numaGap);
      for (size_t z = 0; z < shape.zones.size(); ++z)
        grid(shape.zones[z].second, blockCols[z], origin + f.pos[z], shape.tiles);
      content = f.size;
    }
    shape.size =
        QSizeF(2 * p_.nodePad + content.width(), p_.nodeHeader + p_.nodePad + content.height());
    return shape;
  }

  void shapeNodes() {
    shapes_.reserve(s_.nodes.size());
    for (const NodeView& nv : s_.nodes) shapes_.push_back(shapeOf(nv));
  }

  [[nodiscard]] std::vector<QSizeF> nodeSizes(const Unit& u) const {
    std::vector<QSizeF> sizes;
    for (int n : u.nodes) sizes.push_back(nodeSize(n));
    return sizes;
  }

  // A unit's size when its leaf's content is `width` wide.
  [[nodiscard]] QSizeF unitSize(const Unit& u, double width) const {
    if (u.domain.empty()) return nodeSize(u.nodes.front());
    const Flow f = flow(nodeSizes(u), width - 2 * p_.domainPad, p_.nodeGap);
    return {f.size.width() + 2 * p_.domainPad, f.size.height() + p_.domainHeader + p_.domainPad};
  }

  [[nodiscard]] std::vector<QSizeF> unitSizes(const Leaf& l, double width) const {
    std::vector<QSizeF> sizes;
    for (const Unit& u : l.units) sizes.push_back(unitSize(u, width));
    return sizes;
  }

  [[nodiscard]] double leafHeader(const Leaf& l) const {
    return l.name.empty() ? 0 : p_.leafHeader;
  }

  [[nodiscard]] QSizeF leafSize(const Leaf& l, double width) const {
    const Flow f = flow(unitSizes(l, width), width, p_.nodeGap);
    return {f.size.width() + 2 * p_.leafPad, f.size.height() + leafHeader(l) + p_.leafPad};
  }

  // Splits each leaf's nodes into units and picks its content width: as wide as the scene's
  // aspect when there is one leaf in all, roughly square when many leaves share the scene.
  std::vector<QSizeF> sizeLeaves() {
    size_t leafCount = 0;
    for (const Spine& sp : spines_) leafCount += sp.leaves.size();
    const double aspect = leafCount == 1 ? p_.aspect : 1.3;
    std::vector<QSizeF> sizes;
    for (size_t si = 0; si < spines_.size(); ++si)
      for (size_t li = 0; li < spines_[si].leaves.size(); ++li) {
        Leaf& l = spines_[si].leaves[li];
        makeUnits(l, leafNodes_[{si, li}]);
        double lo = 0, hi = 0;
        for (const Unit& u : l.units)
          for (int n : u.nodes) {
            lo = std::max(lo, nodeSize(n).width() + (u.domain.empty() ? 0 : 2 * p_.domainPad));
            hi += nodeSize(n).width() + p_.nodeGap + 2 * p_.domainPad;
          }
        l.contentWidth = widthForAspect(lo, hi, aspect, [&](double w) { return leafSize(l, w); });
        sizes.push_back(leafSize(l, l.contentWidth));
      }
    return sizes;
  }

  void makeUnits(Leaf& l, const std::vector<int>& nodes) {
    std::map<std::string, size_t> unitOfDomain;
    for (int n : nodes) {
      const std::string d = multiNodeDomainOf(n);
      if (d.empty()) {
        l.units.push_back({{}, {n}});
        continue;
      }
      auto [it, fresh] = unitOfDomain.try_emplace(d, l.units.size());
      if (fresh) l.units.push_back({d, {}});
      l.units[it->second].nodes.push_back(n);
    }
  }

  [[nodiscard]] double spineHeader(const Spine& sp) const {
    return sp.name.empty() ? 0 : p_.spineHeader;
  }
  [[nodiscard]] double spinePad(const Spine& sp) const { return sp.name.empty() ? 0 : p_.spinePad; }

  // Spines stacked top to bottom, leaves flowing inside each within one common width chosen so
  // the whole scene comes close to the target aspect.
  void placeSpines(const std::vector<QSizeF>& leafSizes) {
    auto sceneSize = [&](double width) {
      double w = 0, h = 0;
      size_t k = 0;
      for (const Spine& sp : spines_) {
        std::vector<QSizeF> sizes(
            leafSizes.begin() + static_cast<std::ptrdiff_t>(k),
            leafSizes.begin() + static_cast<std::ptrdiff_t>(k + sp.leaves.size()));
        k += sp.leaves.size();
        const Flow f = flow(sizes, width, p_.leafGap);
        w = std::max(w, f.size.width() + 2 * spinePad(sp));
        h += f.size.height() + spineHeader(sp) + spinePad(sp) + p_.spineGap;
      }
      return QSizeF(w, h - p_.spineGap);
    };
    double lo = 0, hi = 0;
    for (const QSizeF& s : leafSizes) {
      lo = std::max(lo, s.width());
      hi += s.width() + p_.leafGap;
    }
    const double width = widthForAspect(lo, hi, p_.aspect, sceneSize);
    double y = 0;
    size_t k = 0;
    for (const Spine& sp : spines_) {
      std::vector<QSizeF> sizes(
          leafSizes.begin() + static_cast<std::ptrdiff_t>(k),
          leafSizes.begin() + static_cast<std::ptrdiff_t>(k + sp.leaves.size()));
      k += sp.leaves.size();
      const Flow f = flow(sizes, width, p_.leafGap);
      const QRectF rect(0, y, f.size.width() + 2 * spinePad(sp),
                        f.size.height() + spineHeader(sp) + spinePad(sp));
      out_.spines_.push_back(
          {rect, QRectF(rect.x(), rect.y(), rect.width(), spineHeader(sp)), qs(sp.name)});
      const QPointF origin(spinePad(sp), y + spineHeader(sp));
      for (size_t i = 0; i < sp.leaves.size(); ++i)
        placeLeaf(sp.leaves[i], QRectF(origin + f.pos[i], sizes[i]));
      y += rect.height() + p_.spineGap;
    }
    out_.bounds_ = QRectF();
    for (const HeatmapFrame& f2 : out_.spines_) out_.bounds_ |= f2.rect;
  }

  void placeLeaf(const Leaf& l, const QRectF& rect) {
    const int leafIndex = static_cast<int>(out_.leaves_.size());
    out_.leaves_.push_back(
        {rect, QRectF(rect.x(), rect.y(), rect.width(), leafHeader(l)), qs(l.name)});
    const std::vector<QSizeF> sizes = unitSizes(l, l.contentWidth);
    const Flow f = flow(sizes, l.contentWidth, p_.nodeGap);
    const QPointF origin = rect.topLeft() + QPointF(p_.leafPad, leafHeader(l));
    for (size_t i = 0; i < l.units.size(); ++i)
      placeUnit(l.units[i], QRectF(origin + f.pos[i], sizes[i]), l.contentWidth, leafIndex);
  }

  void placeUnit(const Unit& u, const QRectF& rect, double leafWidth, int leaf) {
    if (u.domain.empty()) {
      placeNode(u.nodes.front(), rect.topLeft(), leaf);
      return;
    }
    out_.domains_.push_back(
        {rect, QRectF(rect.x(), rect.y(), rect.width(), p_.domainHeader), qs(u.domain)});
    const Flow f = flow(nodeSizes(u), leafWidth - 2 * p_.domainPad, p_.nodeGap);
    const QPointF origin = rect.topLeft() + QPointF(p_.domainPad, p_.domainHeader);
    for (size_t i = 0; i < u.nodes.size(); ++i) placeNode(u.nodes[i], origin + f.pos[i], leaf);
  }

  void placeNode(int n, QPointF topLeft, int leaf) {
    const NodeView& nv = s_.nodes[static_cast<size_t>(n)];
    const int nodeIndex = static_cast<int>(out_.nodes_.size());
    HeatmapNodeBox box;
    box.rect = QRectF(topLeft, nodeSize(n));
    box.header = QRectF(topLeft, QSizeF(box.rect.width(), p_.nodeHeader));
    box.name = qs(nv.name);
    box.snapshotNode = n;
    box.leaf = leaf;
    box.firstTile = static_cast<int>(out_.tiles_.size());
    box.tileCount = static_cast<int>(nv.gpus.size());
    const NodeShape& shape = shapes_[static_cast<size_t>(n)];
    for (int i = 0; i < box.tileCount; ++i) {
      const size_t slot = static_cast<size_t>(i);
      placeTile(nv.gpus[slot], QRectF(topLeft + shape.tiles[slot], QSizeF(p_.tile, p_.tile)),
                nodeIndex, i, shape.numa[slot]);
    }
    box.firstZone = static_cast<int>(out_.numaZones_.size());
    box.zoneCount = static_cast<int>(shape.zones.size());
    out_.nodes_.push_back(box);
    out_.nodeByName_.insert(box.name, nodeIndex);
    outlineNumaZones(shape, nodeIndex);
    outlineNodeDomains(nv, nodeIndex);
  }

  void placeTile(const GpuView& g, const QRectF& rect, int node, int slot, int numa) {
    HeatmapTile t;
    t.rect = rect;
    t.node = node;
    t.gpu = g.index;
    t.gpuSlot = slot;
    t.numa = numa;
    t.firstInstance = static_cast<int>(out_.instances_.size());
    if (isMig(g)) {
      const ModelInfo& m = modelInfo(g.model);
      t.slices = m.slices;
      if (!instancesFromLayout(g, m)) instancesFromOccupants(g, m);
    }
    t.instanceCount = static_cast<int>(out_.instances_.size()) - t.firstInstance;
    out_.tiles_.push_back(t);
  }

  static bool isMig(const GpuView& g) {
    if (g.sharing == "mig") return true;
    return std::any_of(g.occupants.begin(), g.occupants.end(),
                       [](const GpuView::Occupant& o) { return o.migStart >= 0; });
  }

  // The slice count from the catalog; without the model there, 4 for an A30 and 8 otherwise
  // (every other MIG-capable GPU so far).
  const ModelInfo& modelInfo(const std::string& model) {
    auto [it, fresh] = models_.try_emplace(model);
    if (fresh) {
      it->second.model = catalog_.find(model);
      if (it->second.model && it->second.model->mig)
        it->second.slices = it->second.model->mig->memorySlices;
      else
        it->second.slices = qs(model).contains(QLatin1String("A30"), Qt::CaseInsensitive) ? 4 : 8;
    }
    return it->second;
  }

  // Every placed instance of the layout text, idle ones included; busy ones get their occupant.
  bool instancesFromLayout(const GpuView& g, const ModelInfo& m) {
    if (!m.model || !m.model->mig || g.migLayout.empty()) return false;
    auto layout = parseMigLayout(*m.model, g.migLayout);
    if (!layout) return false;
    for (const MigInstance& inst : *layout) {
      if (!inst.placed()) continue;
      const MigProfile& p = m.model->mig->profiles[static_cast<size_t>(inst.profile)];
      HeatmapInstance hi;
      hi.start = inst.start;
      hi.size = p.memorySlices;
      hi.profile = qs(p.name);
      hi.occupant = occupantAt(g, inst.start);
      out_.instances_.push_back(hi);
    }
    return true;
  }

  // Without a parsable layout only busy instances are known: their size from the memory share.
  void instancesFromOccupants(const GpuView& g, const ModelInfo& m) {
    for (size_t k = 0; k < g.occupants.size(); ++k) {
      const GpuView::Occupant& o = g.occupants[k];
      if (o.migStart < 0 || o.migStart >= m.slices) continue;
      HeatmapInstance hi;
      hi.start = o.migStart;
      hi.size = std::clamp(static_cast<int>(std::lround(o.milli * m.slices / 1000.0)), 1,
                           m.slices - o.migStart);
      hi.profile = qs(o.migProfile);
      hi.occupant = static_cast<int>(k);
      out_.instances_.push_back(hi);
    }
  }

  static int occupantAt(const GpuView& g, int start) {
    for (size_t k = 0; k < g.occupants.size(); ++k)
      if (g.occupants[k].migStart == start) return static_cast<int>(k);
    return -1;
  }

  // A frame around each zone block, half a tile gap out, as the NVLink outlines.
  void outlineNumaZones(const NodeShape& shape, int node) {
    const int first = out_.nodes_[static_cast<size_t>(node)].firstTile;
    const double m = p_.tileGap / 2;
    for (const auto& [zone, positions] : shape.zones) {
      QRectF r;
      for (int slot : positions) r |= out_.tiles_[static_cast<size_t>(first + slot)].rect;
      out_.numaZones_.push_back({r.adjusted(-m, -m, m, m), node, zone});
    }
  }

  // A frame around the tiles of each NVLink domain that stays inside this node.
  void outlineNodeDomains(const NodeView& nv, int node) {
    std::map<std::string, QRectF> rects;
    const HeatmapNodeBox& box = out_.nodes_[static_cast<size_t>(node)];
    for (int i = 0; i < box.tileCount; ++i) {
      const std::string& d = nv.gpus[static_cast<size_t>(i)].nvlinkDomain;
      if (d.empty() || isMultiNode(d)) continue;
      rects[d] |= out_.tiles_[static_cast<size_t>(box.firstTile + i)].rect;
    }
    const double m = p_.tileGap / 2;
    for (const auto& [name, r] : rects)
      out_.nodeDomains_.push_back({r.adjusted(-m, -m, m, m), node});
  }

  HeatmapLayout& out_;
  const ClusterSnapshot& s_;
  const HeatmapLayoutParams& p_;
  const GpuCatalog& catalog_;
  std::vector<Spine> spines_;
  std::map<std::pair<size_t, size_t>, std::vector<int>> leafNodes_;  // (spine, leaf) -> nodes
  std::unordered_set<std::string> multiNode_;  // NVLink domains spanning nodes
  std::unordered_map<std::string, ModelInfo> models_;
  std::vector<NodeShape> shapes_;  // per snapshot node
};

void HeatmapLayout::build(const ClusterSnapshot& snapshot, const HeatmapLayoutParams& params,
                          const GpuCatalog* catalog) {
  *this = HeatmapLayout();
  params_ = params;
  Builder(*this, snapshot, catalog ? *catalog : GpuCatalog::builtin()).run();
  buildGrids();
}

void HeatmapLayout::buildGrids() {
  tileRects_.clear();
  nodeRects_.clear();
  for (const HeatmapTile& t : tiles_) tileRects_.push_back(t.rect);
  for (const HeatmapNodeBox& n : nodes_) nodeRects_.push_back(n.rect);
  // About two tiles per cell edge: a point query looks at a handful of tiles.
  double cell = 2 * (params_.tile + params_.tileGap);
  // Bound the cell count for sparse or huge scenes.
  while (bounds_.width() / cell * bounds_.height() / cell > 4e6) cell *= 2;
  tileGrid_.build(bounds_, cell, tileRects_);
  nodeGrid_.build(bounds_, cell, nodeRects_);
}

std::span<const HeatmapInstance> HeatmapLayout::instances(int tile) const {
  const HeatmapTile& t = tiles_[static_cast<size_t>(tile)];
  return std::span<const HeatmapInstance>(instances_)
      .subspan(static_cast<size_t>(t.firstInstance), static_cast<size_t>(t.instanceCount));
}

QRectF HeatmapLayout::instanceRect(int tile, int instance) const {
  const HeatmapTile& t = tiles_[static_cast<size_t>(tile)];
  const HeatmapInstance& i = instances(tile)[static_cast<size_t>(instance)];
  const double w = t.rect.width() / std::max(t.slices, 1);
  return {t.rect.x() + i.start * w, t.rect.y(), i.size * w, t.rect.height()};
}

std::optional<GpuHit> HeatmapLayout::hitTest(QPointF p) const {
  for (int32_t k : tileGrid_.at(p)) {
    const HeatmapTile& t = tiles_[static_cast<size_t>(k)];
    if (!t.rect.contains(p)) continue;
    const HeatmapNodeBox& n = nodes_[static_cast<size_t>(t.node)];
    GpuHit hit{n.snapshotNode, n.name, t.gpu, t.gpuSlot, k, -1};
    if (t.slices > 0) {
      const int slice = std::clamp(
          static_cast<int>((p.x() - t.rect.x()) / t.rect.width() * t.slices), 0, t.slices - 1);
      const auto inst = instances(k);
      for (size_t i = 0; i < inst.size(); ++i)
        if (slice >= inst[i].start && slice < inst[i].start + inst[i].size)
          hit.instance = static_cast<int>(i);
    }
    return hit;
  }
  return std::nullopt;
}

std::optional<int> HeatmapLayout::nodeAt(QPointF p) const {
  for (int32_t k : nodeGrid_.at(p))
    if (nodes_[static_cast<size_t>(k)].rect.contains(p)) return k;
  return std::nullopt;
}

void HeatmapLayout::tilesIn(const QRectF& r, std::vector<int>& out) const {
  out.clear();
  tileGrid_.visit(r, tileRects_, [&](int k) { out.push_back(k); });
}

void HeatmapLayout::nodesIn(const QRectF& r, std::vector<int>& out) const {
  out.clear();
  nodeGrid_.visit(r, nodeRects_, [&](int k) { out.push_back(k); });
}

int HeatmapLayout::tileOf(const QString& node, int gpu) const {
  const auto it = nodeByName_.constFind(node);
  if (it == nodeByName_.cend()) return -1;
  const HeatmapNodeBox& n = nodes_[static_cast<size_t>(*it)];
  for (int i = 0; i < n.tileCount; ++i)
    if (tiles_[static_cast<size_t>(n.firstTile + i)].gpu == gpu) return n.firstTile + i;
  return -1;
}

int HeatmapLayout::nodeOf(const QString& node) const {
  return nodeByName_.value(node, -1);
}

// --- Grid

int HeatmapLayout::Grid::colOf(double x) const {
  return std::clamp(static_cast<int>(std::floor((x - origin.x()) / cell)), 0, cols - 1);
}

int HeatmapLayout::Grid::rowOf(double y) const {
  return std::clamp(static_cast<int>(std::floor((y - origin.y()) / cell)), 0, rows - 1);
}

// Each rect goes into every cell it overlaps; counting first lets the items live in one array.
void HeatmapLayout::Grid::build(const QRectF& bounds, double cellSize,
                                const std::vector<QRectF>& rects) {
  origin = bounds.topLeft();
  cell = cellSize;
  cols = std::max(1, static_cast<int>(std::ceil(bounds.width() / cell)));
  rows = std::max(1, static_cast<int>(std::ceil(bounds.height() / cell)));
  const size_t cells = static_cast<size_t>(cols) * static_cast<size_t>(rows);
  offsets.assign(cells + 1, 0);
  auto forCells = [&](const QRectF& r, auto&& f) {
    for (int row = rowOf(r.top()); row <= rowOf(r.bottom()); ++row)
      for (int col = colOf(r.left()); col <= colOf(r.right()); ++col)
        f(static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(col));
  };
  for (const QRectF& r : rects) forCells(r, [&](size_t c) { ++offsets[c + 1]; });
  for (size_t c = 0; c < cells; ++c) offsets[c + 1] += offsets[c];
  items.assign(static_cast<size_t>(offsets[cells]), 0);
  std::vector<int32_t> fill(offsets.begin(), offsets.end() - 1);
  for (size_t k = 0; k < rects.size(); ++k)
    forCells(rects[k],
             [&](size_t c) { items[static_cast<size_t>(fill[c]++)] = static_cast<int32_t>(k); });
}

std::span<const int32_t> HeatmapLayout::Grid::at(QPointF p) const {
  if (items.empty()) return {};
  if (p.x() < origin.x() || p.y() < origin.y() || p.x() > origin.x() + cols * cell ||
      p.y() > origin.y() + rows * cell)
    return {};
  const size_t c = static_cast<size_t>(rowOf(p.y())) * static_cast<size_t>(cols) +
                   static_cast<size_t>(colOf(p.x()));
  return std::span<const int32_t>(items).subspan(static_cast<size_t>(offsets[c]),
                                                 static_cast<size_t>(offsets[c + 1] - offsets[c]));
}

// An item spanning several query cells is reported from only one of them: the first cell (top
// left) of the overlap between its cells and the query's.
template <typename Visit>
void HeatmapLayout::Grid::visit(const QRectF& r, const std::vector<QRectF>& rects,
                                Visit&& visitOnce) const {
  if (items.empty() || !r.isValid()) return;
  const int c0 = colOf(r.left()), c1 = colOf(r.right());
  const int r0 = rowOf(r.top()), r1 = rowOf(r.bottom());
  for (int row = r0; row <= r1; ++row)
    for (int col = c0; col <= c1; ++col) {
      const size_t c =
          static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(col);
      for (int32_t k = offsets[c]; k < offsets[c + 1]; ++k) {
        const int32_t item = items[static_cast<size_t>(k)];
        const QRectF& ir = rects[static_cast<size_t>(item)];
        if (std::max(colOf(ir.left()), c0) != col || std::max(rowOf(ir.top()), r0) != row) continue;
        if (ir.intersects(r)) visitOnce(item);
      }
    }
}

}  // namespace tessera::widgets
