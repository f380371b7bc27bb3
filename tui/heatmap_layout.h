#pragma once
// The heatmap's geometry, shared by the renderer and the arrow keys (which move to the GPU
// above or below on screen): nodes grouped spine -> leaf -> NVLink domain, one line per domain,
// wrapped at the terminal's width. A node is a block of its name and its GPUs' cells; a MIG GPU
// whose model has a MIG geometry is a slice bar, one cell per memory slice, set apart from its
// neighbours by a gap where the width allows.
#include <string>
#include <vector>

#include "state.h"

namespace tessera::tui {

struct HeatBlock {
  const NodeView* node = nullptr;
  int row = 0;  // the node's index among the visible nodes (what Ui::selected counts)
  int x = 0;    // from the body's left edge
};

struct HeatLine {
  std::string label;  // a group title, or empty for a line of node blocks
  std::vector<HeatBlock> blocks;
};

struct HeatmapLayout {
  int nameWidth = 4;
  bool gaps = true;  // slice bars set apart (dropped when a node would not fit the width)
  std::vector<HeatLine> lines;
};

HeatmapLayout layoutHeatmap(const State& s, const std::vector<const NodeView*>& nodes, int width);

// What deriveGpus found for the GPU `gpu` of `node` (a node of s.data.snapshot); nullptr when
// the data was not derived.
const GpuDerived* derivedOf(const State& s, const NodeView& node, size_t gpu);
const GpuDerived* derivedOf(const State& s, const NodeView& node, const GpuView& gpu);
// The cells a GPU's value takes: its memory slices for a MIG slice bar, else 1.
int gpuCells(const State& s, const NodeView& node, size_t gpu);
// Where the GPU's first cell is, from the block's left edge.
int gpuOffset(const State& s, const HeatmapLayout& l, const NodeView& node, size_t gpu);

}  // namespace tessera::tui
