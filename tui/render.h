#pragma once
// The screen model's entry point: one frame of the terminal console as a pure function of the
// state and the terminal's size. Small terminals (80x24 and less) get fewer columns and shorter
// words, never overlapping text.
#include "screen.h"
#include "state.h"

namespace tessera::tui {

Screen render(const State& s, int width, int height);

// The body's rows (the screen less the header and the two bottom lines): how far Page Up/Down go.
int bodyHeight(int screenHeight);

// A GPU's level 0..4 in a heatmap layer; nullopt when the layer has no value for it (no
// telemetry, a free GPU in the gap layer, a whole GPU in use in the fragmentation layer). Health
// is 0 (fine), 2 (draining) or 4 (out). `fragmentation` is the GPU's GpuDerived value.
std::optional<int> heatLevel(HeatLayer layer, const NodeView& node, const GpuView& gpu,
                             double fragmentation);
// The levels of the cells the GPU `gpu` of `node` takes in the current layer: one for a whole
// GPU, one per memory slice for a MIG slice bar (the slice's own value in the allocation and
// fragmentation layers, the GPU's in the others).
std::vector<std::optional<int>> heatCells(const State& s, const NodeView& node, size_t gpu);
const char* heatLayerName(HeatLayer l);  // untranslated identifier: "allocation"

}  // namespace tessera::tui
