#include "heatmap_nav.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "controller.h"
#include "heatmap_layout.h"
#include "rows.h"

namespace tessera::tui {

namespace {

int gpuCount(const std::vector<const NodeView*>& nodes, int row) {
  return row >= 0 && row < static_cast<int>(nodes.size())
             ? static_cast<int>(nodes[static_cast<size_t>(row)]->gpus.size())
             : 0;
}

// Left and right: the GPUs in order, on into the neighbouring node.
void moveAcross(State& s, const std::vector<const NodeView*>& nodes, int delta) {
  int row = s.ui.selected, gpu = s.ui.selectedGpu + delta;
  while (row >= 0 && row < static_cast<int>(nodes.size()) &&
         (gpu < 0 || gpu >= gpuCount(nodes, row))) {
    if (gpu < 0) {
      if (--row >= 0) gpu += gpuCount(nodes, row);
    } else {
      gpu -= gpuCount(nodes, row++);
    }
  }
  if (row < 0 || row >= static_cast<int>(nodes.size())) return;  // at the first or last GPU
  s.ui.selected = row;
  s.ui.selectedGpu = gpu;
}

struct Place {
  int line = -1;
  int x = 0;  // the middle of the GPU's cells
};

int middleOf(const State& s, const HeatmapLayout& l, const HeatBlock& b, size_t gpu) {
  return b.x + gpuOffset(s, l, *b.node, gpu) + gpuCells(s, *b.node, gpu) / 2;
}

Place placeOf(const State& s, const HeatmapLayout& l, int row, int gpu) {
  for (size_t i = 0; i < l.lines.size(); ++i)
    for (const HeatBlock& b : l.lines[i].blocks)
      if (b.row == row) return {static_cast<int>(i), middleOf(s, l, b, static_cast<size_t>(gpu))};
  return {};
}

// Up and down: the GPU nearest to the same column on the next line of nodes that way.
void moveVertically(State& s, const std::vector<const NodeView*>& nodes, int delta) {
  const HeatmapLayout l = layoutHeatmap(s, nodes, s.ui.width);
  const Place from = placeOf(s, l, s.ui.selected, s.ui.selectedGpu);
  if (from.line < 0) return;
  for (int i = from.line + delta; i >= 0 && i < static_cast<int>(l.lines.size()); i += delta) {
    const HeatLine& line = l.lines[static_cast<size_t>(i)];
    if (line.blocks.empty()) continue;  // a group title
    int best = std::numeric_limits<int>::max();
    for (const HeatBlock& b : line.blocks)
      for (size_t g = 0; g < b.node->gpus.size(); ++g) {
        if (const int distance = std::abs(middleOf(s, l, b, g) - from.x); distance < best) {
          best = distance;
          s.ui.selected = b.row;
          s.ui.selectedGpu = static_cast<int>(g);
        }
      }
    return;
  }
}

}  // namespace

bool onHeatmapKey(State& s, char32_t key) {
  clampSelectedGpu(s);  // a filter may have changed the node under the selection
  const auto nodes = visibleNodes(s);
  switch (key) {
    case kKeyLeft:
    case U'h':
      moveAcross(s, nodes, -1);
      return true;
    case kKeyRight:
    case U'l':
      moveAcross(s, nodes, 1);
      return true;
    case kKeyUp:
    case U'k':
      moveVertically(s, nodes, -1);
      return true;
    case kKeyDown:
    case U'j':
      moveVertically(s, nodes, 1);
      return true;
    default:
      return false;
  }
}

void clampSelectedGpu(State& s) {
  const auto nodes = visibleNodes(s);
  s.ui.selectedGpu =
      std::clamp(s.ui.selectedGpu, 0, std::max(0, gpuCount(nodes, s.ui.selected) - 1));
}

}  // namespace tessera::tui
