#pragma once
// The body of each view, drawn into the box (x, y, w, h). Internal to the tui library.
#include "draw.h"

namespace tessera::tui {

void drawJobs(Screen& scr, const State& s, int x, int y, int w, int h);
void drawNodes(Screen& scr, const State& s, int x, int y, int w, int h);
void drawMig(Screen& scr, const State& s, int x, int y, int w, int h);
void drawEvents(Screen& scr, const State& s, int x, int y, int w, int h);
void drawTeams(Screen& scr, const State& s, int x, int y, int w, int h);
void drawHeatmap(Screen& scr, const State& s, int x, int y, int w, int h);
void drawJobDetail(Screen& scr, const State& s, int x, int y, int w, int h);
void drawNodeDetail(Screen& scr, const State& s, int x, int y, int w, int h);
void drawHelp(Screen& scr, const State& s, int x, int y, int w, int h);

// MIG instances of a GPU on its 8 memory slices: the slice's role (Accent busy, Dim free,
// Normal idle instance) drawn as a bar of `8` cells.
void drawMigSlices(Screen& scr, const Glyphs& g, int x, int y, const GpuView& gpu);
// The fraction of a GPU's memory slices its busy instances hold.
double migBusyFraction(const GpuView& gpu);

}  // namespace tessera::tui
