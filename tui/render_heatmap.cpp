// The cluster heatmap: one cell per GPU, nodes grouped spine -> leaf -> NVLink domain, in the
// desktop's layers. A MIG GPU is a slice bar, one cell per memory slice of its model, coloured by
// the layer's value per slice where there is one (allocation: busy instances; fragmentation:
// stranded slices), else by the GPU's. Lines are laid out for the whole cluster
// (heatmap_layout.h), then only the window around the selected GPU is drawn.
#include <algorithm>
#include <cmath>

#include "heatmap_layout.h"
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

Role cellRole(std::optional<int> lv) {
  return lv ? heatRole(*lv) : Role::Dim;
}

// A slice's level where the layer has a value per slice: allocation (inside a busy instance or
// not) and fragmentation (stranded or free; instances have no value there).
std::optional<int> sliceLevel(HeatLayer layer, MigSliceState st, std::optional<int> gpuLevel) {
  if (layer == HeatLayer::Allocation) return st == MigSliceState::Busy ? 4 : 0;
  if (layer != HeatLayer::Fragmentation) return gpuLevel;
  if (st == MigSliceState::Stranded) return 4;
  return st == MigSliceState::Free ? std::optional(0) : std::nullopt;
}

std::string shortName(const std::string& name, size_t max) {
  return name.size() <= max ? name : name.substr(name.size() - max);
}

void drawGpuCells(Screen& scr, const State& s, int x, int y, const NodeView& n, size_t gi,
                  bool selected) {
  const Glyphs& gl = *s.glyphs;
  const GpuView& g = n.gpus[gi];
  const std::vector<std::optional<int>> cells = heatCells(s, n, gi);
  for (size_t c = 0; c < cells.size(); ++c) {
    const bool out = g.fault || n.state == "down";
    const char32_t glyph = out        ? gl.down
                           : cells[c] ? gl.heat[static_cast<size_t>(*cells[c])]
                                      : U' ';
    const Role role = selected ? Role::Selected : out ? Role::Bad : cellRole(cells[c]);
    scr.putChar(x + static_cast<int>(c), y, glyph, role);
  }
}

void drawLegend(Screen& scr, const State& s, int x, int y, int w) {
  const int end = x + w;
  int cx = x + scr.put(x, y, str(Top::tr("layer")) + ": " + layerTitle(s.ui.layer) + "  ",
                       Role::Header, w);
  for (int lv = 0; lv <= 4 && cx < end; ++lv)
    cx += scr.putChar(cx, y, s.glyphs->heat[static_cast<size_t>(lv)], heatRole(lv));
  cx += scr.put(cx, y, " 0-100%  ", Role::Dim, end - cx);
  if (cx < end) cx += scr.putChar(cx, y, s.glyphs->down, Role::Bad);
  scr.put(cx, y, " " + str(Top::tr("out")) + "  " + str(Top::tr("L next layer")), Role::Dim,
          end - cx);
}

}  // namespace

std::optional<int> heatLevel(HeatLayer layer, const NodeView& node, const GpuView& g,
                             double fragmentation) {
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
      if (g.sharing == "exclusive" && g.allocated > 0) return std::nullopt;
      return level(fragmentation);
    case HeatLayer::Health:
      if (g.fault || node.state == "down") return 4;
      return node.state == "draining" ? 2 : 0;
  }
  return std::nullopt;
}

std::vector<std::optional<int>> heatCells(const State& s, const NodeView& node, size_t gpu) {
  const GpuDerived* d = derivedOf(s, node, gpu);
  const auto gpuLevel = heatLevel(s.ui.layer, node, node.gpus[gpu], d ? d->fragmentation : 0.0);
  if (!d || d->slices.empty()) return {gpuLevel};
  std::vector<std::optional<int>> cells;
  for (MigSliceState st : d->slices) cells.push_back(sliceLevel(s.ui.layer, st, gpuLevel));
  return cells;
}

void drawHeatmap(Screen& scr, const State& s, int x, int y, int w, int h) {
  if (h < 2) return;
  drawLegend(scr, s, x, y, w);
  const auto nodes = visibleNodes(s);
  const HeatmapLayout layout = layoutHeatmap(s, nodes, w);
  const auto& lines = layout.lines;
  const int nameW = layout.nameWidth;
  // The line holding the selected node decides the scroll.
  int selectedLine = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    for (const HeatBlock& b : lines[i].blocks)
      if (b.row == s.ui.selected) selectedLine = static_cast<int>(i);
  const int top = scrollTop(selectedLine, static_cast<int>(lines.size()), h - 1);
  for (int i = 0; i < h - 1 && top + i < static_cast<int>(lines.size()); ++i) {
    const HeatLine& line = lines[static_cast<size_t>(top + i)];
    const int ly = y + 1 + i;
    if (!line.label.empty()) {
      scr.put(x, ly, line.label, Role::Dim, w);
      continue;
    }
    for (const HeatBlock& b : line.blocks) {
      const bool selectedNode = b.row == s.ui.selected;
      scr.put(x + b.x, ly, shortName(b.node->name, static_cast<size_t>(nameW)),
              selectedNode ? Role::Selected : Role::Normal, nameW);
      for (size_t g = 0; g < b.node->gpus.size(); ++g)
        drawGpuCells(scr, s, x + b.x + gpuOffset(s, layout, *b.node, g), ly, *b.node, g,
                     selectedNode && static_cast<int>(g) == s.ui.selectedGpu);
    }
  }
}

}  // namespace tessera::tui
