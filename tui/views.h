#pragma once
// The body of each view, drawn into the box (x, y, w, h). Internal to the tui library.
#include "draw.h"

namespace tessera::tui {

void drawJobs(Screen& scr, const State& s, int x, int y, int w, int h);
void drawNodes(Screen& scr, const State& s, int x, int y, int w, int h);
// The Nodes view's foot (render_admission.cpp): the lines it needs (0: nothing to show), and
// the nodes awaiting admission with the nodes' warnings drawn into the box.
int admissionLines(const State& s);
void drawAdmission(Screen& scr, const State& s, int x, int y, int w, int h);
void drawMig(Screen& scr, const State& s, int x, int y, int w, int h);
void drawEvents(Screen& scr, const State& s, int x, int y, int w, int h);
void drawTeams(Screen& scr, const State& s, int x, int y, int w, int h);
void drawHeatmap(Screen& scr, const State& s, int x, int y, int w, int h);
void drawJobDetail(Screen& scr, const State& s, int x, int y, int w, int h);
void drawNodeDetail(Screen& scr, const State& s, int x, int y, int w, int h);
void drawHelp(Screen& scr, const State& s, int x, int y, int w, int h);

// A MIG GPU's memory slices as a bar, one cell per slice its model has (GpuDerived::slices):
// busy instances Accent, idle instances Normal, free slices Dim, stranded ones Warn. Returns the
// cells drawn (none when the geometry or the layout is unknown).
int drawMigSlices(Screen& scr, const Glyphs& g, int x, int y, const GpuDerived* gpu);
// The fraction of a GPU's memory slices its busy instances hold.
double migBusyFraction(const GpuDerived* gpu);

}  // namespace tessera::tui
