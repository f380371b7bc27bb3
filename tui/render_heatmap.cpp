// The cluster heatmap: one cell per GPU, nodes grouped spine -> leaf -> NVLink domain, in the
// desktop's layers. A MIG GPU is a slice bar (its busy memory slices as a rising glyph) so it
// reads differently from a whole GPU's shade. Lines are laid out for the whole cluster, then only
// the window around the selected node is drawn.
#include <algorithm>
#include <cmath>

#include "render.h"
#include "rows.h"
#include "text.h"
#include "views.h"

namespace tessera::tui {

const char* heatLayerName(HeatLayer l) {
  static const char* const kNames[kHeatLayerCount] = {"allocation", "utilization",   "sm-active",
                                                      "idle-gap",   "fragmentation", "health"};
  return kNames[static_cast<int>(l)];
}

namespace {

std::string layerTitle(HeatLayer l) {
  switch (l) {
    case HeatLayer::Allocation:
      return str(Top::tr("Allocation"));
    case HeatLayer::Utilization:
      return str(Top::tr("Utilization"));
    case HeatLayer::SmActive:
      return str(Top::tr("SM active"));
    case HeatLayer::IdleGap:
      return str(Top::tr("Allocated but idle"));
    case HeatLayer::Fragmentation:
      return str(Top::tr("Fragmentation"));
    case HeatLayer::Health:
      return str(Top::tr("Health"));
  }
  return {};
}

Role heatRole(int level) {
  return static_cast<Role>(static_cast<int>(Role::Heat0) + level);
}

int level(double fraction) {
  return std::clamp(static_cast<int>(std::ceil(std::clamp(fraction, 0.0, 1.0) * 4 - 1e-9)), 0, 4);
}

// Free GPUs on a node that is partly used are fragments: a whole-node job cannot use them.
double nodeFragmentation(const NodeView& n) {
  int used = 0;
  for (const GpuView& g : n.gpus) used += g.allocated > 0 ? 1 : 0;
  return used == 0 ? 0.0 : 1.0;
}

struct Block {  // one node on a heatmap line
  const NodeView* node;
  int x;
};
struct Line {
  std::string label;  // a group title, or empty for a line of node blocks
  std::vector<Block> blocks;
};

std::string shortName(const std::string& name, size_t max) {
  return name.size() <= max ? name : name.substr(name.size() - max);
}

int nameWidth(const std::vector<const NodeView*>& nodes) {
  size_t w = 4;
  for (const NodeView* n : nodes) w = std::max(w, n->name.size());
  return static_cast<int>(std::min<size_t>(w, 12));
}

// The node's NVLink domain when it spans nodes (an NVL72 rack); empty for a node-local one
// (an HGX board's NVSwitch), which is the node itself.
std::string domainOf(const NodeView& n) {
  const std::string d = n.gpus.empty() ? std::string() : n.gpus.front().nvlinkDomain;
  return d.starts_with(n.name) ? std::string() : d;
}

// Spine and leaf titles, one line per NVLink domain (wrapped when it is wider than the screen).
std::vector<Line> layout(const std::vector<const NodeView*>& nodes, int width, int nameW) {
  std::vector<Line> lines;
  std::string spine, leaf, domain;
  int x = 0;
  for (const NodeView* n : nodes) {
    const int blockW = nameW + 1 + static_cast<int>(n->gpus.size()) + 2;
    if (lines.empty() || n->spine != spine || n->leaf != leaf) {
      spine = n->spine, leaf = n->leaf, domain = "\x01";
      lines.push_back({spine + " > " + leaf, {}});
    }
    if (domainOf(*n) != domain || x + blockW > width) {
      if (domainOf(*n) != domain && !domainOf(*n).empty())
        lines.push_back({"  nvlink " + domainOf(*n), {}});
      domain = domainOf(*n);
      lines.push_back({"", {}});
      x = 2;
    }
    lines.back().blocks.push_back({n, x});
    x += blockW;
  }
  return lines;
}

void drawGpuCell(Screen& scr, const State& s, int x, int y, const NodeView& n, const GpuView& g) {
  const Glyphs& gl = *s.glyphs;
  if (g.fault || n.state == "down") {
    scr.putChar(x, y, gl.down, Role::Bad);
    return;
  }
  const auto lv = heatLevel(s.ui.layer, n, g);
  if (g.sharing == "mig" && s.ui.layer == HeatLayer::Allocation) {
    const int e = static_cast<int>(std::lround(migBusyFraction(g) * 7));
    scr.putChar(x, y, gl.spark[static_cast<size_t>(e)], heatRole(level(migBusyFraction(g))));
    return;
  }
  if (!lv) {
    scr.putChar(x, y, U' ', Role::Dim);  // no value in this layer
    return;
  }
  scr.putChar(x, y, gl.heat[static_cast<size_t>(*lv)], heatRole(*lv));
}

void drawLegend(Screen& scr, const State& s, int x, int y, int w) {
  const int end = x + w;
  int cx = x + scr.put(x, y, str(Top::tr("layer")) + ": " + layerTitle(s.ui.layer) + "  ",
                       Role::Header, w);
  for (int lv = 0; lv <= 4 && cx < end; ++lv)
    cx += scr.putChar(cx, y, s.glyphs->heat[static_cast<size_t>(lv)], heatRole(lv));
  cx += scr.put(cx, y, " 0-100%  ", Role::Dim, end - cx);
  if (cx < end) cx += scr.putChar(cx, y, s.glyphs->down, Role::Bad);
  scr.put(cx, y, " " + str(Top::tr("out")) + "  " + str(Top::tr("l next layer")), Role::Dim,
          end - cx);
}

}  // namespace

std::optional<int> heatLevel(HeatLayer layer, const NodeView& node, const GpuView& g) {
  switch (layer) {
    case HeatLayer::Allocation:
      return level(g.allocated);
    case HeatLayer::Utilization:
      return g.util ? std::optional(level(*g.util)) : std::nullopt;
    case HeatLayer::SmActive:
      return g.smActive ? std::optional(level(*g.smActive)) : std::nullopt;
    case HeatLayer::IdleGap:
      if (g.allocated <= 0 || !g.util) return std::nullopt;
      return level(std::max(0.0, g.allocated - *g.util));
    case HeatLayer::Fragmentation:
      if (g.allocated > 0) return std::nullopt;
      return nodeFragmentation(node) > 0 ? 4 : 0;
    case HeatLayer::Health:
      if (g.fault || node.state == "down") return 4;
      return node.state == "draining" ? 2 : 0;
  }
  return std::nullopt;
}

void drawHeatmap(Screen& scr, const State& s, int x, int y, int w, int h) {
  if (h < 2) return;
  drawLegend(scr, s, x, y, w);
  const auto nodes = visibleNodes(s);
  const int nameW = nameWidth(nodes);
  const std::vector<Line> lines = layout(nodes, w, nameW);
  // The line holding the selected node decides the scroll.
  int selectedLine = 0;
  const NodeView* selected = s.ui.selected < static_cast<int>(nodes.size())
                                 ? nodes[static_cast<size_t>(s.ui.selected)]
                                 : nullptr;
  for (size_t i = 0; i < lines.size(); ++i)
    for (const Block& b : lines[i].blocks)
      if (b.node == selected) selectedLine = static_cast<int>(i);
  const int top = scrollTop(selectedLine, static_cast<int>(lines.size()), h - 1);
  for (int i = 0; i < h - 1 && top + i < static_cast<int>(lines.size()); ++i) {
    const Line& line = lines[static_cast<size_t>(top + i)];
    const int ly = y + 1 + i;
    if (!line.label.empty()) {
      scr.put(x, ly, line.label, Role::Dim, w);
      continue;
    }
    for (const Block& b : line.blocks) {
      const Role nameRole = b.node == selected ? Role::Selected : Role::Normal;
      scr.put(x + b.x, ly, shortName(b.node->name, static_cast<size_t>(nameW)), nameRole, nameW);
      int gx = x + b.x + nameW + 1;
      for (const GpuView& g : b.node->gpus) drawGpuCell(scr, s, gx++, ly, *b.node, g);
    }
  }
}

}  // namespace tessera::tui
