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
// telemetry, a free GPU in the gap layer). Health is 0 (fine), 2 (draining) or 4 (out).
std::optional<int> heatLevel(HeatLayer layer, const NodeView& node, const GpuView& gpu);
const char* heatLayerName(HeatLayer l);  // untranslated identifier: "allocation"

}  // namespace tessera::tui
