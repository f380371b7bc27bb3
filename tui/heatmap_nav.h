#pragma once
// The heatmap's arrow keys (and h j k l): a selected GPU cell moves left and right through the
// GPUs in order, and up and down to the GPU nearest on screen on the line above or below, with
// the lines laid out at the terminal's width (Ui::width). The selection is a node and a GPU,
// not a place on screen, so it stays on the same GPU across refreshes and resizes.
#include "state.h"

namespace tessera::tui {

// Moves the heatmap's selection for `key`; false when the key is not one of its moves.
bool onHeatmapKey(State& s, char32_t key);
// Keeps Ui::selectedGpu inside the selected node's GPUs.
void clampSelectedGpu(State& s);

}  // namespace tessera::tui
